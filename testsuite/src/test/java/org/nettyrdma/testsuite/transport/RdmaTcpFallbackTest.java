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
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.handler.codec.FixedLengthFrameDecoder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaChannelOption;
import org.nettyrdma.channel.rdma.RdmaFallbackCounts;
import org.nettyrdma.channel.rdma.RdmaFallbackReason;
import org.nettyrdma.channel.rdma.RdmaIoHandler;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.testkit.Await;
import org.nettyrdma.testkit.DeviceUnderTest;
import org.nettyrdma.testkit.EchoHandler;
import org.nettyrdma.testkit.EchoProbe;
import org.nettyrdma.testkit.RdmaTestEnvironment;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * A client of this transport on a host with an RDMA device reaches a peer over TCP where RDMA CM says
 * RDMA is not there: the loopback address, which no RDMA device serves, a port where only a plain epoll
 * server listens, a server short of registered memory; and a silent RDMA path gives up at half the
 * connect timeout. A server of this transport serves an RDMA client and a TCP client at once. Without
 * {@code TCP_FALLBACK} the connect fails, saying what RDMA was missing. The fixture asserts that the
 * RDMA attempts leave no queue pair, CM id or memory region behind.
 */
class RdmaTcpFallbackTest {

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final byte[] HELLO = "hello".getBytes(StandardCharsets.US_ASCII);

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    @Test
    void aClientToTheLoopbackAddressFallsBackToTcp() throws Exception {
        List<RdmaSocketChannel> children = new CopyOnWriteArrayList<>();
        Channel server = rdma.server().childHandler(EchoHandler.keeping(children)).bind(0).sync().channel();
        InetSocketAddress target = new InetSocketAddress(LOOPBACK, port(server));
        RdmaFallbackCounts before = RdmaIoHandler.fallbacks(rdma.group());

        EchoProbe probe = new EchoProbe(37, 64, 100_000);
        long started = System.nanoTime();
        RdmaSocketChannel client = (RdmaSocketChannel) rdma.client().handler(probe).connect(target).sync()
                .channel();
        System.out.printf("connected to %s over TCP after %.2f ms (%s)%n", target,
                (System.nanoTime() - started) / 1e6, client.fallbackReason());
        assertEquals(RdmaFallbackReason.NO_ROUTE, client.fallbackReason(),
                "no RDMA device serves the loopback address");
        assertEquals(target, client.remoteAddress());
        probe.writeAll(client);
        probe.assertEchoed(60);
        Await.until(() -> children.size() == 1, 30, () -> children.size() + " children");
        assertEquals(RdmaFallbackReason.PEER_USED_TCP, children.get(0).fallbackReason(),
                "the server's child is carried by TCP");
        assertEquals(RdmaFallbackReason.NO_ROUTE, client.metrics().fallbackReason());
        assertCounted(before, RdmaFallbackReason.NO_ROUTE, RdmaFallbackReason.PEER_USED_TCP);

        client.close().sync();
        server.close().sync();
    }

    @Test
    void aClientReachesAPlainEpollServerOnTheDevicesAddress() throws Exception {
        DeviceUnderTest.assumeTcpServersSurviveRdmaConnects(); // the echo server answers the MPA request
        Channel server = new ServerBootstrap().group(rdma.group()).channel(EpollServerSocketChannel.class)
                .childHandler(EchoHandler.INSTANCE).bind(RdmaTestEnvironment.anyPort()).sync().channel();
        InetSocketAddress target = (InetSocketAddress) server.localAddress();

        EchoProbe probe = new EchoProbe(38, 64, 100_000);
        long started = System.nanoTime();
        RdmaSocketChannel client = (RdmaSocketChannel) rdma.client().handler(probe).connect(target).sync()
                .channel();
        System.out.printf("connected to the epoll server at %s over TCP after %.2f ms (%s)%n", target,
                (System.nanoTime() - started) / 1e6, client.fallbackReason());
        assertEquals(RdmaFallbackReason.NO_RDMA_LISTENER, client.fallbackReason(),
                "RDMA CM finds no listener at a port only TCP listens on");
        probe.writeAll(client);
        probe.assertEchoed(60);

        client.close().sync();
        server.close().sync();
    }

    /**
     * A TCP server of a protocol of its own, which closes a connection whose first bytes it does not
     * know without answering. On iWARP the client's RDMA CM connect reaches it as a TCP connection
     * that starts with an MPA request, which it closes: that says as well that no RDMA listener is
     * there. (An answer would not do on siw, whose kernel oopses on it: docs/devices.md.)
     */
    @Test
    void aClientReachesAnEpollServerThatClosesOnBytesItDoesNotKnow() throws Exception {
        AtomicInteger accepted = new AtomicInteger();
        Channel server = new ServerBootstrap().group(rdma.group()).channel(EpollServerSocketChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel child) {
                        accepted.incrementAndGet();
                        child.pipeline().addLast(new FixedLengthFrameDecoder(HELLO.length), new HelloGate());
                    }
                }).bind(RdmaTestEnvironment.anyPort()).sync().channel();
        InetSocketAddress target = (InetSocketAddress) server.localAddress();

        CompletableFuture<String> answer = new CompletableFuture<>();
        RdmaSocketChannel client = (RdmaSocketChannel) rdma.client().handler(new HelloClient(answer))
                .connect(target).sync().channel();
        assertEquals(RdmaFallbackReason.NO_RDMA_LISTENER, client.fallbackReason(),
                "a TCP server that closed on the RDMA attempt, or none of it reached, is no RDMA listener");
        assertEquals(new String(HELLO, StandardCharsets.US_ASCII), answer.get(30, TimeUnit.SECONDS));
        System.out.printf("the epoll server accepted %d connection(s) (%s)%n", accepted.get(),
                DeviceUnderTest.capabilities().transport());
        if (DeviceUnderTest.isIwarp()) {
            assertEquals(2, accepted.get(), "the RDMA attempt's TCP connection, closed, then the carrier's");
        }

        client.close().sync();
        server.close().sync();
    }

    @Test
    void anRdmaClientAndATcpClientOnOneServerAtOnce() throws Exception {
        List<RdmaSocketChannel> children = new CopyOnWriteArrayList<>();
        Channel server = rdma.bind(rdma.server().childHandler(EchoHandler.keeping(children)));
        RdmaFallbackCounts before = RdmaIoHandler.fallbacks(rdma.group());

        EchoProbe overRdma = new EchoProbe(39, 64, 200_000, 7);
        EchoProbe overTcp = new EchoProbe(40, 64, 200_000, 7);
        RdmaSocketChannel rdmaClient = (RdmaSocketChannel) rdma.client().handler(overRdma)
                .connect(server.localAddress()).sync().channel();
        Channel tcpClient = new Bootstrap().group(rdma.group()).channel(EpollSocketChannel.class).handler(overTcp)
                .connect(server.localAddress()).sync().channel();
        assertNull(rdmaClient.fallbackReason(), "RDMA carries the client of this transport");
        Thread tcpWriter = new Thread(() -> {
            try {
                overTcp.writeAll(tcpClient);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "tcp-writer");
        tcpWriter.start();
        overRdma.writeAll(rdmaClient);
        tcpWriter.join();
        overRdma.assertEchoed(60);
        overTcp.assertEchoed(60);

        Await.until(() -> children.size() == 2, 30, () -> children.size() + " children");
        long overTcpChildren = children.stream()
                .filter(child -> child.fallbackReason() == RdmaFallbackReason.PEER_USED_TCP).count();
        long overRdmaChildren = children.stream().filter(child -> child.fallbackReason() == null).count();
        assertEquals(1, overTcpChildren, "one child carried by TCP");
        assertEquals(1, overRdmaChildren, "one child carried by RDMA");
        assertCounted(before, RdmaFallbackReason.PEER_USED_TCP);

        rdmaClient.close().sync();
        tcpClient.close().sync();
        server.close().sync();
    }

    @Test
    void aServerShortOfRegisteredMemoryIsReachedOverTcp() throws Exception {
        List<RdmaSocketChannel> children = new CopyOnWriteArrayList<>();
        Channel server = rdma.bind(rdma.server().option(RdmaChannelOption.MAX_REGISTERED_MEMORY_PER_ADDRESS, 1L)
                .childHandler(EchoHandler.keeping(children)));

        EchoProbe probe = new EchoProbe(41, 64, 100_000);
        RdmaSocketChannel client = (RdmaSocketChannel) rdma.client().handler(probe).connect(server.localAddress())
                .sync().channel();
        assertEquals(RdmaFallbackReason.PEER_DECLINED, client.fallbackReason(),
                "the server declined RDMA for its registered memory bound");
        probe.writeAll(client);
        probe.assertEchoed(60);
        // The child made for the declined RDMA request went up the pipeline too, and closed.
        Await.until(() -> children.stream().filter(RdmaSocketChannel::isActive).count() == 1, 30,
                () -> children + " children");
        assertEquals(RdmaFallbackReason.PEER_USED_TCP, children.stream().filter(RdmaSocketChannel::isActive)
                .findFirst().orElseThrow().fallbackReason(), "the server's child is carried by TCP");

        client.close().sync();
        server.close().sync();
    }

    /**
     * A connect request nobody answers: the VM's device sits on a dummy netdev in 10.77.0.0/24, which
     * drops whatever is sent to 10.77.0.2, RDMA CM's requests and TCP's SYNs alike. RDMA CM would retry
     * for about 103 s; the RDMA attempt gives up at half the connect timeout, and TCP times out in the rest.
     */
    @Test
    void aSilentRdmaPathGivesUpAtHalfTheConnectTimeout() throws Exception {
        InetAddress device = RdmaTestEnvironment.address();
        assumeTrue("10.77.0.1".equals(device.getHostAddress()), "the VM's dummy subnet, where 10.77.0.2 is silent");
        InetSocketAddress silent = new InetSocketAddress(InetAddress.getByName("10.77.0.2"), 7000);
        int timeout = 2000;

        long started = System.nanoTime();
        ChannelFuture connect = rdma.client().option(ChannelOption.CONNECT_TIMEOUT_MILLIS, timeout)
                .handler(new ChannelInboundHandlerAdapter()).connect(silent);
        assertTrue(connect.await(30, TimeUnit.SECONDS), "the connect ended");
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        System.out.println("to the silent " + silent + " with a connect timeout of " + timeout + " ms: failed after "
                + millis + " ms: " + connect.cause());
        assertFalse(connect.isSuccess(), "nobody answers there");
        assertInstanceOf(ConnectTimeoutException.class, connect.cause(), "TCP timed out in the rest of the timeout");
        String message = connect.cause().getMessage();
        assertTrue(message.contains("RDMA: " + RdmaFallbackReason.RDMA_UNREACHABLE.description())
                && message.contains("TCP: "), message);
        assertTrue(millis >= timeout - 100 && millis < timeout + 2000, "failed after " + millis + " ms");
    }

    @Test
    void withoutFallbackALoopbackConnectFailsSayingWhatWasMissing() throws Exception {
        Channel server = rdma.server().childHandler(EchoHandler.INSTANCE).bind(0).sync().channel();
        InetSocketAddress target = new InetSocketAddress(LOOPBACK, port(server));

        ChannelFuture connect = rdma.client().option(RdmaChannelOption.TCP_FALLBACK, false)
                .handler(new ChannelInboundHandlerAdapter()).connect(target);
        assertTrue(connect.await(30, TimeUnit.SECONDS), "the connect ended");
        assertFalse(connect.isSuccess(), "a strictly RDMA connect to the loopback address");
        assertInstanceOf(ConnectException.class, connect.cause());
        String message = connect.cause().getMessage();
        System.out.println("TCP_FALLBACK off, to " + target + ": " + message);
        assertTrue(message.contains("no RDMA device serves " + LOOPBACK.getHostAddress())
                && message.contains("TCP_FALLBACK is off"), message);
        // As on Netty's transports, the promise fails before the channel's close completes on its loop.
        assertTrue(connect.channel().closeFuture().await(10, TimeUnit.SECONDS), "the failed connect closed the channel");

        server.close().sync();
    }

    private static int port(Channel server) {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    /**
     * Asserts that the group's loops counted one fallback for each of {@code reasons} since
     * {@code before}, and no other: each loop counts on its own thread, so the count is awaited.
     */
    private void assertCounted(RdmaFallbackCounts before, RdmaFallbackReason... reasons) throws InterruptedException {
        Await.until(() -> RdmaIoHandler.fallbacks(rdma.group()).total() - before.total() >= reasons.length, 30,
                () -> RdmaIoHandler.fallbacks(rdma.group()) + " after " + before);
        RdmaFallbackCounts after = RdmaIoHandler.fallbacks(rdma.group());
        for (RdmaFallbackReason reason : reasons) {
            assertEquals(1, after.count(reason) - before.count(reason), after + " after " + before);
        }
        assertEquals(reasons.length, after.total() - before.total(), after + " after " + before);
    }

    /** Answers a first frame of {@link #HELLO} with itself, and closes on any other without a word. */
    private static final class HelloGate extends SimpleChannelInboundHandler<ByteBuf> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            if (ByteBufUtil.equals(frame, Unpooled.wrappedBuffer(HELLO))) {
                ctx.writeAndFlush(frame.retain());
            } else {
                ctx.close();
            }
        }
    }

    /** Says {@link #HELLO} once active and completes {@code answer} with the first bytes it reads back. */
    private static final class HelloClient extends ChannelInboundHandlerAdapter {
        private final CompletableFuture<String> answer;

        HelloClient(CompletableFuture<String> answer) {
            this.answer = answer;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            ctx.writeAndFlush(Unpooled.wrappedBuffer(HELLO));
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf bytes = (ByteBuf) msg;
            answer.complete(bytes.toString(StandardCharsets.US_ASCII));
            bytes.release();
        }
    }
}
