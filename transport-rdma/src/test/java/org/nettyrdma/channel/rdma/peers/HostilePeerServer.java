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
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import org.nettyrdma.channel.rdma.RdmaChannelOption;
import org.nettyrdma.channel.rdma.RdmaLoopMetrics;
import org.nettyrdma.channel.rdma.RdmaReceiveQueueMetrics;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.channel.rdma.verbs.RawRdmaClient;
import org.nettyrdma.testkit.Await;
import org.nettyrdma.testkit.ExceptionRecorder;
import org.nettyrdma.testkit.RdmaTransportFixture;
import org.nettyrdma.testkit.StreamDigest;
import org.nettyrdma.testkit.StreamReader;
import org.nettyrdma.testkit.StreamWriter;
import org.nettyrdma.testkit.WritePlan;

/**
 * A server for tests of peers that break the protocol (docs/protocol.md), with a well-behaved
 * {@code RdmaSocketChannel} streaming checksummed data to it all along: the first child it accepts is
 * that client's, every later one a raw verbs peer's ({@link RawChild}), whose pipeline records its
 * exceptions and, once the test lets it read, the bytes it receives. A violation must cost only its own
 * connection: {@link #assertClosed} checks that it ended with the exception that names it,
 * {@link #assertStreamIntact()} that the stream went on unchanged. The well-behaved pair's devices
 * retry no Send that meets no receive ({@code RNR_RETRY_COUNT} 0 on both of its ends), so a receive
 * a hostile peer took from under the stream's credit fails the stream rather than slowing it.
 */
final class HostilePeerServer implements AutoCloseable {

    private static final int MAX_WRITE = 256 << 10;
    private static final long TIMEOUT_SECONDS = 30;

    /**
     * The child of a raw verbs peer, hostile or its victim. It does not read until told to
     * ({@link #startReading()}): what the peer wrote into the ring stays there, counted against the
     * peer's ring credit, and the test decides when it is read.
     */
    static final class RawChild {
        final Channel channel;
        final ExceptionRecorder errors = new ExceptionRecorder();
        private final ReceivedBytes received = new ReceivedBytes();

        private RawChild(Channel channel) {
            this.channel = channel;
        }

        /** Lets the child read: what arrived so far and all that follows is recorded. */
        void startReading() {
            channel.config().setAutoRead(true);
        }

        /** Asserts that the child closed with one exception, of {@code type}, naming {@code expected}. */
        void assertClosedWith(Class<? extends Throwable> type, String expected) throws InterruptedException {
            List<Throwable> exceptions = awaitClosed();
            assertEquals(1, exceptions.size(), () -> "exceptions: " + exceptions);
            Throwable cause = exceptions.get(0);
            assertInstanceOf(type, cause, () -> "the exception: " + cause);
            assertTrue(cause.getMessage() != null && cause.getMessage().contains(expected),
                    () -> "the exception names the violation (" + expected + "): " + cause.getMessage());
        }

        /** Asserts that the child closed without an exception, as after a disconnect. */
        void assertClosedWithoutException() throws InterruptedException {
            List<Throwable> exceptions = awaitClosed();
            assertEquals(List.of(), exceptions, "exceptions");
        }

        /** Waits for the child to close and returns its exceptions; prints both, so a failed run says what happened. */
        private List<Throwable> awaitClosed() throws InterruptedException {
            boolean closed = channel.closeFuture().await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            List<Throwable> exceptions = errors.exceptions();
            System.out.println("the raw peer's child " + (closed ? "closed" : "is still open after "
                    + TIMEOUT_SECONDS + " s") + ", exceptions: " + exceptions);
            assertTrue(closed, () -> "the raw peer's child closed; exceptions: " + exceptions);
            return exceptions;
        }

        /** Returns the first {@code length} bytes the child read, waiting for them. */
        byte[] awaitBytes(int length) throws InterruptedException {
            Await.until(() -> received.size() >= length, TIMEOUT_SECONDS, () -> "the child read " + received.size()
                    + " of " + length + " bytes (active: " + channel.isActive() + ", " + errors.exceptions() + ')');
            return Arrays.copyOf(received.bytes(), length);
        }
    }

    /** Copies every buffer it reads into one array and releases it. */
    private static final class ReceivedBytes extends ChannelInboundHandlerAdapter {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf buf = (ByteBuf) msg;
            try {
                synchronized (bytes) {
                    bytes.writeBytes(ByteBufUtil.getBytes(buf));
                }
            } finally {
                buf.release();
            }
        }

        int size() {
            synchronized (bytes) {
                return bytes.size();
            }
        }

        byte[] bytes() {
            synchronized (bytes) {
                return bytes.toByteArray();
            }
        }
    }

    private final long seed;
    private final Channel server;
    private final BlockingQueue<RawChild> rawChildren = new LinkedBlockingQueue<>();
    private final StreamReader goodReader;
    private final ExceptionRecorder goodErrors = new ExceptionRecorder();
    private final Channel good;
    private final StreamWriter writer;
    private final ExceptionRecorder clientErrors = new ExceptionRecorder();
    private final Channel client;

    private HostilePeerServer(RdmaTransportFixture rdma, long seed, Consumer<ServerBootstrap> options)
            throws Exception {
        this.seed = seed;
        goodReader = new StreamReader(seed);
        CompletableFuture<Channel> goodChild = new CompletableFuture<>();
        AtomicBoolean first = new AtomicBoolean(true);
        ServerBootstrap bootstrap = rdma.server().childHandler(new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                // The well-behaved client is connected before any raw peer connects.
                if (first.getAndSet(false)) {
                    // A Send of the well-behaved pair that meets no receive posted fails its stream at
                    // once instead of being retried: whatever a hostile peer does, the stream shows it.
                    // Each side announces the count the other's device uses; a raw peer keeps the default.
                    ch.config().setOption(RdmaChannelOption.RNR_RETRY_COUNT, 0);
                    // Its own receive queue, whatever the test gives the raw peers' children: a peer
                    // on the loop's shared queue is trusted by definition (docs/security.md).
                    ch.config().setOption(RdmaChannelOption.SHARED_RECEIVE_QUEUE, false);
                    ch.pipeline().addLast(goodReader, goodErrors);
                    goodChild.complete(ch);
                } else {
                    ch.config().setAutoRead(false);
                    RawChild child = new RawChild(ch);
                    ch.pipeline().addLast(child.received, child.errors);
                    rawChildren.add(child);
                }
            }
        });
        // A raw peer in a second JVM starting under emulation may take longer than the default to say
        // its HELLO after connecting; the deadline itself is RdmaAdmissionTest's.
        bootstrap.childOption(RdmaChannelOption.HELLO_TIMEOUT_MILLIS, 120_000);
        options.accept(bootstrap);
        server = rdma.bind(bootstrap);
        // The well-behaved connection writes until the test has dealt with the raw peers.
        writer = new StreamWriter(seed, WritePlan.untilStopped(seed, MAX_WRITE));
        client = rdma.client().option(RdmaChannelOption.RNR_RETRY_COUNT, 0)
                .handler(RdmaTransportFixture.pipeline(writer, clientErrors))
                .connect(server.localAddress()).sync().channel();
        good = goodChild.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    /**
     * Binds a server on the fixture's group, with {@code options} applied to its bootstrap, and
     * connects the well-behaved client, which starts streaming the data of {@code seed}.
     */
    static HostilePeerServer start(RdmaTransportFixture rdma, long seed, Consumer<ServerBootstrap> options)
            throws Exception {
        return new HostilePeerServer(rdma, seed, options);
    }

    InetSocketAddress address() {
        return (InetSocketAddress) server.localAddress();
    }

    /** Returns the child of the raw peer that connected next. */
    RawChild nextRawChild() throws InterruptedException {
        RawChild child = rawChildren.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertNotNull(child, "no raw peer accepted within " + TIMEOUT_SECONDS + " s");
        return child;
    }

    /**
     * Asserts that a raw peer's child closed with one exception, of {@code type}, whose message
     * contains {@code expected}, and that the raw peer then saw {@code DISCONNECTED}.
     */
    static void assertClosed(RawChild child, RawRdmaClient raw, Class<? extends Throwable> type, String expected)
            throws Exception {
        child.assertClosedWith(type, expected);
        raw.awaitDisconnected(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    /**
     * Stops the well-behaved stream and asserts that it arrived whole, that its connection is still up
     * and that neither of its ends saw an exception.
     */
    void assertStreamIntact() throws Exception {
        assertTrue(writer.queuedBytes() > 0 && client.isActive(), "the good connection was transferring");
        writer.stop();
        StreamDigest sent = writer.done().get(60, TimeUnit.SECONDS);
        assertEquals(sent, goodReader.digestAt(sent.length()).get(TIMEOUT_SECONDS, TimeUnit.SECONDS),
                "the well-behaved stream, seed " + seed);
        assertTrue(good.isActive(), "the well-behaved connection is still up");
        assertFalse(goodReader.errors().isCompletedExceptionally());
        assertEquals(List.of(), clientErrors.exceptions(), "exceptions of the well-behaved client");
        assertEquals(List.of(), goodErrors.exceptions(), "exceptions of the well-behaved server child");
    }

    /**
     * Returns the metrics of the well-behaved server child's event loop, taken on that loop so that
     * its shared receive queue's counts are exact.
     */
    RdmaLoopMetrics loopMetrics() throws Exception {
        return good.eventLoop().submit(() -> ((RdmaSocketChannel) good).loopMetrics()).get(TIMEOUT_SECONDS,
                TimeUnit.SECONDS);
    }

    /**
     * Waits until the receive queues of the well-behaved child's loop are whole at rest: no
     * receive held, as many posted as the queues keep for the connections' reservations and their
     * margin, and no more reserved than {@code maxReserved} (what the connections still open may hold);
     * returns the last look.
     */
    RdmaReceiveQueueMetrics awaitReceivesWhole(int maxReserved) throws InterruptedException {
        RdmaReceiveQueueMetrics[] last = new RdmaReceiveQueueMetrics[1];
        Await.until(() -> {
            try {
                last[0] = loopMetrics().receiveQueues();
            } catch (Exception e) {
                throw new IllegalStateException("reading the loop's metrics", e);
            }
            return last[0].held() == 0 && last[0].reserved() <= maxReserved && last[0].posted() >= last[0].target();
        }, TIMEOUT_SECONDS, () -> "the receive queues at rest, at most " + maxReserved + " reserved: " + last[0]);
        System.out.println("the receive queues at rest: " + last[0]);
        return last[0];
    }

    /** Stops the stream and closes the client and the server. */
    @Override
    public void close() throws InterruptedException {
        writer.stop();
        client.close().sync();
        server.close().sync();
    }
}
