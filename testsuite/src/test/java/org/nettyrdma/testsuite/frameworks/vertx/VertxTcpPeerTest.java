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
package org.nettyrdma.testsuite.frameworks.vertx;

import static org.nettyrdma.testsuite.frameworks.vertx.VertxOnRdma.await;
import static org.nettyrdma.testsuite.frameworks.vertx.VertxOnRdma.host;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.transport.Transport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaFallbackReason;
import org.nettyrdma.testkit.DeviceUnderTest;
import org.nettyrdma.testkit.RdmaTestEnvironment;
import org.nettyrdma.testsuite.frameworks.ClientChannels;
import org.nettyrdma.testsuite.frameworks.Payloads;

/**
 * Vert.x's HTTP client on {@code RdmaVertx.transport()}, as docs/vertx.md tells a user to build it,
 * reaches a Vert.x HTTP server on Vert.x's epoll transport alone at the device's address: RDMA CM finds
 * no RDMA listener at the server's port, so the client's connection is carried by TCP and the bodies
 * come back whole. {@link VertxOnRdma} asserts that the RDMA attempt leaves no verbs object behind.
 */
class VertxTcpPeerTest {

    private static final int[] SIZES = {1, 8192, 65_537, 1 << 20};

    @RegisterExtension
    static final VertxOnRdma rdma = new VertxOnRdma();

    @Test
    void anHttpClientReachesAnEpollServerOverTcp() throws Exception {
        DeviceUnderTest.assumeTcpServersSurviveRdmaConnects();
        Vertx tcpOnly = Vertx.builder().with(new VertxOptions().setEventLoopPoolSize(1))
                .withTransport(Transport.EPOLL).build();
        ClientChannels connected = new ClientChannels();
        try {
            // By its address: this Vertx's resolver has no entry for host()'s name over IPv6.
            String address = RdmaTestEnvironment.address().getHostAddress();
            HttpServer server = await(tcpOnly.createHttpServer(new HttpServerOptions().setHost(address).setPort(0))
                    .requestHandler(VertxHttpTest::answer)
                    .listen());
            HttpClient client = rdma.vertx().createHttpClient(new HttpClientOptions());
            try {
                for (int i = 0; i < SIZES.length; i++) {
                    await(VertxHttpTest.post(client, host(), server.actualPort(), Payloads.bytes(400 + i, SIZES[i]),
                            connected::add)).assertWhole("HTTP_1_1", "EpollSocketChannel", i);
                }
                connected.assertCarriedByTcp(RdmaFallbackReason.NO_RDMA_LISTENER);
            } finally {
                await(client.close());
            }
        } finally {
            await(tcpOnly.close());
        }
    }
}
