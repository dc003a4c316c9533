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
package org.nettyrdma.channel.rdma.peers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaChannelMetrics;
import org.nettyrdma.channel.rdma.RdmaChannelOption;
import org.nettyrdma.channel.rdma.RdmaMemoryMetrics;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.channel.rdma.verbs.SilentPeers;
import org.nettyrdma.testkit.Await;
import org.nettyrdma.testkit.EchoHandler;
import org.nettyrdma.testkit.EchoProbe;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * What a stranger can make a server hold is bounded. Peers that connect and never send their
 * {@code HELLO} are closed at {@link RdmaChannelOption#HELLO_TIMEOUT_MILLIS} with everything they
 * held freed, and meanwhile a well-behaved client is served. {@code SO_BACKLOG} bounds the
 * connections being set up, waiting to be accepted or, with {@code AUTO_READ} on, for their
 * {@code HELLO}; a backlog full of the latter closes the oldest to make room for a new client. The
 * connections from one address hold no more registered memory than
 * {@link RdmaChannelOption#MAX_REGISTERED_MEMORY_PER_ADDRESS}, counted as the server registers it, for
 * connections that expose memory too. Requests beyond either are refused at once, with the reason.
 */
class RdmaAdmissionTest {

    /** As many silent peers as the issue this test answers names. */
    private static final int SILENT_PEERS = 200;
    /** {@code RdmaChannelOption.SLOT_SIZE}'s default. */
    private static final long DEFAULT_SLOT_SIZE = 8192;
    /** The receive slots a connection holds from its {@code HELLO} on (docs/decisions.md). */
    private static final long INITIAL_SHARE = 4;
    /**
     * Long enough for every silent peer to connect before the first is dropped, under emulation (200
     * take about 7 s there), so that the well-behaved client connects while all of them are held.
     */
    private static final int HELLO_TIMEOUT_MILLIS = 20_000;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    @Test
    void silentPeersAreDroppedAtTheirDeadlineAndAWellBehavedClientIsServed() throws Exception {
        AtomicInteger activeChildren = new AtomicInteger();
        AtomicInteger openChildren = new AtomicInteger();
        Channel server = rdma.bind(rdma.server()
                .childOption(RdmaChannelOption.HELLO_TIMEOUT_MILLIS, HELLO_TIMEOUT_MILLIS)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        openChildren.incrementAndGet();
                        ch.closeFuture().addListener(f -> openChildren.decrementAndGet());
                        ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelActive(ChannelHandlerContext ctx) {
                                activeChildren.incrementAndGet();
                                ctx.fireChannelActive();
                            }
                        }, EchoHandler.INSTANCE);
                    }
                }));
        RdmaMemoryMetrics before = RdmaMemoryMetrics.snapshot();
        long registeredBefore = before.connectionBytes();
        long started = System.nanoTime();
        try (SilentPeers silent = SilentPeers.connect((InetSocketAddress) server.localAddress(), SILENT_PEERS)) {
            long connectedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            RdmaMemoryMetrics held = RdmaMemoryMetrics.snapshot();
            long sharedGrowth = held.sharedReceiveBytes() - before.sharedReceiveBytes();
            System.out.printf("%d silent peers connected in %d ms; the server holds %d connections, %d bytes "
                    + "registered for connections of their own, the receive queues %d bytes more%n",
                    SILENT_PEERS, connectedMillis, openChildren.get(), held.connectionBytes() - registeredBefore,
                    sharedGrowth);
            assertTrue(connectedMillis < HELLO_TIMEOUT_MILLIS, "the silent peers connected within the deadline,"
                    + " so the server held them all at once");
            assertEquals(0, silent.disconnected(), "no silent peer was dropped before its deadline");
            assertEquals(registeredBefore, held.connectionBytes(), "silent peers hold no registered memory of their own");
            // A queue of its own registers one region of a first share for a silent peer, and no spare.
            long slots = SILENT_PEERS * INITIAL_SHARE;
            assertTrue(sharedGrowth <= slots * DEFAULT_SLOT_SIZE, "the receive queues grew by "
                    + sharedGrowth + " bytes for " + SILENT_PEERS + " silent peers");

            EchoProbe probe = new EchoProbe(1, 64, 70_000);
            Channel client = rdma.client().handler(RdmaTransportFixture.pipeline(probe))
                    .connect(server.localAddress()).sync().channel();
            probe.writeAll(client);
            probe.assertEchoed(60);
            client.close().sync();
            assertEquals(1, activeChildren.get(), "only the well-behaved client became active on the server");

            silent.awaitAllDisconnected(HELLO_TIMEOUT_MILLIS + 60_000, TimeUnit.MILLISECONDS);
            Await.until(() -> openChildren.get() == 0, 30, () -> "every child of the server closed");
            assertEquals(registeredBefore, RdmaMemoryMetrics.snapshot().connectionBytes(),
                    "the registered memory of the dropped peers was freed");
        }
        server.close().sync();
    }

    /**
     * Silent peers fill the backlog: a well-behaved client still gets in, in the room the oldest
     * silent peer leaves, which the server closes at once instead of at its {@code HELLO} deadline.
     */
    @Test
    void withAutoReadOnAFullBacklogClosesTheOldestSilentPeerForANewClient() throws Exception {
        int backlog = 2;
        AtomicInteger openChildren = new AtomicInteger();
        Channel server = rdma.bind(rdma.server()
                .option(ChannelOption.SO_BACKLOG, backlog)
                .childOption(RdmaChannelOption.HELLO_TIMEOUT_MILLIS, 120_000)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        openChildren.incrementAndGet();
                        ch.closeFuture().addListener(f -> openChildren.decrementAndGet());
                        ch.pipeline().addLast(EchoHandler.INSTANCE);
                    }
                }));
        try (SilentPeers silent = SilentPeers.connect((InetSocketAddress) server.localAddress(), backlog)) {
            Await.until(() -> openChildren.get() == backlog, 30, () -> openChildren.get() + " children of "
                    + backlog + " silent peers");
            EchoProbe probe = new EchoProbe(1, 64, 4096);
            Channel client = rdma.client().handler(RdmaTransportFixture.pipeline(probe))
                    .connect(server.localAddress()).sync().channel();
            probe.writeAll(client);
            probe.assertEchoed(60);
            // Long before their deadline (120 s): one closed to make room, the other still held.
            Await.until(() -> disconnected(silent) == 1, 30, () -> "silent peers the server disconnected: "
                    + disconnected(silent));
            assertEquals(backlog, openChildren.get(), "the well-behaved client's child and one silent peer's");
            client.close().sync();
        }
        server.close().sync();
    }

    @Test
    void oneAddressHoldsNoMoreRegisteredMemoryThanItsShare() throws Exception {
        List<RdmaSocketChannel> children = new CopyOnWriteArrayList<>();
        Channel server = rdma.bind(rdma.server()
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        children.add((RdmaSocketChannel) ch);
                        ch.closeFuture().addListener(f -> children.remove(ch));
                        ch.pipeline().addLast(EchoHandler.INSTANCE);
                    }
                }));
        List<Channel> clients = new ArrayList<>();
        clients.add(connectEchoing(server));
        Await.until(() -> children.size() == 1 && children.get(0).isActive(), 30, () -> "the first child is active");
        // Room for what the first holds now, a second connection's start (its first share of the
        // shared receive slots, and a ring where the device opens one: a share is at most 512 KiB, a
        // ring 1 MiB), and half of a third's: the second cannot grow past the cap, the third is refused.
        RdmaSocketChannel child = children.get(0);
        // Its staging blocks are not the address's to count: the echo left a spare one for a second or two.
        RdmaChannelMetrics held = child.metrics();
        long first = held.registeredBytes() - held.stagingBytes();
        long ring = first >= child.config().getReceiveBufferSize() ? child.config().getReceiveBufferSize() : 0;
        long connection = INITIAL_SHARE * DEFAULT_SLOT_SIZE + ring;
        long share = first + connection + connection / 2;
        server.config().setOption(RdmaChannelOption.MAX_REGISTERED_MEMORY_PER_ADDRESS, share);
        clients.add(connectEchoing(server));

        // Strictly RDMA: with TCP_FALLBACK the refused client would go on over TCP, which pins no registered memory.
        ChannelFuture refused = rdma.client().handler(new ChannelInboundHandlerAdapter())
                .option(RdmaChannelOption.TCP_FALLBACK, false)
                .connect(server.localAddress()).await();
        System.out.println("a third connection of " + connection + " bytes from one address, whose share is "
                + share + ": " + refused.cause());
        assertFalse(refused.isSuccess(), "a connection beyond the address's share was refused");
        assertInstanceOf(ConnectException.class, refused.cause());
        assertTrue(refused.cause().getMessage().contains("MAX_REGISTERED_MEMORY_PER_ADDRESS"),
                () -> "the refusal says why: " + refused.cause().getMessage());

        // A connection closed gives its share back once its child is freed.
        clients.remove(0).close().sync();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Channel again = null;
        while (again == null) {
            ChannelFuture connect = rdma.client().handler(new ChannelInboundHandlerAdapter())
                    .connect(server.localAddress()).await();
            if (connect.isSuccess()) {
                again = connect.channel();
            } else {
                assertTrue(System.nanoTime() - deadline < 0, "a connection is taken again after one closed: "
                        + connect.cause());
                Thread.sleep(200);
            }
        }
        clients.add(again);
        for (Channel client : clients) {
            client.close().sync();
        }
        server.close().sync();
    }

    /**
     * An address holds no more connections open than the server's bound, whatever they hold: the next
     * is refused at once with the reason, and a closed one's place is free again.
     */
    @Test
    void oneAddressHoldsNoMoreConnectionsThanItsBound() throws Exception {
        int bound = 3;
        List<Channel> children = new CopyOnWriteArrayList<>();
        Channel server = rdma.bind(rdma.server()
                .option(RdmaChannelOption.MAX_CONNECTIONS_PER_ADDRESS, bound)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        children.add(ch);
                        ch.closeFuture().addListener(f -> children.remove(ch));
                        ch.pipeline().addLast(EchoHandler.INSTANCE);
                    }
                }));
        List<Channel> clients = new ArrayList<>();
        for (int i = 0; i < bound; i++) {
            clients.add(connectEchoing(server));
        }
        ChannelFuture refused = rdma.client().handler(new ChannelInboundHandlerAdapter())
                .connect(server.localAddress()).await();
        System.out.println("connection " + (bound + 1) + " from one address, whose bound is " + bound + ": "
                + refused.cause());
        assertFalse(refused.isSuccess(), "a connection beyond the address's bound was refused");
        assertInstanceOf(ConnectException.class, refused.cause());
        assertTrue(refused.cause().getMessage().contains("MAX_CONNECTIONS_PER_ADDRESS"),
                () -> "the refusal says why: " + refused.cause().getMessage());
        Await.until(() -> children.size() == bound, 30, () -> children.size() + " children open, expected " + bound);

        clients.remove(0).close().sync();
        Await.until(() -> children.size() == bound - 1, 30, () -> "the closed client's child is gone");
        clients.add(connectEchoing(server));
        for (Channel client : clients) {
            client.close().sync();
        }
        server.close().sync();
    }

    /**
     * Connections that may expose memory have a receive queue each, of their own: what the address's
     * bound counts for them is what the server registers, one region of a first share (32 KiB) for a
     * silent peer and for one whose {@code HELLO} came, so silent peers pin no more than the bound
     * and an honest client beyond it is refused with the reason.
     */
    @Test
    void silentPeersOfConnectionsThatExposeMemoryPinNoMoreThanTheAddressBound() throws Exception {
        List<RdmaSocketChannel> children = new CopyOnWriteArrayList<>();
        Channel server = rdma.bind(rdma.server()
                .childOption(RdmaChannelOption.EXPOSE_MEMORY, true)
                .childOption(RdmaChannelOption.HELLO_TIMEOUT_MILLIS, 120_000)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        children.add((RdmaSocketChannel) ch);
                        ch.closeFuture().addListener(f -> children.remove(ch));
                        ch.pipeline().addLast(EchoHandler.INSTANCE);
                    }
                }));
        long before = RdmaMemoryMetrics.snapshot().sharedReceiveBytes();
        // The client is in this process too: with a queue of its own, its receive slots are known
        // exactly (its first share), where a loop's shared queue would register a chunk of 32.
        RdmaSocketChannel honest = (RdmaSocketChannel) rdma.client().handler(new ChannelInboundHandlerAdapter())
                .option(RdmaChannelOption.EXPOSE_MEMORY, true)
                .connect(server.localAddress()).sync().channel();
        Await.until(() -> children.size() == 1 && children.get(0).isActive(), 30, () -> "the honest client's child");
        RdmaChannelMetrics child = children.get(0).metrics();
        long counted = child.registeredBytes() - child.stagingBytes();
        RdmaChannelMetrics client = honest.metrics();
        long clientSlots = client.registeredBytes() - client.stagingBytes();
        long registered = RdmaMemoryMetrics.snapshot().sharedReceiveBytes() - before - clientSlots;
        System.out.printf("after the HELLO: the address counts %d bytes, the connection's own receive queue "
                + "registered %d (the client's %d), staging %d%n", counted, registered, clientSlots,
                child.stagingBytes());
        assertEquals(INITIAL_SHARE * DEFAULT_SLOT_SIZE, counted, "the first share after the HELLO");
        assertEquals(INITIAL_SHARE * DEFAULT_SLOT_SIZE, clientSlots, "the client's first share");
        assertEquals(counted, registered, "what the address counts after the HELLO is what is registered");

        // Room for the honest connection, three silent ones, and the first share a fourth is admitted
        // against: a fifth would pass the bound.
        int silentPeers = 4;
        long region = INITIAL_SHARE * DEFAULT_SLOT_SIZE;
        long bound = counted + silentPeers * region;
        server.config().setOption(RdmaChannelOption.MAX_REGISTERED_MEMORY_PER_ADDRESS, bound);
        long baseline = RdmaMemoryMetrics.snapshot().registeredBytes();
        try (SilentPeers silent = SilentPeers.connect((InetSocketAddress) server.localAddress(), silentPeers)) {
            Await.until(() -> children.size() == 1 + silentPeers, 30, () -> children.size() + " children");
            RdmaMemoryMetrics held = RdmaMemoryMetrics.snapshot();
            long pinned = held.sharedReceiveBytes() - before - clientSlots;
            System.out.printf("%d silent peers: the connections' own receive queues registered %d bytes in "
                    + "all, the address's bound %d; the process registered %d bytes more for them%n",
                    silentPeers, pinned, bound, held.registeredBytes() - baseline);
            assertEquals(counted + silentPeers * region, pinned, "one region of a first share for each silent peer");
            assertTrue(pinned <= bound, pinned + " bytes pinned, beyond the bound of " + bound);

            ChannelFuture refused = rdma.client().handler(new ChannelInboundHandlerAdapter())
                    .option(RdmaChannelOption.EXPOSE_MEMORY, true)
                    .option(RdmaChannelOption.TCP_FALLBACK, false)
                    .connect(server.localAddress()).await();
            assertFalse(refused.isSuccess(), "a connection beyond the address's bound was refused");
            assertInstanceOf(ConnectException.class, refused.cause());
            assertTrue(refused.cause().getMessage().contains("MAX_REGISTERED_MEMORY_PER_ADDRESS"),
                    () -> "the refusal says why: " + refused.cause().getMessage());
        }
        Await.until(() -> children.size() == 1, 30, () -> children.size() + " children once the silent peers left");
        honest.close().sync();
        Await.until(children::isEmpty, 30, () -> children.size() + " children left");
        Await.until(() -> RdmaMemoryMetrics.snapshot().sharedReceiveBytes() == before, 30,
                () -> "the own receive queues were freed: " + RdmaMemoryMetrics.snapshot());
        server.close().sync();
    }

    /** Connects a client to {@code server} and checks that it is echoed. */
    private Channel connectEchoing(Channel server) throws Exception {
        EchoProbe probe = new EchoProbe(1, 64, 4096);
        Channel client = rdma.client().handler(RdmaTransportFixture.pipeline(probe))
                .connect(server.localAddress()).sync().channel();
        probe.writeAll(client);
        probe.assertEchoed(60);
        return client;
    }

    @Test
    void connectRequestsBeyondTheBacklogAreRefusedAtOnce() throws Exception {
        int backlog = 2;
        Channel server = rdma.bind(rdma.server()
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.SO_BACKLOG, backlog)
                .childHandler(EchoHandler.INSTANCE));
        List<ChannelFuture> waiting = new ArrayList<>();
        for (int i = 0; i < backlog; i++) {
            waiting.add(rdma.client().handler(new ChannelInboundHandlerAdapter())
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 120_000)
                    .connect(server.localAddress()));
        }
        // The server does not read: the first requests wait in its backlog. Only once they arrived is the
        // next one beyond it.
        Thread.sleep(3000);
        for (ChannelFuture future : waiting) {
            assertFalse(future.isDone(), "a connect request within the backlog waits to be accepted");
        }
        long started = System.nanoTime();
        ChannelFuture refused = rdma.client().handler(new ChannelInboundHandlerAdapter())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 120_000)
                .connect(server.localAddress()).await();
        long refusedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertFalse(refused.isSuccess(), "a connect request beyond the backlog was refused");
        assertInstanceOf(ConnectException.class, refused.cause());
        assertTrue(refused.cause().getMessage().contains("backlog"), () -> "the refusal says why: "
                + refused.cause().getMessage());
        assertTrue(refusedMillis < 30_000, "refused at once, not at the connect timeout: " + refusedMillis + " ms");

        // With AUTO_READ off a read accepts one request, as Netty's own server channels do, and reads
        // asked for before the first is served merge into one: read again only once a request was
        // accepted. Which client a read accepts depends on the order the requests arrived in.
        for (int accepted = 1; accepted <= waiting.size(); accepted++) {
            server.read();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (waiting.stream().filter(ChannelFuture::isDone).count() < accepted
                    && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
        }
        for (ChannelFuture future : waiting) {
            assertTrue(future.isDone() && future.isSuccess(),
                    () -> "a request from the backlog was accepted once the server read: " + future.cause());
            future.channel().close().sync();
        }
        server.close().sync();
    }

    private static int disconnected(SilentPeers silent) {
        try {
            return silent.disconnected();
        } catch (Exception e) {
            throw new AssertionError("reading the silent peers' CM events", e);
        }
    }
}
