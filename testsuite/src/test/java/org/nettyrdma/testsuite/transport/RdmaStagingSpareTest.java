/*
 * Copyright 2026 The netty-rdma Project
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *   https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package org.nettyrdma.testsuite.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.Channel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaChannelMetrics;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.testkit.Await;
import org.nettyrdma.testkit.EchoHandler;
import org.nettyrdma.testkit.EchoProbe;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * A connection keeps the staging blocks its sends emptied, so that a request/response exchange takes
 * no block from the pool per message, and gives them back once it stops sending: after 4 KiB echoes
 * (above the inline limit, so staged, all in one block) the client holds exactly one 64 KiB block,
 * and none a few seconds later, while the connection stays open.
 */
class RdmaStagingSpareTest {

    /** {@code SendBlocks.BLOCK_SIZE}: the spare is a block of the usual size. */
    private static final long BLOCK = 64 * 1024;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    @Test
    void theSpareStagingBlockGoesBackOnceTheConnectionStopsSending() throws Exception {
        Channel server = rdma.bind(rdma.server().childHandler(EchoHandler.INSTANCE));
        EchoProbe probe = new EchoProbe(1, 4096, 4096, 4096, 4096);
        RdmaSocketChannel client = (RdmaSocketChannel) rdma.client().handler(probe)
                .connect(server.localAddress()).sync().channel();
        probe.writeAll(client);
        probe.assertEchoed(60);

        RdmaChannelMetrics sent = client.eventLoop().submit(client::metrics).get();
        assertEquals(BLOCK, sent.stagingBytes(), () -> "one spare block after the echoes: " + sent);
        // The look runs every second and gives the spares back at the first one after a look without sends.
        Await.until(() -> client.metrics().stagingBytes() == 0, 10,
                () -> "the spare went back while the connection stayed open: " + client.metrics());
        RdmaChannelMetrics idle = client.metrics();
        assertEquals(sent.registeredBytes() - BLOCK, idle.registeredBytes(),
                () -> "registered memory without the spare: " + sent + " then " + idle);
        assertTrue(client.isActive(), "the connection is still open");
        client.close().sync();
    }
}
