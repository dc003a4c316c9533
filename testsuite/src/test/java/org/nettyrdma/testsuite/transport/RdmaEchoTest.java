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

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.channels.AlreadyConnectedException;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.testkit.EchoHandler;
import org.nettyrdma.testkit.EchoProbe;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * A Netty echo server and client over the RDMA transport: bytes of every size class (inline-sized,
 * Send-sized, around the slot boundary, RDMA-Write-sized, larger than the ring) come back unchanged
 * and in order, and when both sides are closed no memory region, completion queue or queue pair is
 * left ({@link RdmaTransportFixture}).
 */
class RdmaEchoTest {

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    @Test
    void echoesEverySizeClassUnchanged() throws Exception {
        Channel server = rdma.bind(rdma.server().childHandler(EchoHandler.INSTANCE));

        EchoProbe probe = new EchoProbe(7, 1, 100, 8175, 8176, 8177, 9000, 65536, 300_000, 3 << 20);
        Channel client = rdma.client().handler(probe).connect(server.localAddress()).sync().channel();
        assertTrue(client.isActive());
        probe.writeAll(client);
        probe.assertEchoed(60);

        client.close().sync();
        server.close().sync();
    }

    @Test
    void secondConnectFailsWithAlreadyConnected() throws Exception {
        Channel server = rdma.bind(rdma.server().childHandler(new ChannelInboundHandlerAdapter()));
        Channel client = rdma.client()
                .handler(new ChannelInboundHandlerAdapter())
                .connect(server.localAddress()).sync().channel();
        Throwable cause = client.connect(server.localAddress()).await().cause();
        assertTrue(cause instanceof AlreadyConnectedException, "second connect failed with " + cause);
        client.close().sync();
        server.close().sync();
    }
}
