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

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.nettyrdma.testsuite.transport.RdmaOneSidedTest.GUARD;
import static org.nettyrdma.testsuite.transport.RdmaOneSidedTest.TABLE;
import static org.nettyrdma.testsuite.transport.RdmaOneSidedTest.open;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoop;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.OneSidedCompletion;
import org.nettyrdma.channel.rdma.RdmaRemoteAccessException;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.channel.rdma.RemoteAccess;
import org.nettyrdma.channel.rdma.RemoteRegion;
import org.nettyrdma.testkit.DeviceUnderTest;
import org.nettyrdma.testkit.RdmaTransportFixture;
import org.nettyrdma.testsuite.transport.RdmaOneSidedTest.Session;


/**
 * One-sided operations told to a {@link OneSidedCompletion} on rxe: a steady run of Reads into a
 * buffer the caller keeps, Writes, fetch-and-adds and compare-and-swaps allocates nothing, whether
 * each is started from the last one's completion on the event loop or from another thread; the
 * results are right; and a refusal by the peer's device, a request outside the descriptor and a
 * closed channel reach the completion as the exception, on the event loop.
 *
 * <p>Allocation is read with {@code ThreadMXBean.getThreadAllocatedBytes}; the buffers are made
 * without a leak tracker, whose records at {@code PARANOID} would count as the transport's garbage.
 */
class RdmaOneSidedCompletionTest {

    private static final int SIZE = 64;
    /** Where, in the table, the fetch-and-adds and the compare-and-swaps go, and the Writes land. */
    private static final int ADDED = 0;
    private static final int SWAPPED = Long.BYTES;
    private static final int WRITTEN_AT = 1024;
    /** Operations per round; a round that allocated less than one byte per operation allocated none per operation. */
    private static final int OPERATIONS = 2000;
    /** Rounds until the JIT compiler made the path what it stays; the least round counts. */
    private static final int MAX_ROUNDS = 40;
    private static final long TIMEOUT_SECONDS = 60;
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    /** Returns the word at {@code offset} of the table, as the atomics see it. */
    private static long tableWord(Session session, int offset) {
        return RdmaOneSidedTest.word(session.exposer().memory, GUARD + offset);
    }

    /** A buffer of plain direct memory that no leak tracker follows. */
    private static ByteBuf untracked(int capacity) {
        return Unpooled.wrappedBuffer(ByteBuffer.allocateDirect(capacity)).clear();
    }

    private enum Kind { READ, WRITE, FETCH_AND_ADD, COMPARE_AND_SWAP }

    /**
     * A run of one kind of operation, each started when the last one's completion came, checking each
     * result; one instance is the completion of every operation of every round.
     */
    private static final class Run implements OneSidedCompletion {
        private final Session session;
        private final Kind kind;
        private final ByteBuf destination = untracked(SIZE);
        private final ByteBuf source = untracked(SIZE);
        /** The word's value the next atomic should see. */
        private long expected;
        private int left;
        private volatile int completed;
        private volatile Throwable failure;
        /** Whether the next operation starts from the completion, on the loop. */
        private boolean chained;
        private long loopBytesAtStart;
        private long loopBytes;
        private CompletableFuture<Void> end;

        Run(Session session, Kind kind) {
            this.session = session;
            this.kind = kind;
            for (int i = 0; i < SIZE; i++) {
                source.writeByte(0xA0 + i);
            }
            expected = tableWord(session, kind == Kind.COMPARE_AND_SWAP ? SWAPPED : ADDED);
        }

        void start() {
            switch (kind) {
                case READ -> session.client().oneSided().read(session.remote(), 0, destination.clear(), SIZE, this);
                case WRITE -> session.client().oneSided().write(session.remote(), WRITTEN_AT, source.retain(), this);
                case FETCH_AND_ADD -> session.client().oneSided().fetchAndAdd(session.remote(), ADDED, 1, this);
                case COMPARE_AND_SWAP -> session.client().oneSided().compareAndSwap(session.remote(), SWAPPED,
                        expected, expected + 1, this);
            }
        }

        @Override
        public void operationComplete(long result, Throwable cause) {
            if (cause == null && !session.client().eventLoop().inEventLoop()) {
                cause = new AssertionError("told off the event loop");
            }
            if (cause == null) {
                cause = check(result);
            }
            if (cause != null) {
                failure = cause;
                finish();
                return;
            }
            completed++;
            if (--left == 0) {
                finish();
            } else if (chained) {
                start();
            }
        }

        /** Returns what is wrong with {@code result}, or {@code null}; allocates nothing when right. */
        private Throwable check(long result) {
            switch (kind) {
                case READ:
                    if (result != SIZE || destination.readableBytes() != SIZE
                            || destination.getLong(8) != session.exposer().memory.getLong(GUARD + 8)
                            || destination.getLong(SIZE - 8) != session.exposer().memory.getLong(GUARD + SIZE - 8)) {
                        return new AssertionError("a Read told " + result + " with " + destination);
                    }
                    return null;
                case WRITE:
                    return result == SIZE && source.refCnt() == 1 ? null
                            : new AssertionError("a Write told " + result + ", source refCnt " + source.refCnt());
                default:
                    if (result != expected) {
                        return new AssertionError(kind + " saw " + result + ", expected " + expected);
                    }
                    expected++;
                    return null;
            }
        }

        private void finish() {
            if (chained) {
                loopBytes = THREADS.getCurrentThreadAllocatedBytes() - loopBytesAtStart;
            }
            end.complete(null);
        }

        /**
         * Runs {@code OPERATIONS} operations, each started by the last one's completion on the loop;
         * returns the bytes the loop allocated meanwhile.
         */
        long chainedOnTheLoop() throws Exception {
            chained = true;
            left = OPERATIONS;
            completed = 0;
            end = new CompletableFuture<>();
            session.client().eventLoop().execute(() -> {
                loopBytesAtStart = THREADS.getCurrentThreadAllocatedBytes();
                start();
            });
            end.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            throwIfFailed();
            return loopBytes;
        }

        /**
         * Runs {@code OPERATIONS} operations started on this thread one at a time, waiting for each
         * by spinning (a blocking wait would allocate its own node); returns the bytes this thread
         * and the loop allocated.
         */
        long[] fromAnotherThread(long loopThread) throws Exception {
            chained = false;
            left = OPERATIONS;
            completed = 0;
            end = new CompletableFuture<>();
            long callerBefore = THREADS.getCurrentThreadAllocatedBytes();
            long loopBefore = THREADS.getThreadAllocatedBytes(loopThread);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
            for (int i = 0; i < OPERATIONS && failure == null; i++) {
                start();
                while (completed == i && failure == null) {
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError(kind + ": operation " + i + " did not complete in time");
                    }
                    Thread.onSpinWait();
                }
            }
            long[] bytes = {THREADS.getCurrentThreadAllocatedBytes() - callerBefore,
                THREADS.getThreadAllocatedBytes(loopThread) - loopBefore};
            end.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            throwIfFailed();
            return bytes;
        }

        private void throwIfFailed() {
            if (failure != null) {
                throw new AssertionError(kind + " failed: " + failure, failure);
            }
        }

        void release() {
            destination.release();
            source.release();
        }
    }

    @Test
    void aSteadyRunOfOperationsWithACompletionAllocatesNothing() throws Exception {
        assumeTrue(THREADS.isThreadAllocatedMemorySupported(), "per-thread allocation is measured");
        THREADS.setThreadAllocatedMemoryEnabled(true);
        boolean atomics = DeviceUnderTest.verbs().atomics();
        Session session = atomics ? open(rdma, RemoteAccess.READ, RemoteAccess.WRITE, RemoteAccess.ATOMIC)
                : open(rdma, RemoteAccess.READ, RemoteAccess.WRITE);
        EventLoop loop = session.client().eventLoop();
        @SuppressWarnings("deprecation") // Thread.getId(): threadId() needs Java 19
        long loopThread = loop.submit(() -> Thread.currentThread().getId()).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        List<Kind> kinds = new ArrayList<>(List.of(Kind.READ, Kind.WRITE));
        if (atomics) {
            kinds.add(Kind.FETCH_AND_ADD);
            kinds.add(Kind.COMPARE_AND_SWAP);
        }
        StringBuilder figures = new StringBuilder();
        List<String> garbage = new ArrayList<>();
        Map<Kind, Long> words = new EnumMap<>(Kind.class);
        for (Kind kind : kinds) {
            Run run = new Run(session, kind);
            long chained = Long.MAX_VALUE;
            long caller = Long.MAX_VALUE;
            long loopOfCaller = Long.MAX_VALUE;
            for (int round = 0; round < MAX_ROUNDS && (chained >= OPERATIONS || caller >= OPERATIONS
                    || loopOfCaller >= OPERATIONS); round++) {
                chained = Math.min(chained, run.chainedOnTheLoop());
                long[] bytes = run.fromAnotherThread(loopThread);
                caller = Math.min(caller, bytes[0]);
                loopOfCaller = Math.min(loopOfCaller, bytes[1]);
            }
            figures.append(String.format("%s: chained on the loop %d B, from another thread %d B on it and %d B on"
                    + " the loop, per %d operations (least round); ", kind, chained, caller, loopOfCaller, OPERATIONS));
            if (chained >= OPERATIONS || caller >= OPERATIONS || loopOfCaller >= OPERATIONS) {
                garbage.add(kind.name());
            }
            words.put(kind, run.expected);
            run.release();
        }
        System.out.println("one-sided allocation: " + figures);
        assertTrue(garbage.isEmpty(), "garbage per operation in " + garbage + ": " + figures);
        if (atomics) {
            assertEquals(words.get(Kind.FETCH_AND_ADD), tableWord(session, ADDED),
                    "the word rose by every fetch-and-add that completed");
            assertEquals(words.get(Kind.COMPARE_AND_SWAP), tableWord(session, SWAPPED),
                    "every compare-and-swap swapped");
        }
        ByteBuf memory = session.exposer().memory;
        assertEquals(0xA0, memory.getUnsignedByte(GUARD + WRITTEN_AT), "the Writes landed");
        assertEquals(0xA0 + SIZE - 1, memory.getUnsignedByte(GUARD + WRITTEN_AT + SIZE - 1));
        assertEquals(GUARD + WRITTEN_AT + SIZE & 0xFF, memory.getUnsignedByte(GUARD + WRITTEN_AT + SIZE),
                "and no further");
        assertTrue(session.client().isActive());
        session.close();
    }

    /** What one completion was told, and on which thread. */
    private static final class Told implements OneSidedCompletion {
        final CompletableFuture<Long> result = new CompletableFuture<>();
        final AtomicInteger calls = new AtomicInteger();
        volatile boolean onLoop;
        private final EventLoop loop;

        Told(EventLoop loop) {
            this.loop = loop;
        }

        @Override
        public void operationComplete(long value, Throwable cause) {
            onLoop = loop.inEventLoop();
            calls.incrementAndGet();
            if (cause != null) {
                result.completeExceptionally(cause);
            } else {
                result.complete(value);
            }
        }

        Throwable failure() throws Exception {
            try {
                long value = result.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                throw new AssertionError("succeeded with " + value);
            } catch (ExecutionException e) {
                assertTrue(onLoop, "told on the event loop");
                assertEquals(1, calls.get(), "told once");
                return e.getCause();
            }
        }
    }

    /**
     * A refusal by the peer's device reaches the completion as {@link RdmaRemoteAccessException}, the
     * Write's bytes released and the destination of a later Read untouched; once the channel closed,
     * every operation is told {@link ClosedChannelException}; a request outside the descriptor is told
     * {@link IllegalArgumentException} before anything is posted. Each on the event loop.
     */
    @Test
    void failuresReachTheCompletion() throws Exception {
        Session session = open(rdma, RemoteAccess.READ);
        RdmaSocketChannel client = session.client();
        EventLoop loop = client.eventLoop();
        RemoteRegion remote = session.remote();

        Told outside = new Told(loop);
        ByteBuf destination = untracked(SIZE);
        client.oneSided().read(remote, TABLE - 8, destination, 16, outside);
        assertInstanceOf(IllegalArgumentException.class, outside.failure());
        assertEquals(0, destination.writerIndex(), "nothing was read");

        byte[] before = session.exposer().snapshot();
        RemoteRegion forged = new RemoteRegion(remote.address(), remote.length(), remote.rkey(),
                EnumSet.allOf(RemoteAccess.class));
        ByteBuf source = untracked(SIZE).writeZero(SIZE);
        Told refused = new Told(loop);
        client.oneSided().write(forged, 0, source, refused);
        Throwable cause = refused.failure();
        assertInstanceOf(RdmaRemoteAccessException.class, cause, () -> "refused: " + cause);
        assertEquals(0, source.refCnt(), "the Write's bytes were released");
        assertArrayEquals(before, session.exposer().snapshot(), "the table and its guard bytes are unchanged");

        client.closeFuture().await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertFalse(client.isActive(), "the refusal closed the channel");
        Told closed = new Told(loop);
        client.oneSided().read(remote, 0, destination, SIZE, closed);
        assertInstanceOf(ClosedChannelException.class, closed.failure());
        assertEquals(0, destination.writerIndex(), "the destination is untouched");
        Told closedOnLoop = new Told(loop);
        loop.submit(() -> client.oneSided().read(remote, 0, destination, SIZE, closedOnLoop)).sync();
        assertInstanceOf(ClosedChannelException.class, closedOnLoop.failure(), "called on the loop alike");
        assertEquals(0, destination.writerIndex(), "the destination is untouched");
        assertEquals(1, destination.refCnt(), "the destination stays the caller's");
        destination.release();
        assertEquals(1, refused.calls.get(), "the refused Write was told once");
        session.close();
    }
}
