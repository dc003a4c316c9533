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
package org.nettyrdma.channel.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import static java.nio.charset.StandardCharsets.US_ASCII;

import java.net.ConnectException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.EnumSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.epoll.EpollSocketChannelConfig;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.unix.Socket;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.nettyrdma.testkit.EchoHandler;

/**
 * The TCP carrier on a machine without RDMA, as every developer's laptop and CI runner is: the
 * channels of this transport connect, accept and move bytes over TCP, with each other and with
 * Netty's epoll transport, with TCP_FALLBACK's default; and fail, saying what RDMA missed, without it.
 */
@Timeout(60)
class TcpFallbackTest {

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static EventLoopGroup group;
    /** The last channel a server of a test accepted. */
    private static volatile Channel lastAccepted;

    @BeforeAll
    static void loops() {
        assumeFalse(Rdma.isAvailable(), "these tests are about a process without RDMA; the device tests "
                + "cover RDMA");
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        // The loop runs without RDMA: its factory no longer requires it.
        group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory());
    }

    @AfterAll
    static void stop() {
        if (group != null) {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void aClientAndAServerOfTheTransportEchoOneMebibyteOverTcp() throws Exception {
        Channel server = rdmaServer(EchoHandler.INSTANCE);
        RdmaFallbackCounts before = RdmaIoHandler.fallbacks(group);
        try {
            byte[] sent = randomBytes(1024 * 1024);
            Collector collector = new Collector(sent.length);
            RdmaSocketChannel client = (RdmaSocketChannel) rdmaClient(server, collector).sync().channel();
            assertEquals(RdmaFallbackReason.NO_LOCAL_DEVICE, client.fallbackReason());
            assertEquals(server.localAddress(), client.remoteAddress());
            client.writeAndFlush(Unpooled.wrappedBuffer(sent)).sync();
            assertArrayEquals(sent, collector.all.get(30, TimeUnit.SECONDS));
            RdmaSocketChannel child = (RdmaSocketChannel) lastAccepted;
            assertEquals(RdmaFallbackReason.PEER_USED_TCP, child.fallbackReason());
            assertEquals(client.localAddress(), child.remoteAddress());
            assertEquals(RdmaFallbackReason.NO_LOCAL_DEVICE, client.metrics().fallbackReason());
            assertEquals(RdmaFallbackReason.PEER_USED_TCP, child.metrics().fallbackReason());
            assertEquals(0, client.metrics().sendBytes() + client.metrics().registeredBytes());
            RdmaFallbackCounts counted = awaitFallbacks(before, RdmaFallbackReason.PEER_USED_TCP, 1);
            assertEquals(1, counted.count(RdmaFallbackReason.NO_LOCAL_DEVICE)
                    - before.count(RdmaFallbackReason.NO_LOCAL_DEVICE), counted.toString());
            assertEquals(before.total() + 2, counted.total(), counted.toString());
            assertTrue(client.eventLoop().submit(() -> client.loopMetrics().fallbacks())
                    .get(10, TimeUnit.SECONDS).count(RdmaFallbackReason.NO_LOCAL_DEVICE) >= 1);
            client.close().sync();
            assertTrue(child.closeFuture().await(10, TimeUnit.SECONDS), "the child closes at the end of its input");
        } finally {
            server.close().sync();
        }
    }

    @Test
    void whatIsWrittenWhileConnectingGoesOutOnceConnected() throws Exception {
        Channel server = rdmaServer(EchoHandler.INSTANCE);
        try {
            byte[] sent = randomBytes(4096);
            Collector collector = new Collector(sent.length);
            Channel client = new Bootstrap().group(group).channel(RdmaSocketChannel.class).handler(collector)
                    .register().sync().channel();
            ChannelFuture connect = client.connect(server.localAddress());
            ChannelFuture write = client.writeAndFlush(Unpooled.wrappedBuffer(sent));
            connect.sync();
            write.sync();
            assertArrayEquals(sent, collector.all.get(10, TimeUnit.SECONDS));
            client.close().sync();
        } finally {
            server.close().sync();
        }
    }

    @Test
    void bothEndsShutTheirOutputDownInTurn() throws Exception {
        BlockingQueue<Object> serverSaw = new LinkedBlockingQueue<>();
        Channel server = rdmaServer(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                serverSaw.add(((ByteBuf) msg).toString(US_ASCII));
                ReferenceCountUtil.release(msg);
            }

            @Override
            public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                if (evt == ChannelInputShutdownEvent.INSTANCE) {
                    serverSaw.add(evt);
                    // The server answers after the client's end of output, then ends its own.
                    ctx.writeAndFlush(Unpooled.copiedBuffer("bye", US_ASCII))
                            .addListener(f -> ((DuplexChannel) ctx.channel()).shutdownOutput());
                }
            }
        }, true, true);
        try {
            BlockingQueue<Object> clientSaw = new LinkedBlockingQueue<>();
            DuplexChannel client = (DuplexChannel) new Bootstrap().group(group).channel(RdmaSocketChannel.class)
                    .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
                    .handler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            clientSaw.add(((ByteBuf) msg).toString(US_ASCII));
                            ReferenceCountUtil.release(msg);
                        }

                        @Override
                        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                            if (evt == ChannelInputShutdownEvent.INSTANCE) {
                                clientSaw.add(evt);
                            }
                        }
                    }).connect(server.localAddress()).sync().channel();
            client.writeAndFlush(Unpooled.copiedBuffer("hello", US_ASCII));
            client.shutdownOutput().sync();
            assertTrue(client.isOutputShutdown());
            assertEquals("hello", serverSaw.poll(10, TimeUnit.SECONDS));
            assertEquals(ChannelInputShutdownEvent.INSTANCE, serverSaw.poll(10, TimeUnit.SECONDS));
            assertEquals("bye", clientSaw.poll(10, TimeUnit.SECONDS));
            assertEquals(ChannelInputShutdownEvent.INSTANCE, clientSaw.poll(10, TimeUnit.SECONDS));
            assertTrue(client.isInputShutdown());
            assertTrue(client.isOpen(), "half-closed both ways, the channel stays open until closed");
            client.close().sync();
        } finally {
            server.close().sync();
        }
    }

    @Test
    void withAutoReadOffNothingIsReadUntilRead() throws Exception {
        Channel server = rdmaServer(EchoHandler.INSTANCE);
        try {
            BlockingQueue<ByteBuf> received = new LinkedBlockingQueue<>();
            Channel client = new Bootstrap().group(group).channel(RdmaSocketChannel.class)
                    .option(ChannelOption.AUTO_READ, false)
                    .handler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            received.add((ByteBuf) msg);
                        }
                    }).connect(server.localAddress()).sync().channel();
            client.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {1, 2, 3})).sync();
            assertNull(received.poll(300, TimeUnit.MILLISECONDS), "read with AUTO_READ off and no read()");
            client.read();
            ByteBuf echoed = received.poll(10, TimeUnit.SECONDS);
            try {
                assertEquals(3, echoed.readableBytes());
            } finally {
                echoed.release();
            }
            client.close().sync();
        } finally {
            server.close().sync();
        }
    }

    @Test
    void aChannelTurnsUnwritableAboveItsHighMarkAndWritableAgain() throws Exception {
        // A server that does not read: the kernel's buffers fill, then the channel's own.
        Channel server = rdmaServer(new ChannelInboundHandlerAdapter(), false, false);
        try {
            BlockingQueue<Boolean> writability = new LinkedBlockingQueue<>();
            Channel client = new Bootstrap().group(group).channel(RdmaSocketChannel.class)
                    .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(32 * 1024, 64 * 1024))
                    .handler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                            writability.add(ctx.channel().isWritable());
                        }
                    }).connect(server.localAddress()).sync().channel();
            byte[] chunk = new byte[16 * 1024];
            CompletableFuture<Void> unwritable = new CompletableFuture<>();
            client.eventLoop().execute(() -> {
                for (int i = 0; i < 4096 && client.isWritable(); i++) {
                    client.writeAndFlush(Unpooled.wrappedBuffer(chunk));
                }
                unwritable.complete(null);
            });
            unwritable.get(10, TimeUnit.SECONDS);
            assertEquals(Boolean.FALSE, writability.poll(10, TimeUnit.SECONDS));
            assertTrue(client.unsafe().outboundBuffer().totalPendingWriteBytes() > 64 * 1024);
            Channel child = lastAccepted;
            child.config().setAutoRead(true);
            assertEquals(Boolean.TRUE, writability.poll(10, TimeUnit.SECONDS));
            client.close().sync();
        } finally {
            server.close().sync();
        }
    }

    @Test
    void socketOptionsSetOnATcpCarriedChannelReachItsSocketAtOnce() throws Exception {
        Channel server = rdmaServer(EchoHandler.INSTANCE);
        try {
            RdmaSocketChannel client = (RdmaSocketChannel) new Bootstrap().group(group)
                    .channel(RdmaSocketChannel.class).option(ChannelOption.SO_KEEPALIVE, true)
                    .handler(new ChannelInboundHandlerAdapter()).connect(server.localAddress()).sync().channel();
            EpollSocketChannelConfig socket = client.carrier.carrier().config();
            assertTrue(socket.isKeepAlive(), "set before the connect");
            assertTrue(socket.isTcpNoDelay(), "on by default, as on Netty's epoll transport");

            client.config().setTcpNoDelay(false);
            client.config().setOption(ChannelOption.SO_LINGER, 3);
            client.config().setKeepAlive(false);
            client.config().setTrafficClass(0x10);
            assertFalse(socket.isTcpNoDelay());
            assertFalse(client.config().isTcpNoDelay(), "reads back as its socket has it");
            assertEquals(3, socket.getSoLinger());
            assertFalse(socket.isKeepAlive());
            assertEquals(0x10, socket.getTrafficClass());
            client.close().sync();
        } finally {
            server.close().sync();
        }
    }

    @Test
    void aClientOfTheTransportTalksToAnEpollServer() throws Exception {
        Channel server = new ServerBootstrap().group(group).channel(EpollServerSocketChannel.class)
                .childHandler(recordingAccepted(EchoHandler.INSTANCE)).bind(LOOPBACK, 0).sync().channel();
        try {
            byte[] sent = randomBytes(100_000);
            Collector collector = new Collector(sent.length);
            RdmaSocketChannel client = (RdmaSocketChannel) rdmaClient(server, collector).sync().channel();
            client.writeAndFlush(Unpooled.wrappedBuffer(sent)).sync();
            assertArrayEquals(sent, collector.all.get(10, TimeUnit.SECONDS));
            assertInstanceOf(EpollSocketChannel.class, lastAccepted);
            client.close().sync();
        } finally {
            server.close().sync();
        }
    }

    @Test
    void anEpollClientTalksToAServerOfTheTransport() throws Exception {
        Channel server = rdmaServer(EchoHandler.INSTANCE);
        try {
            byte[] sent = randomBytes(100_000);
            Collector collector = new Collector(sent.length);
            Channel client = new Bootstrap().group(group).channel(EpollSocketChannel.class).handler(collector)
                    .connect(server.localAddress()).sync().channel();
            client.writeAndFlush(Unpooled.wrappedBuffer(sent)).sync();
            assertArrayEquals(sent, collector.all.get(10, TimeUnit.SECONDS));
            assertInstanceOf(RdmaSocketChannel.class, lastAccepted);
            client.close().sync();
        } finally {
            server.close().sync();
        }
    }

    @Test
    void aServerBoundToThePortAloneServesIpv4AndIpv6ClientsAsEpollDoes() throws Exception {
        assumeTrue(Socket.isIPv6Preferred(), "Netty's epoll makes IPv4 sockets only here");
        Channel server = new ServerBootstrap().group(group).channel(RdmaServerSocketChannel.class)
                .childHandler(recordingAccepted(EchoHandler.INSTANCE)).bind(0).sync().channel();
        try {
            InetSocketAddress bound = (InetSocketAddress) server.localAddress();
            assertInstanceOf(Inet6Address.class, bound.getAddress(), "the IPv6 wildcard, as epoll's: " + bound);
            assertTrue(bound.getAddress().isAnyLocalAddress(), bound.toString());
            for (InetAddress host : new InetAddress[] {LOOPBACK, InetAddress.getByName("::1")}) {
                byte[] sent = randomBytes(10_000);
                Collector collector = new Collector(sent.length);
                RdmaSocketChannel client = (RdmaSocketChannel) new Bootstrap().group(group)
                        .channel(RdmaSocketChannel.class).handler(collector)
                        .connect(new InetSocketAddress(host, bound.getPort())).sync().channel();
                client.writeAndFlush(Unpooled.wrappedBuffer(sent)).sync();
                assertArrayEquals(sent, collector.all.get(10, TimeUnit.SECONDS));
                // An IPv4 client of the dual-stack socket reads as IPv4, not as ::ffff:127.0.0.1.
                assertEquals(client.localAddress(), lastAccepted.remoteAddress(), "the child's peer");
                InetAddress peer = ((InetSocketAddress) lastAccepted.remoteAddress()).getAddress();
                assertEquals(host.getClass(), peer.getClass(), peer.toString());
                client.close().sync();
            }
        } finally {
            server.close().sync();
        }
    }

    @Test
    void withoutFallbackAConnectFailsSayingRdmaIsUnavailable() throws Exception {
        Channel server = rdmaServer(EchoHandler.INSTANCE);
        try {
            ChannelFuture connect = new Bootstrap().group(group).channel(RdmaSocketChannel.class)
                    .option(RdmaChannelOption.TCP_FALLBACK, false).handler(new ChannelInboundHandlerAdapter())
                    .connect(server.localAddress()).await();
            ConnectException e = assertInstanceOf(ConnectException.class, connect.cause());
            assertTrue(e.getMessage().contains("RDMA is unavailable in this process")
                    && e.getMessage().contains("TCP_FALLBACK is off")
                    && e.getMessage().contains(Rdma.unavailabilityCause().getMessage()), e.getMessage());
            assertTrue(connect.channel().closeFuture().await(10, TimeUnit.SECONDS));
        } finally {
            server.close().sync();
        }
    }

    @Test
    void withoutFallbackAServerFailsToBindSayingRdmaIsUnavailable() throws Exception {
        ChannelFuture bind = new ServerBootstrap().group(group).channel(RdmaServerSocketChannel.class)
                .option(RdmaChannelOption.TCP_FALLBACK, false).childHandler(EchoHandler.INSTANCE)
                .bind(LOOPBACK, 0).await();
        assertFalse(bind.isSuccess());
        assertTrue(bind.cause().getMessage().contains(Rdma.unavailabilityCause().getMessage()),
                bind.cause().getMessage());
    }

    @Test
    void aConnectToAClosedPortFailsNamingBothAttempts() throws Exception {
        int port;
        try (ServerSocket closed = new ServerSocket(0, 1, LOOPBACK)) {
            port = closed.getLocalPort();
        }
        ChannelFuture connect = new Bootstrap().group(group).channel(RdmaSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter()).connect(new InetSocketAddress(LOOPBACK, port)).await();
        ConnectException e = assertInstanceOf(ConnectException.class, connect.cause());
        assertTrue(e.getMessage().contains("RDMA: " + RdmaFallbackReason.NO_LOCAL_DEVICE.description())
                && e.getMessage().contains("TCP: ") && e.getMessage().contains(String.valueOf(port)), e.getMessage());
        assertTrue(connect.channel().closeFuture().await(10, TimeUnit.SECONDS));
    }

    @Test
    void oneSidedOperationsFailOnATcpCarriedChannel() throws Exception {
        Channel server = rdmaServer(EchoHandler.INSTANCE);
        try {
            RdmaSocketChannel client = (RdmaSocketChannel) rdmaClient(server, new Collector(0)).sync().channel();
            Future<ByteBuf> read = client.oneSided().read(
                    new RemoteRegion(0x1000, 8, 1, EnumSet.of(RemoteAccess.READ)), 0, 8);
            read.await(10, TimeUnit.SECONDS);
            Throwable cause = read.cause();
            assertInstanceOf(UnsupportedOperationException.class, cause);
            assertTrue(cause.getMessage().contains("carried by TCP")
                    && cause.getMessage().contains(RdmaFallbackReason.NO_LOCAL_DEVICE.name()), cause.getMessage());
            client.close().sync();
        } finally {
            server.close().sync();
        }
    }

    /**
     * Waits until {@code group}'s loops counted {@code delta} more fallbacks for {@code reason} than
     * {@code before}: a loop counts on its own thread, and the test reads on another.
     */
    private static RdmaFallbackCounts awaitFallbacks(RdmaFallbackCounts before, RdmaFallbackReason reason, int delta)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        RdmaFallbackCounts now = RdmaIoHandler.fallbacks(group);
        while (now.count(reason) - before.count(reason) < delta && System.nanoTime() < deadline) {
            Thread.sleep(10);
            now = RdmaIoHandler.fallbacks(group);
        }
        assertEquals(delta, now.count(reason) - before.count(reason), now.toString());
        return now;
    }

    private static Channel rdmaServer(ChannelHandler child) throws InterruptedException {
        return rdmaServer(child, true, false);
    }

    private static Channel rdmaServer(ChannelHandler child, boolean childAutoRead, boolean childHalfClosure)
            throws InterruptedException {
        return new ServerBootstrap().group(group).channel(RdmaServerSocketChannel.class)
                .childOption(ChannelOption.AUTO_READ, childAutoRead)
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, childHalfClosure)
                .childHandler(recordingAccepted(child)).bind(LOOPBACK, 0).sync().channel();
    }

    private static ChannelHandler recordingAccepted(ChannelHandler child) {
        return new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                lastAccepted = ch;
                ch.pipeline().addLast(child);
            }
        };
    }

    private static ChannelFuture rdmaClient(Channel server, ChannelHandler handler) {
        return new Bootstrap().group(group).channel(RdmaSocketChannel.class).handler(handler)
                .connect(server.localAddress());
    }

    private static byte[] randomBytes(int length) {
        byte[] bytes = new byte[length];
        ThreadLocalRandom.current().nextBytes(bytes);
        return bytes;
    }

    /** Gathers what it reads until it has {@code expected} bytes. */
    private static final class Collector extends ChannelInboundHandlerAdapter {
        final CompletableFuture<byte[]> all = new CompletableFuture<>();
        private final ByteBuf gathered = Unpooled.buffer();
        private final int expected;

        Collector(int expected) {
            this.expected = expected;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf buf = (ByteBuf) msg;
            gathered.writeBytes(buf);
            buf.release();
            if (gathered.readableBytes() >= expected) {
                byte[] bytes = new byte[gathered.readableBytes()];
                gathered.readBytes(bytes);
                gathered.release();
                all.complete(bytes);
            }
        }
    }
}
