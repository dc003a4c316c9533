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

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import io.grpc.Attributes;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerTransportFilter;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.EventLoopGroup;
import org.nettyrdma.example.Transport;
import org.nettyrdma.example.grpc.GrpcEchoClient;
import org.nettyrdma.example.grpc.GrpcEchoServer;
import org.nettyrdma.example.grpc.GrpcEchoService;
import org.nettyrdma.testkit.RdmaTestEnvironment;

/**
 * A gRPC server on the test device's address, built by the example ({@link GrpcEchoServer#builder}) over
 * RDMA and serving the example's echo service and a {@link TrackedService}, and the channels a test opens
 * to it ({@link GrpcEchoClient#builder}). {@link #close()} shuts every channel and then the server down
 * and fails if one of them does not end in time, so that a test leaves no connection behind for the
 * device check that follows it.
 */
final class GrpcEndpoints implements AutoCloseable {

    /** Generous for emulation: a channel or a server ends in well under a second on a real device. */
    static final long END_BOUND_SECONDS = 30;

    final TrackedService tracked = new TrackedService();
    private final EventLoopGroup group;
    private final Server server;
    private final AtomicInteger transportsReady = new AtomicInteger();
    private final List<ManagedChannel> channels = new CopyOnWriteArrayList<>();

    /** Starts a server on {@code group} as the example builds it. */
    GrpcEndpoints(EventLoopGroup group) throws IOException {
        this(group, UnaryOperator.identity());
    }

    /** Starts a server on {@code group} as the example builds it, then as {@code custom} changes the builder. */
    GrpcEndpoints(EventLoopGroup group, UnaryOperator<NettyServerBuilder> custom) throws IOException {
        this.group = group;
        NettyServerBuilder builder = GrpcEchoServer.builder(group, Transport.RDMA, RdmaTestEnvironment.anyPort())
                .addService(GrpcEchoService.definition())
                .addService(tracked.definition())
                .addTransportFilter(new ServerTransportFilter() {
                    @Override
                    public Attributes transportReady(Attributes attributes) {
                        transportsReady.incrementAndGet();
                        return attributes;
                    }
                });
        server = custom.apply(builder).build().start();
    }

    /** Returns the address the server listens on. */
    InetSocketAddress address() {
        return (InetSocketAddress) server.getListenSockets().get(0);
    }

    Server server() {
        return server;
    }

    /** Returns how many connections the server has taken (transports ready). */
    int transportsReady() {
        return transportsReady.get();
    }

    /** Returns a new channel to the server, as the example builds it. */
    ManagedChannel channel() {
        return channel(UnaryOperator.identity());
    }

    /** Returns a new channel to the server, as the example builds it and then {@code custom} changes it. */
    ManagedChannel channel(UnaryOperator<NettyChannelBuilder> custom) {
        ManagedChannel channel = custom.apply(GrpcEchoClient.builder(group, Transport.RDMA, address())).build();
        channels.add(channel);
        return channel;
    }

    @Override
    public void close() throws InterruptedException {
        for (ManagedChannel channel : channels) {
            channel.shutdownNow();
        }
        server.shutdownNow();
        for (ManagedChannel channel : channels) {
            if (!channel.awaitTermination(END_BOUND_SECONDS, TimeUnit.SECONDS)) {
                throw new AssertionError("a gRPC channel did not end within " + END_BOUND_SECONDS + " s: " + channel);
            }
        }
        if (!server.awaitTermination(END_BOUND_SECONDS, TimeUnit.SECONDS)) {
            throw new AssertionError("the gRPC server did not end within " + END_BOUND_SECONDS + " s");
        }
    }
}
