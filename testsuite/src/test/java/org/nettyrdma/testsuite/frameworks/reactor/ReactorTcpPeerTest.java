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
package org.nettyrdma.testsuite.frameworks.reactor;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.nettyrdma.testsuite.frameworks.reactor.ReactorOnRdma.TIMEOUT;
import static org.nettyrdma.testsuite.frameworks.reactor.ReactorOnRdma.host;

import java.time.Duration;

import io.netty.channel.epoll.EpollServerSocketChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaFallbackReason;
import org.nettyrdma.testkit.DeviceUnderTest;
import org.nettyrdma.testsuite.frameworks.ClientChannels;
import org.nettyrdma.testsuite.frameworks.Payloads;
import reactor.netty.DisposableServer;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.LoopResources;

/**
 * Reactor Netty's HTTP client on {@code RdmaLoopResources}, as docs/reactor-netty.md tells a user to
 * set it up, reaches a Reactor Netty HTTP server on Reactor's own loop resources with the native
 * (epoll) transport, at the device's address: RDMA CM finds no RDMA listener at the server's port, so
 * the client's connection is carried by TCP and the bodies come back whole. {@link ReactorOnRdma}
 * asserts that the RDMA attempt leaves no verbs object behind.
 */
class ReactorTcpPeerTest {

    private static final int[] SIZES = {1, 8192, 65_537, 1 << 20};

    @RegisterExtension
    static final ReactorOnRdma rdma = new ReactorOnRdma();

    @Test
    void anHttpClientReachesAnEpollServerOverTcp() throws Exception {
        DeviceUnderTest.assumeTcpServersSurviveRdmaConnects();
        LoopResources tcpOnly = LoopResources.create("tcp-peer", 1, true);
        ClientChannels connected = new ClientChannels();
        try {
            DisposableServer server = HttpServer.create().runOn(tcpOnly, true).host(host()).port(0)
                    .handle(ReactorHttpTest::answer)
                    .bindNow(TIMEOUT);
            try {
                assertInstanceOf(EpollServerSocketChannel.class, server.channel(), "the server's channel");
                HttpClient client = HttpClient.create(rdma.connections()).runOn(rdma.loops())
                        .host(host()).port(server.port())
                        .doOnConnected(connection -> connected.add(ReactorOnRdma.socketOf(connection.channel())));
                for (int i = 0; i < SIZES.length; i++) {
                    ReactorHttpTest.post(client, Payloads.bytes(1400 + i, SIZES[i])).block(TIMEOUT)
                            .assertWhole("HTTP/1.1", "EpollSocketChannel", i);
                }
                connected.assertCarriedByTcp(RdmaFallbackReason.NO_RDMA_LISTENER);
            } finally {
                server.disposeNow(TIMEOUT);
            }
        } finally {
            tcpOnly.disposeLater(Duration.ZERO, TIMEOUT).block(TIMEOUT);
        }
    }
}
