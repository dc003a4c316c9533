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
package org.nettyrdma.example;

import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.nettyrdma.channel.rdma.RdmaChannelOption;
import org.nettyrdma.channel.rdma.RdmaServerSocketChannel;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;

/**
 * What the one-sided examples share: a server whose connections may expose memory
 * ({@link RdmaChannelOption#EXPOSE_MEMORY}, each in a protection domain of its own) and that closes
 * them all when it closes, and the bootstrap of its clients. The pipelines are the examples': the
 * server's puts an {@link ExposeToEachPeer} in each, the client's a handler that completes the
 * connect future once the server's hello arrived. RDMA loops only.
 */
public final class ExposingServer {

    /** Why a one-sided example refuses a TCP transport ({@link ExampleOptions#rdmaTransport}). */
    public static final String RDMA_ONLY = "one-sided operations do not exist over TCP";

    private static final long REPORT_SECONDS = 5;

    private final ByteBuf memory;
    private final Channel channel;
    private final ChannelGroup connections;

    private ExposingServer(ByteBuf memory, Channel channel, ChannelGroup connections) {
        this.memory = memory;
        this.channel = channel;
        this.connections = connections;
    }

    /**
     * Binds a server to {@code address} on {@code group} whose accepted connections get the handlers
     * {@code pipeline} adds. The server takes the caller's reference to {@code memory}, the memory its
     * connections expose, and releases it when it closes, or at once if it cannot bind.
     */
    public static ExposingServer start(EventLoopGroup group, SocketAddress address, ByteBuf memory,
                                       Consumer<ChannelPipeline> pipeline) throws InterruptedException {
        ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
        try {
            Channel channel = new ServerBootstrap()
                    .group(group)
                    .channel(RdmaServerSocketChannel.class)
                    .childOption(RdmaChannelOption.EXPOSE_MEMORY, true)
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            connections.add(ch);
                            pipeline.accept(ch.pipeline());
                        }
                    })
                    .bind(address).sync().channel();
            return new ExposingServer(memory, channel, connections);
        } catch (InterruptedException | RuntimeException e) {
            memory.release();
            throw e;
        }
    }

    /**
     * Connects to the server at {@code address} on {@code group}. {@code pipeline} adds the client's
     * handlers, given the future they complete when the server's hello arrived; the future fails if the
     * connection cannot be made.
     */
    public static <T> CompletableFuture<T> connect(EventLoopGroup group, SocketAddress address,
                                                   BiConsumer<ChannelPipeline, CompletableFuture<T>> pipeline) {
        CompletableFuture<T> connected = new CompletableFuture<>();
        new Bootstrap()
                .group(group)
                .channel(RdmaSocketChannel.class)
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        pipeline.accept(ch.pipeline(), connected);
                    }
                })
                .connect(address)
                .addListener(f -> {
                    if (!f.isSuccess()) {
                        connected.completeExceptionally(f.cause());
                    }
                });
        return connected;
    }

    /** Returns the address the server listens on. */
    public SocketAddress localAddress() {
        return channel.localAddress();
    }

    /**
     * Waits until the server closes, printing what {@code report} says whenever it changed, looked at
     * every few seconds: for a program that serves until it is killed.
     */
    public void printUntilClosed(Supplier<String> report) throws InterruptedException {
        String reported = report.get();
        while (!channel.closeFuture().await(REPORT_SECONDS, TimeUnit.SECONDS)) {
            String now = report.get();
            if (!now.equals(reported)) {
                System.out.println(now);
                reported = now;
            }
        }
    }

    /** Stops listening, closes every connection, which revokes its exposure, and releases the memory. */
    public void close() throws InterruptedException {
        try {
            channel.close().sync();
            connections.close().sync();
        } finally {
            memory.release();
        }
    }
}
