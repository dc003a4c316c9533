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

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.nettyrdma.channel.rdma.RdmaChannelOption;
import org.nettyrdma.channel.rdma.RdmaFallbackReason;
import org.nettyrdma.channel.rdma.RdmaIoHandler;
import org.nettyrdma.channel.rdma.RdmaServerSocketChannel;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.testkit.ChildJvm;
import org.nettyrdma.testkit.EchoHandler;
import org.nettyrdma.testkit.EchoProbe;

/**
 * The peer of a fault test, run in a process of its own ({@code ChildJvm}) so that the fault can be
 * a process's: killed, or its device removed under it. It says what happens to it in lines on its
 * standard output, which the test waits for:
 * <ul>
 *   <li>{@code server [HOST:]PORT [SHARE]}: an echo server bound to {@code HOST}, or else to every RDMA
 *       device, at {@code PORT} (0: any), whose connections from one address may hold {@code SHARE} bytes
 *       of registered memory
 *       ({@code MAX_REGISTERED_MEMORY_PER_ADDRESS}; its default without);
 *       prints {@code listening <port>}, and {@code child-failed: <message>} and {@code child-inactive}
 *       for its connections; runs until killed;</li>
 *   <li>{@code stream HOST PORT [again]}: a client that writes 64 KiB buffers as fast as the connection
 *       takes them and drops what comes back; prints {@code connected}, {@code failed: <message>} and
 *       {@code inactive}, then ends, or with {@code again} connects once more as {@code echo} does;</li>
 *   <li>{@code echo HOST PORT}: a client that sends one message and waits for it back; prints
 *       {@code carried by RDMA} or {@code carried by TCP: <reason>} once connected, then {@code echoed}
 *       (exit 0) or {@code failed: <message>} (exit 1).</li>
 * </ul>
 */
public final class PeerProcess {

    private PeerProcess() {
    }

    public static void main(String[] args) throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory());
        try {
            switch (args[0]) {
                case "server":
                    server(group, bindAddress(args[1]), args.length > 2 ? Long.parseLong(args[2]) : 0);
                    break;
                case "stream":
                    InetSocketAddress server = new InetSocketAddress(args[1], Integer.parseInt(args[2]));
                    stream(group, server);
                    if (args.length > 3 && "again".equals(args[3])) {
                        System.exit(echo(group, server) ? 0 : 1);
                    }
                    break;
                case "echo":
                    System.exit(echo(group, new InetSocketAddress(args[1], Integer.parseInt(args[2]))) ? 0 : 1);
                    break;
                default:
                    throw new IllegalArgumentException("mode: " + args[0] + " (expected: server, stream, echo)");
            }
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    /** Returns the address {@code [HOST:]PORT} names: without a host, the wildcard address. */
    private static InetSocketAddress bindAddress(String address) {
        int colon = address.lastIndexOf(':');
        int port = Integer.parseInt(address.substring(colon + 1));
        return colon < 0 ? new InetSocketAddress(port) : new InetSocketAddress(address.substring(0, colon), port);
    }

    private static void server(EventLoopGroup group, InetSocketAddress address, long share)
            throws InterruptedException {
        ServerBootstrap bootstrap = new ServerBootstrap();
        if (share > 0) {
            bootstrap.option(RdmaChannelOption.MAX_REGISTERED_MEMORY_PER_ADDRESS, share);
        }
        Channel server = bootstrap.group(group).channel(RdmaServerSocketChannel.class)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(EchoHandler.INSTANCE, new Reporter("child-"));
                    }
                }).bind(address).sync().channel();
        say("listening " + ((InetSocketAddress) server.localAddress()).getPort());
        server.closeFuture().sync();
    }

    private static void stream(EventLoopGroup group, InetSocketAddress server) throws InterruptedException {
        Channel channel = new Bootstrap().group(group).channel(RdmaSocketChannel.class)
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new FloodHandler(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE),
                                new Reporter(""));
                    }
                }).connect(server).sync().channel();
        channel.closeFuture().sync();
    }

    private static boolean echo(EventLoopGroup group, InetSocketAddress server) throws InterruptedException {
        EchoProbe probe = new EchoProbe(7, 100, 100_000);
        try {
            RdmaSocketChannel channel = (RdmaSocketChannel) new Bootstrap().group(group)
                    .channel(RdmaSocketChannel.class).handler(probe).connect(server).sync().channel();
            RdmaFallbackReason reason = channel.fallbackReason();
            say("carried by " + (reason == null ? "RDMA" : "TCP: " + reason));
            probe.writeAll(channel);
            probe.assertEchoed(60);
            channel.close().sync();
            say("echoed");
            return true;
        } catch (Exception | AssertionError e) {
            say("failed: " + e);
            return false;
        }
    }

    /** Says what happens to a channel: {@code <prefix>failed: <message>}, then {@code <prefix>inactive}. */
    private static final class Reporter extends ChannelInboundHandlerAdapter {
        private final String prefix;

        Reporter(String prefix) {
            this.prefix = prefix;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            say(prefix + "connected");
            ctx.fireChannelActive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            say(prefix + "failed: " + (cause.getMessage() != null ? cause.getMessage() : cause.toString()));
            ctx.close();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            say(prefix + "inactive");
            ctx.fireChannelInactive();
        }
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
