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

import java.net.InetSocketAddress;

import io.netty.channel.Channel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.testkit.EchoHandler;
import org.nettyrdma.testkit.EchoProbe;
import org.nettyrdma.testkit.RdmaTestEnvironment;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * {@code bind(port)}, as most Netty servers are written: the listener takes connections through any
 * RDMA device, and a client connecting to the device's address gets its echo.
 */
class RdmaWildcardBindTest {

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    @Test
    void aServerBoundToThePortAloneAcceptsThroughTheDevice() throws Exception {
        Channel server = rdma.server().childHandler(EchoHandler.INSTANCE).bind(0).sync().channel();
        InetSocketAddress bound = (InetSocketAddress) server.localAddress();
        assertTrue(bound.getAddress().isAnyLocalAddress(), "bound to the wildcard address: " + bound);
        assertTrue(bound.getPort() > 0, "a port was chosen: " + bound);

        InetSocketAddress target = new InetSocketAddress(RdmaTestEnvironment.address(), bound.getPort());
        EchoProbe probe = new EchoProbe(3, 64, 100_000);
        Channel client = rdma.client().handler(probe).connect(target).sync().channel();
        assertEquals(target, client.remoteAddress());
        probe.writeAll(client);
        probe.assertEchoed(60);

        client.close().sync();
        server.close().sync();
    }
}
