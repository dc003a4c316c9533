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
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaIoHandler;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.testkit.Await;
import org.nettyrdma.testkit.ExceptionRecorder;
import org.nettyrdma.testkit.RdmaTransportFixture;
import org.nettyrdma.testkit.StreamDigest;
import org.nettyrdma.testkit.StreamReader;
import org.nettyrdma.testkit.StreamWriter;
import org.nettyrdma.testkit.TestSeed;
import org.nettyrdma.testkit.WritePlan;

/**
 * Eight connections between a server group and a client group of two loops each, every connection
 * streaming in both directions at once: seeded writes of 1 B to 4 MiB ({@link WritePlan}) checked byte
 * by byte and by CRC32 ({@link StreamDigest}) at the other end, not one byte lost. Where the other
 * device tests each look at one mechanism, this one runs them all together for long enough that a
 * credit, a ring offset or a completion that goes astray once in many thousand writes shows.
 *
 * <p>The bytes each way, over all connections together, are {@code -Dorg.nettyrdma.test.soakBytes=N}
 * (through {@code RDMA_TEST_JAVA_OPTS} for {@code scripts/device-tests}), {@value #DEFAULT_BYTES} by
 * default: about a minute in the rxe VM, which a CI run of every device test can spend.
 * {@code scripts/soak} runs the full size, 1 GiB each way. The test prints the size and throughput. It
 * fails when no byte moves for {@value #STALL_SECONDS} s, however long the whole run takes.
 */
class RdmaSoakTest {

    private static final String BYTES_PROPERTY = "org.nettyrdma.test.soakBytes";
    private static final long DEFAULT_BYTES = 64L << 20;
    private static final int CONNECTIONS = 8;
    private static final int LOOPS = 2;
    private static final int MAX_WRITE = 4 << 20;
    private static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(1 << 20, 4 << 20);
    private static final long STALL_SECONDS = 60;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(LOOPS);

    @Test
    @Timeout(value = 90, unit = TimeUnit.MINUTES) // the size sets the length; a stall fails it within a minute
    void eightConnectionsStreamBothWaysAndLoseNothing(TestInfo test) throws Exception {
        long seed = TestSeed.of(test);
        long total = Long.getLong(BYTES_PROPERTY, DEFAULT_BYTES);
        assertTrue(total >= CONNECTIONS, BYTES_PROPERTY + ": " + total + " (expected: >= " + CONNECTIONS + ')');
        List<Direction> upstream = new ArrayList<>();
        List<Direction> downstream = new ArrayList<>();
        for (int i = 0; i < CONNECTIONS; i++) {
            // The remainder goes to the first streams, so the total is exact.
            long length = total / CONNECTIONS + (i < total % CONNECTIONS ? 1 : 0);
            upstream.add(new Direction("connection " + i + " client to server", seed + 2L * i, length));
            downstream.add(new Direction("connection " + i + " server to client", seed + 2L * i + 1, length));
        }

        // The connections are made one at a time and each waits for its server end, so the n-th child
        // accepted is the n-th connection and knows its streams' seeds.
        AtomicInteger accepted = new AtomicInteger();
        ExceptionRecorder serverErrors = new ExceptionRecorder();
        Channel server = rdma.bind(rdma.server()
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        int i = accepted.getAndIncrement();
                        ch.pipeline().addLast(downstream.get(i).writer, upstream.get(i).reader, serverErrors);
                    }
                }));

        EventLoopGroup clientGroup = new MultiThreadIoEventLoopGroup(LOOPS, RdmaIoHandler.newFactory());
        try {
            ExceptionRecorder clientErrors = new ExceptionRecorder();
            Bootstrap client = new Bootstrap().group(clientGroup).channel(RdmaSocketChannel.class)
                    .option(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK);
            List<Channel> clients = new ArrayList<>();
            long start = System.nanoTime();
            for (int i = 0; i < CONNECTIONS; i++) {
                clients.add(client.handler(RdmaTransportFixture.pipeline(upstream.get(i).writer,
                        downstream.get(i).reader, clientErrors)).connect(server.localAddress()).sync().channel());
                int connected = i + 1;
                Await.until(() -> accepted.get() == connected, 30, () -> "the server accepted " + accepted.get()
                        + " of " + connected + " connections");
            }

            List<Direction> all = new ArrayList<>(upstream);
            all.addAll(downstream);
            awaitAll(all);
            long nanos = System.nanoTime() - start;

            for (Direction direction : all) {
                StreamDigest sent = direction.writer.done().join();
                assertEquals(direction.length, sent.length(), direction.name + ": bytes written, seed " + seed);
                assertEquals(sent, direction.received.join(), direction.name + ": the stream as read, seed " + seed);
            }
            assertEquals(List.of(), clientErrors.exceptions(), "client exceptions");
            assertEquals(List.of(), serverErrors.exceptions(), "server exceptions");
            int largestWrite = all.stream().mapToInt(direction -> direction.writer.largestWrite()).max().orElse(0);
            double seconds = nanos / 1e9;
            System.out.printf("soak: %d connections, %d bytes each way (%.1f MiB), largest write %d B, "
                    + "in %.1f s: %.1f MiB/s each way, %.1f MiB/s in all%n", CONNECTIONS, total,
                    total / (double) (1 << 20), largestWrite, seconds, total / seconds / (1 << 20),
                    2 * total / seconds / (1 << 20));

            for (Channel channel : clients) {
                assertTrue(channel.close().await(30, TimeUnit.SECONDS), "a client's close");
            }
            assertTrue(server.close().await(30, TimeUnit.SECONDS), "the server's close");
        } finally {
            clientGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    /**
     * Waits until every stream was written and read whole; fails at the first failed stream, or when
     * the bytes read in all stood still for {@link #STALL_SECONDS}.
     */
    private static void awaitAll(List<Direction> all) throws Exception {
        long lastReceived = -1;
        long movedAt = System.nanoTime();
        while (true) {
            boolean done = true;
            long received = 0;
            for (Direction direction : all) {
                if (direction.writer.done().isCompletedExceptionally()) {
                    direction.writer.done().join();
                }
                if (direction.received.isCompletedExceptionally()) {
                    direction.received.join();
                }
                done &= direction.writer.done().isDone() && direction.received.isDone();
                received += direction.reader.receivedBytes();
            }
            if (done) {
                return;
            }
            if (received != lastReceived) {
                lastReceived = received;
                movedAt = System.nanoTime();
            } else if (System.nanoTime() - movedAt > TimeUnit.SECONDS.toNanos(STALL_SECONDS)) {
                StringBuilder state = new StringBuilder("no byte moved for " + STALL_SECONDS + " s:");
                for (Direction direction : all) {
                    state.append("\n  ").append(direction);
                }
                throw new AssertionError(state.toString());
            }
            Thread.sleep(100);
        }
    }

    /** One direction of one connection: its writer at one end, its reader at the other. */
    private static final class Direction {
        final String name;
        final long length;
        final StreamWriter writer;
        final StreamReader reader;
        final CompletableFuture<StreamDigest> received;

        Direction(String name, long seed, long length) {
            this.name = name;
            this.length = length;
            writer = new StreamWriter(seed, WritePlan.of(seed, length, MAX_WRITE));
            reader = new StreamReader(seed);
            received = reader.digestAt(length);
        }

        @Override
        public String toString() {
            return name + ": queued " + writer.queuedBytes() + ", confirmed " + writer.confirmedBytes() + ", read "
                    + reader.receivedBytes() + " of " + length;
        }
    }
}
