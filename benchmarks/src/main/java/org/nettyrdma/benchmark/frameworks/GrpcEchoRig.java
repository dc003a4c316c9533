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
package org.nettyrdma.benchmark.frameworks;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import org.nettyrdma.channel.rdma.RdmaByteBufAllocator;
import org.nettyrdma.example.Transport;
import org.nettyrdma.example.grpc.GrpcEchoClient;
import org.nettyrdma.example.grpc.GrpcEchoServer;
import org.nettyrdma.example.grpc.GrpcEchoService;

/**
 * The example's gRPC echo server and a channel to it over one transport, in this process, each on an
 * event loop of its own, as {@link GrpcEchoServer} and {@link GrpcEchoClient} build them. The channel
 * runs its callbacks on its event loop ({@code directExecutor}), as the server does, so that a call
 * costs the framework and the transport, not a hand-off between threads. Closed at the end of a round.
 */
final class GrpcEchoRig implements AutoCloseable {

    /** Where gRPC's channels take their allocator from. */
    enum Allocator {
        /** gRPC's default: its own pooled allocator, set on every channel it makes. */
        GRPC,
        /** {@code -Dio.grpc.netty.useCustomAllocator=false}: Netty's default allocator. */
        NETTY,
        /** {@code withOption}/{@code withChildOption(ALLOCATOR, RdmaByteBufAllocator.DEFAULT)}: the registered one. */
        REGISTERED
    }

    private static final long TIMEOUT_SECONDS = 20;

    private final EventLoopGroup serverGroup;
    private final EventLoopGroup clientGroup;
    private final Server server;
    private final ManagedChannel channel;

    GrpcEchoRig(Transport transport, String host, Allocator allocator) throws IOException {
        serverGroup = transport.newEventLoopGroup(1);
        clientGroup = transport.newEventLoopGroup(1);
        NettyServerBuilder serverBuilder = GrpcEchoServer.builder(serverGroup, transport, new InetSocketAddress(host, 0));
        if (allocator == Allocator.REGISTERED && transport.isRdma()) {
            serverBuilder.withChildOption(ChannelOption.ALLOCATOR, RdmaByteBufAllocator.DEFAULT);
        }
        server = serverBuilder.addService(GrpcEchoService.definition()).build().start();
        NettyChannelBuilder channelBuilder = GrpcEchoClient.builder(clientGroup, transport,
                (InetSocketAddress) server.getListenSockets().get(0)).directExecutor();
        if (allocator == Allocator.REGISTERED && transport.isRdma()) {
            channelBuilder.withOption(ChannelOption.ALLOCATOR, RdmaByteBufAllocator.DEFAULT);
        }
        channel = channelBuilder.build();
    }

    ManagedChannel channel() {
        return channel;
    }

    @Override
    public void close() throws InterruptedException {
        channel.shutdownNow().awaitTermination(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        server.shutdownNow().awaitTermination(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        clientGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        serverGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }
}
