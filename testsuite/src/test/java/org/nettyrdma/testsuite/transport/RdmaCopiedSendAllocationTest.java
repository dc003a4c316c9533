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

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.testkit.Await;
import org.nettyrdma.testkit.EchoHandler;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * Buffers the transport must copy leave no garbage on the event loop that copies them: a steady
 * ping-pong of writes against an echo server, each written from the echo of the last, allocates less
 * than a byte per round trip on the client's loop, which copies a heap buffer or direct memory of
 * another allocator, and on the server's, which writes back the received buffers, at a size copied into
 * the inline buffer and at one copied into a staging block. On Java 25 Netty runs without
 * {@code Unsafe}, where asking a wrapped {@link ByteBuffer} for its address makes a memory segment
 * per call.
 *
 * <p>Allocation is read with {@code ThreadMXBean.getThreadAllocatedBytes}. The leak detector is off
 * while the rounds run: at {@code PARANOID} it records a trace per received buffer and per access,
 * which is the detector's garbage, not the transport's.
 */
class RdmaCopiedSendAllocationTest {

    /** Round trips per round; a round that allocated less than one byte per round trip allocated none per round trip. */
    private static final int ROUND_TRIPS = 2000;
    /** Rounds until the JIT compiler made the path what it stays; the least round counts. */
    private static final int MAX_ROUNDS = 30;
    private static final long TIMEOUT_SECONDS = 60;
    /** Copied into the inline buffer (128 bytes with the header by default), and into a staging block. */
    private static final int[] SIZES = {64, 4096};
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    /**
     * The client of the ping-pong: writes one of its own buffers again (retained, indexes reset) when
     * the last message came back whole, and counts the loop's allocation over a round. A write stays
     * in the outbound buffer until its Send completes, which may be told after the echo: the buffers
     * take turns.
     */
    private static final class PingPong extends ChannelInboundHandlerAdapter {
        private final ByteBuf[] buffers = new ByteBuf[4];
        private final int size;
        private int next;
        private int echoed;
        private int left;
        /** The echo server's loop thread, or -1 if it is the client's own. */
        private long serverThread = -1;
        private long bytesAtStart;
        private long serverBytesAtStart;
        private volatile long roundBytes;
        private volatile long serverRoundBytes;
        private volatile Throwable failure;
        private CompletableFuture<Void> end;

        /** A ping-pong of {@code size}-byte writes from heap buffers, or from direct ones if {@code direct}. */
        PingPong(int size, boolean direct) {
            this.size = size;
            for (int i = 0; i < buffers.length; i++) {
                // Neither kind is the channel's registered memory, and neither is leak-tracked.
                buffers[i] = direct ? Unpooled.wrappedBuffer(ByteBuffer.allocateDirect(size))
                        : Unpooled.wrappedBuffer(new byte[size]);
                for (int j = 0; j < size; j++) {
                    buffers[i].setByte(j, j);
                }
            }
        }

        /** Says what the ping-pong writes. */
        String kind() {
            return (buffers[0].hasArray() ? "heap " : "direct ") + size + " B";
        }

        void release() {
            for (ByteBuf buffer : buffers) {
                buffer.release();
            }
        }

        /**
         * Runs a round on the loop of {@code channel}; returns the bytes the client's loop and the server's
         * allocated meanwhile.
         */
        long[] round(Channel channel) throws Exception {
            end = new CompletableFuture<>();
            channel.eventLoop().execute(() -> {
                left = ROUND_TRIPS;
                serverBytesAtStart = serverThread < 0 ? 0 : THREADS.getThreadAllocatedBytes(serverThread);
                bytesAtStart = THREADS.getCurrentThreadAllocatedBytes();
                write(channel.pipeline().firstContext());
            });
            end.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (failure != null) {
                throw new AssertionError("the ping-pong of " + size + "-byte writes failed", failure);
            }
            return new long[] {roundBytes, serverRoundBytes};
        }

        private void write(ChannelHandlerContext ctx) {
            ByteBuf buffer = buffers[next];
            next = (next + 1) % buffers.length;
            if (buffer.refCnt() != 1) {
                fail(new AssertionError("the transport still holds the write of " + buffers.length
                        + " round trips ago: refCnt " + buffer.refCnt()));
                return;
            }
            ctx.writeAndFlush(buffer.retain().setIndex(0, size), ctx.voidPromise());
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf echo = (ByteBuf) msg;
            echoed += echo.readableBytes();
            echo.release();
            if (echoed < size) {
                return;
            }
            echoed -= size;
            if (--left == 0) {
                roundBytes = THREADS.getCurrentThreadAllocatedBytes() - bytesAtStart;
                serverRoundBytes = serverThread < 0 ? 0
                        : THREADS.getThreadAllocatedBytes(serverThread) - serverBytesAtStart;
                end.complete(null);
            } else {
                write(ctx);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            fail(cause);
        }

        private void fail(Throwable cause) {
            failure = cause;
            if (end != null) {
                end.complete(null);
            }
        }
    }

    @Test
    void copiedWritesLeaveNoGarbageOnTheLoop() throws Exception {
        assumeTrue(THREADS.isThreadAllocatedMemorySupported(), "per-thread allocation is measured");
        THREADS.setThreadAllocatedMemoryEnabled(true);
        List<RdmaSocketChannel> children = new CopyOnWriteArrayList<>();
        Channel server = rdma.bind(rdma.server().childHandler(
                EchoHandler.keeping(children, EchoHandler.WITHOUT_PROMISES)));
        ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
        List<String> garbage = new ArrayList<>();
        StringBuilder figures = new StringBuilder();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        try {
            for (int size : SIZES) {
                for (boolean direct : new boolean[] {false, true}) {
                    PingPong pingPong = new PingPong(size, direct);
                    Channel client = rdma.client().handler(pingPong).connect(server.localAddress()).sync().channel();
                    Await.until(() -> children.size() == 1, 30, () -> "the server's child: " + children);
                    long serverThread = loopThread(children.remove(0));
                    pingPong.serverThread = serverThread == loopThread(client) ? -1 : serverThread;
                    long leastClient = Long.MAX_VALUE;
                    long leastServer = Long.MAX_VALUE;
                    for (int round = 0; round < MAX_ROUNDS && (leastClient >= ROUND_TRIPS
                            || leastServer >= ROUND_TRIPS); round++) {
                        long[] bytes = pingPong.round(client);
                        leastClient = Math.min(leastClient, bytes[0]);
                        leastServer = Math.min(leastServer, bytes[1]);
                    }
                    String kind = pingPong.kind();
                    figures.append(String.format("%s: client's loop %d B, server's %s, per %d round trips (least"
                            + " round); ", kind, leastClient, pingPong.serverThread < 0 ? "the same loop"
                            : leastServer + " B", ROUND_TRIPS));
                    if (leastClient >= ROUND_TRIPS || leastServer >= ROUND_TRIPS) {
                        garbage.add(kind);
                    }
                    client.close().sync();
                    pingPong.release();
                }
            }
        } finally {
            ResourceLeakDetector.setLevel(level);
        }
        server.close().sync();
        System.out.println("copied-send allocation: " + figures);
        assertTrue(garbage.isEmpty(), "garbage per copied write in " + garbage + ": " + figures);
    }

    @SuppressWarnings("deprecation") // Thread.getId(): threadId() needs Java 19
    private static long loopThread(Channel channel) throws Exception {
        return channel.eventLoop().submit(() -> Thread.currentThread().getId()).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }
}
