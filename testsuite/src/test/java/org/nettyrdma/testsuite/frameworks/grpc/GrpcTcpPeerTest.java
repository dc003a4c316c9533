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
package org.nettyrdma.testsuite.frameworks.grpc;

import static org.nettyrdma.testsuite.frameworks.grpc.GrpcEchoTest.assertEchoed;
import static org.nettyrdma.testsuite.frameworks.grpc.GrpcEchoTest.messages;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.netty.channel.EventLoopGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaFallbackReason;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.example.Transport;
import org.nettyrdma.example.grpc.GrpcEchoClient;
import org.nettyrdma.example.grpc.GrpcEchoServer;
import org.nettyrdma.example.grpc.GrpcEchoService;
import org.nettyrdma.testkit.DeviceUnderTest;
import org.nettyrdma.testkit.RdmaTestEnvironment;
import org.nettyrdma.testkit.RdmaTransportFixture;
import org.nettyrdma.testsuite.frameworks.ClientChannels;

/**
 * A gRPC channel built for this transport, as docs/grpc.md tells a user to build it, reaches a gRPC
 * server that runs on Netty's epoll transport alone at the device's address: RDMA CM finds no RDMA
 * listener at the server's port, so the channel's connection is carried by TCP and the calls succeed.
 * The fixture asserts that the RDMA attempt leaves no queue pair, CM id or memory region behind.
 */
class GrpcTcpPeerTest {

    private static final int[] SIZES = {0, 8191, 65_536, 1 << 20};

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    @Test
    void unaryCallsReachAnEpollServerOverTcp() throws Exception {
        DeviceUnderTest.assumeTcpServersSurviveRdmaConnects();
        EventLoopGroup tcpOnly = Transport.EPOLL.newEventLoopGroup(1);
        try {
            Server server = GrpcEchoServer.builder(tcpOnly, Transport.EPOLL, RdmaTestEnvironment.anyPort())
                    .addService(GrpcEchoService.definition()).build().start();
            try {
                callOverTcp((InetSocketAddress) server.getListenSockets().get(0));
            } finally {
                end(server.shutdownNow().awaitTermination(GrpcEndpoints.END_BOUND_SECONDS, TimeUnit.SECONDS),
                        "the epoll gRPC server");
            }
        } finally {
            tcpOnly.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    /** Echoes {@link #SIZES} on the example's channel to {@code address}, and asserts TCP carried it. */
    private void callOverTcp(InetSocketAddress address) throws InterruptedException {
        ClientChannels connected = new ClientChannels();
        // The example's channel, of this transport's channel type, from a factory that keeps each channel
        // it makes: gRPC gives a user no other handle on its connections.
        ManagedChannel channel = GrpcEchoClient.builder(rdma.group(), Transport.RDMA, address)
                .channelFactory(() -> {
                    RdmaSocketChannel socket = new RdmaSocketChannel();
                    connected.add(socket);
                    return socket;
                }, InetSocketAddress.class)
                .build();
        try {
            List<byte[]> sent = messages(37, SIZES);
            List<byte[]> echoed = new ArrayList<>();
            for (byte[] message : sent) {
                echoed.add(GrpcEchoClient.unary(channel, message));
            }
            assertEchoed(sent, echoed);
            connected.assertCarriedByTcp(RdmaFallbackReason.NO_RDMA_LISTENER);
        } finally {
            end(channel.shutdownNow().awaitTermination(GrpcEndpoints.END_BOUND_SECONDS, TimeUnit.SECONDS),
                    "the gRPC channel");
        }
    }

    private static void end(boolean ended, String what) {
        if (!ended) {
            throw new AssertionError(what + " did not end within " + GrpcEndpoints.END_BOUND_SECONDS + " s");
        }
    }
}
