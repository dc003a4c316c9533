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
package org.nettyrdma.example.echo;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import org.nettyrdma.channel.rdma.RdmaFallbackReason;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.example.ExampleOptions;
import org.nettyrdma.example.Transport;

/**
 * Writes back every byte it receives, over RDMA or TCP: a Netty echo server in which only the event
 * loop group and the channel class name the transport. Start it, then {@link EchoClient}:
 *
 * <pre>
 * java -cp ... \
 *     org.nettyrdma.example.echo.EchoServer --transport rdma --host 10.77.0.1
 * </pre>
 *
 * Over RDMA, {@code --host} must be the address of an RDMA interface: RDMA CM finds the device by it.
 * The server takes plain TCP clients at the same address and port too ({@code RdmaChannelOption.TCP_FALLBACK});
 * it prints a line the first time a client comes over TCP for each reason.
 */
public final class EchoServer {

    /** The port the echo examples use unless told otherwise. */
    public static final int DEFAULT_PORT = 8007;

    private static final String USAGE =
            "usage: EchoServer [--transport rdma|rdma-busypoll|nio|epoll] [--host ADDRESS] "
                    + "[--port " + DEFAULT_PORT + "]";

    private EchoServer() {
    }

    /** Runs the server until it is killed. */
    public static void main(String[] args) throws Exception {
        ExampleOptions options = ExampleOptions.parse(USAGE, args);
        Transport transport = options.transport();
        InetSocketAddress address = options.address(DEFAULT_PORT);
        options.checkAllRead();

        EventLoopGroup group = transport.newEventLoopGroup(1);
        try {
            Channel server = start(group, transport, address);
            System.out.println("echo server over " + transport.displayName() + " on " + server.localAddress());
            server.closeFuture().sync();
        } finally {
            group.shutdownGracefully();
        }
    }

    /** Binds an echo server of {@code transport} to {@code address} and returns its channel. */
    public static Channel start(EventLoopGroup group, Transport transport, SocketAddress address)
            throws InterruptedException {
        return new ServerBootstrap()
                .group(group)
                .channel(transport.serverSocketChannelClass())
                .childHandler(new EchoServerHandler())
                .bind(address).sync().channel();
    }

    /**
     * Writes back what it reads and flushes once per batch of reads. Keeps no state of a connection, so
     * one serves all; it remembers only which reasons for TCP it has printed.
     */
    @Sharable
    private static final class EchoServerHandler extends ChannelInboundHandlerAdapter {

        private final Set<RdmaFallbackReason> printed = ConcurrentHashMap.newKeySet();

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            if (ctx.channel() instanceof RdmaSocketChannel) {
                RdmaFallbackReason reason = ((RdmaSocketChannel) ctx.channel()).fallbackReason();
                if (reason != null && printed.add(reason)) {
                    System.out.println("echo server: a client over TCP (" + reason + ": " + reason.description()
                            + ") from " + ctx.channel().remoteAddress());
                }
            }
            ctx.fireChannelActive();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.write(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            System.err.println("echo server: closing " + ctx.channel() + ": " + cause);
            ctx.close();
        }
    }
}
