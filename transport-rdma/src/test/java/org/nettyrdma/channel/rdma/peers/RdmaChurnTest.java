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
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.verbs.RawRdmaClient;
import org.nettyrdma.testkit.Await;
import org.nettyrdma.testkit.EchoHandler;
import org.nettyrdma.testkit.EchoProbe;
import org.nettyrdma.testkit.ExceptionRecorder;
import org.nettyrdma.testkit.RdmaTransportFixture;
import org.nettyrdma.testkit.TestSeed;

/**
 * A peer that connects and disconnects as fast as it can costs the other connections of the server's
 * event loop nothing but their share of the loop: they keep being served, their bytes unchanged, and
 * every connection the churn made is gone afterwards, with all it held.
 *
 * <p>Setting up and tearing down a connection is the loop's most expensive work (a queue pair created and
 * destroyed, its receive buffers posted and flushed, CM events on both sides), and it runs on the loop the
 * connection belongs to, between the completions of every other connection there. A server that blocks in
 * that work, or leaves a half-open child behind when its peer leaves before the handshake, would let one
 * careless or hostile peer stall or slowly drain every neighbour of its loop. Here the fixture has a single
 * loop, so the server, every child and every client of the transport share it: each churned connection's
 * set-up and tear-down runs on the very thread that serves the well-behaved client.
 *
 * <p>One {@code RdmaSocketChannel} does 64-byte echo round trips back to back, one outstanding at a time,
 * driven from the loop itself so that a round trip measures the loop and not a hand-off to the test
 * thread. After a warm-up, a quiet phase has it alone; a churn phase of the same length adds a thread of
 * the test that connects again and again, alternating raw verbs peers that leave right after
 * {@code ESTABLISHED} without a {@code HELLO} ({@link RawRdmaClient}) and ordinary
 * {@code RdmaSocketChannel} clients that complete the handshake and close at once. Each phase prints its
 * round trips and their latency (p50, p99, max) with the churn connections made: a stall shows as the
 * churn phase's max. Nothing asserts on time, which under emulation says nothing; what is asserted is that every echo came back intact, the echo client stayed active, the churn connected at
 * least {@link #MIN_CHURN} times, every churned child closed, the server still serves a new client, and
 * (the fixture) that no verbs object is left.
 */
class RdmaChurnTest {

    private static final int MESSAGE_SIZE = 64;
    /** Long enough for the JIT to compile the echo path, so that the quiet phase is not its warm-up. */
    private static final long WARM_UP_MILLIS = 2_000;
    /**
     * The length of each phase: under emulation a churn connection, set up and torn down, takes a few
     * hundred ms, so the churn makes a few dozen in it, well above {@link #MIN_CHURN}, and the whole test
     * stays within a minute.
     */
    private static final long PHASE_MILLIS = 10_000;
    /** The churn phase lasts until the churn made this many connections, however slow the machine. */
    private static final int MIN_CHURN = 20;
    /** The churn phase ends by then whatever the churn made: the assertion on its count then fails. */
    private static final long MAX_PHASE_MILLIS = 60_000;
    private static final long TIMEOUT_SECONDS = 60;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(1);

    @Test
    void connectDisconnectChurnDoesNotStallTheLoopsOtherConnections(TestInfo test) throws Exception {
        long seed = TestSeed.of(test);
        AtomicInteger acceptedChildren = new AtomicInteger();
        AtomicInteger openChildren = new AtomicInteger();
        ExceptionRecorder echoChildErrors = new ExceptionRecorder();
        ExceptionRecorder churnChildErrors = new ExceptionRecorder();
        Channel server = rdma.bind(rdma.server().childHandler(new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                openChildren.incrementAndGet();
                ch.closeFuture().addListener(f -> openChildren.decrementAndGet());
                // The echo client connects before the churn starts: the first child is its.
                boolean first = acceptedChildren.getAndIncrement() == 0;
                ch.pipeline().addLast(EchoHandler.INSTANCE, first ? echoChildErrors : churnChildErrors);
            }
        }));
        InetSocketAddress address = (InetSocketAddress) server.localAddress();

        RoundTrips roundTrips = new RoundTrips(seed);
        ExceptionRecorder echoClientErrors = new ExceptionRecorder();
        Channel client = rdma.client().handler(RdmaTransportFixture.pipeline(roundTrips, echoClientErrors))
                .connect(address).sync().channel();

        roundTrips.run(client, "warm-up", WARM_UP_MILLIS, () -> true);
        Figures quiet = roundTrips.run(client, "quiet", PHASE_MILLIS, () -> true);
        print(quiet, null);
        assertTrue(client.isActive(), "the echo client is active after the quiet phase");

        Churn churn = new Churn(address);
        churn.start();
        Figures churned;
        try {
            churned = roundTrips.run(client, "churn", PHASE_MILLIS, () -> churn.connections() >= MIN_CHURN);
        } finally {
            churn.stop();
        }
        print(churned, churn);
        churn.assertNoFailure();
        assertTrue(client.isActive(), "the echo client is active after the churn phase");
        assertTrue(churn.connections() >= MIN_CHURN, () -> "the churn made " + churn.connections()
                + " connections (expected: >= " + MIN_CHURN + ')');
        assertEquals(1 + churn.connections(), acceptedChildren.get(),
                "the server accepted the echo client and every churn connection, once each");

        // Every peer of the churn has left: their children close, and only the echo client's stays.
        Await.until(() -> openChildren.get() == 1, 30, () -> (openChildren.get() - 1)
                + " children of the churn still open of " + churn.connections());
        // Printed, not asserted: this test is about the neighbours; which exception a child that breaks off
        // reports is RdmaHostilePeerTest's subject.
        if (!churnChildErrors.exceptions().isEmpty()) {
            System.out.println("RdmaChurnTest: exceptions of the churn's children: " + churnChildErrors.exceptions());
        }

        // The loop still accepts and serves a client that comes after the churn.
        EchoProbe probe = new EchoProbe(seed, MESSAGE_SIZE, 4096, 70_000);
        Channel late = rdma.client().handler(RdmaTransportFixture.pipeline(probe)).connect(address).sync().channel();
        probe.writeAll(late);
        probe.assertEchoed(TIMEOUT_SECONDS);
        late.close().sync();

        assertTrue(client.isActive(), "the echo client is still active");
        assertEquals(List.of(), echoClientErrors.exceptions(), "exceptions of the echo client");
        assertEquals(List.of(), echoChildErrors.exceptions(), "exceptions of the echo client's server child");
        client.close().sync();
        Await.until(() -> openChildren.get() == 0, 30, () -> openChildren.get() + " children still open");
        server.close().sync();
    }

    private static void print(Figures figures, Churn churn) {
        System.out.printf("RdmaChurnTest %s: %d round trips of %d B in %d ms, p50 %d us, p99 %d us, max %d us; "
                        + "churn: %d connections (%d raw without HELLO, %d RdmaSocketChannel)%n", figures.phase,
                figures.roundTrips, MESSAGE_SIZE, figures.millis, figures.p50Micros, figures.p99Micros,
                figures.maxMicros, churn == null ? 0 : churn.connections(), churn == null ? 0 : churn.raw.get(),
                churn == null ? 0 : churn.channels.get());
    }

    /** What a phase's round trips took. */
    private record Figures(String phase, int roundTrips, long millis, long p50Micros, long p99Micros,
                           long maxMicros) {

        static Figures of(String phase, long[] latencies, int count, long millis) {
            long[] sorted = Arrays.copyOf(latencies, count);
            Arrays.sort(sorted);
            return new Figures(phase, count, millis, micros(percentile(sorted, 50)), micros(percentile(sorted, 99)),
                    micros(sorted[count - 1]));
        }

        /** The nearest-rank percentile: the smallest value at least {@code percent} of the values do not exceed. */
        private static long percentile(long[] sorted, int percent) {
            int rank = (int) Math.ceil(percent / 100.0 * sorted.length);
            return sorted[Math.max(rank, 1) - 1];
        }

        private static long micros(long nanos) {
            return TimeUnit.NANOSECONDS.toMicros(nanos);
        }
    }

    /**
     * The echo client: sends one message, waits for all of it to come back, checks it byte for byte, and
     * only then sends the next, all on the channel's loop. A message carries its sequence number and
     * seeded random bytes, so a lost, repeated, reordered or altered echo does not match.
     *
     * <p>Everything but {@link #stopRequested} is touched only on the loop; a phase's figures reach the
     * test thread through its future.
     */
    private static final class RoundTrips extends ChannelInboundHandlerAdapter {
        private final Random random;
        private final byte[] sent = new byte[MESSAGE_SIZE];
        private final byte[] echoed = new byte[MESSAGE_SIZE];
        private volatile boolean stopRequested;
        private ChannelHandlerContext ctx;
        private CompletableFuture<Figures> phase;
        /** The first thing that went wrong, between phases too: the next phase then fails at once. */
        private Throwable failure;
        private String phaseName;
        private long phaseStarted;
        private long[] latencies = new long[1024];
        private int count;
        private int echoedBytes;
        private long sequence;
        private long sentAt;

        RoundTrips(long seed) {
            random = new Random(seed);
        }

        /**
         * Runs round trips for at least {@code millis} and until {@code enough} holds (at most
         * {@link #MAX_PHASE_MILLIS}), and returns what they took; fails if any did not come back whole.
         */
        Figures run(Channel channel, String name, long millis, BooleanSupplier enough) throws Exception {
            stopRequested = false;
            CompletableFuture<Figures> done = new CompletableFuture<>();
            channel.eventLoop().execute(() -> begin(name, done));
            long started = System.nanoTime();
            Thread.sleep(millis);
            while (!enough.getAsBoolean() && System.nanoTime() - started < TimeUnit.MILLISECONDS.toNanos(MAX_PHASE_MILLIS)) {
                Thread.sleep(100);
            }
            stopRequested = true;
            // The round trip in flight ends the phase: one that never comes back fails it here.
            try {
                return done.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throw new AssertionError("the " + name + " phase failed", e.getCause());
            }
        }

        private void begin(String name, CompletableFuture<Figures> done) {
            if (failure == null && !ctx.channel().isActive()) {
                failure = new AssertionError("the echo client is not active at the start of the " + name + " phase");
            }
            if (failure != null) {
                done.completeExceptionally(failure);
                return;
            }
            phase = done;
            phaseName = name;
            count = 0;
            phaseStarted = System.nanoTime();
            sendNext();
        }

        private void sendNext() {
            sequence++;
            random.nextBytes(sent);
            for (int i = 0; i < Long.BYTES; i++) {
                sent[i] = (byte) (sequence >>> (8 * i));
            }
            echoedBytes = 0;
            long number = sequence;
            ByteBuf message = ctx.alloc().buffer(MESSAGE_SIZE).writeBytes(sent);
            sentAt = System.nanoTime();
            ctx.writeAndFlush(message).addListener((ChannelFutureListener) f -> {
                if (!f.isSuccess()) {
                    fail(new AssertionError("the write of message " + number + " failed", f.cause()));
                }
            });
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf buf = (ByteBuf) msg;
            try {
                int length = buf.readableBytes();
                if (phase == null || echoedBytes + length > MESSAGE_SIZE) {
                    fail(new AssertionError(length + " bytes echoed with " + echoedBytes + " of message " + sequence
                            + " already back (expected: at most " + (MESSAGE_SIZE - echoedBytes) + ')'));
                    return;
                }
                buf.readBytes(echoed, echoedBytes, length);
                echoedBytes += length;
            } finally {
                buf.release();
            }
            if (echoedBytes < MESSAGE_SIZE) {
                return;
            }
            long latency = System.nanoTime() - sentAt;
            if (!Arrays.equals(sent, echoed)) {
                fail(new AssertionError("message " + sequence + " came back changed: sent " + Arrays.toString(sent)
                        + ", echoed " + Arrays.toString(echoed)));
                return;
            }
            if (count == latencies.length) {
                latencies = Arrays.copyOf(latencies, count * 2);
            }
            latencies[count++] = latency;
            if (stopRequested) {
                CompletableFuture<Figures> done = phase;
                phase = null;
                done.complete(Figures.of(phaseName, latencies, count,
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - phaseStarted)));
            } else {
                sendNext();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            fail(new AssertionError("the echo client's channel became inactive"));
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            fail(cause);
            ctx.fireExceptionCaught(cause);
        }

        private void fail(Throwable cause) {
            if (failure == null) {
                failure = cause;
            }
            if (phase != null) {
                phase.completeExceptionally(cause);
                phase = null;
            }
        }
    }

    /**
     * A thread of the test that connects to the server and leaves, one connection after the other, as
     * fast as it can: every other one a raw verbs peer that disconnects once the connection is established,
     * without the {@code HELLO} the server waits for, the others an {@code RdmaSocketChannel} of the
     * fixture's group (on the server's own loop) that completes the handshake and closes at once. It stops
     * at its first failure, which {@link #assertNoFailure()} reports.
     */
    private final class Churn implements Runnable {
        private final InetSocketAddress address;
        private final Thread thread = new Thread(this, "churn");
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AtomicInteger raw = new AtomicInteger();
        final AtomicInteger channels = new AtomicInteger();

        Churn(InetSocketAddress address) {
            this.address = address;
        }

        void start() {
            thread.start();
        }

        @Override
        public void run() {
            try {
                for (int i = 0; !stop.get(); i++) {
                    if (i % 2 == 0) {
                        // close() disconnects and waits for the server's answer, then frees every verbs object.
                        try (RawRdmaClient peer = RawRdmaClient.connect(address)) {
                            raw.incrementAndGet();
                        }
                    } else {
                        Channel ch = rdma.client().handler(new ChannelInboundHandlerAdapter())
                                .connect(address).sync().channel();
                        channels.incrementAndGet();
                        ch.close().sync();
                    }
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }

        int connections() {
            return raw.get() + channels.get();
        }

        /** Stops after the connection in hand and waits for the thread: a raw peer's close waits at most 20 s. */
        void stop() throws InterruptedException {
            stop.set(true);
            thread.join(TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS));
            assertFalse(thread.isAlive(), "the churn thread ended");
        }

        void assertNoFailure() {
            Throwable t = failure.get();
            if (t != null) {
                throw new AssertionError("a churn connection failed after " + connections() + " connections", t);
            }
        }
    }
}
