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
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelOutboundBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaChannelMetrics;
import org.nettyrdma.channel.rdma.RdmaChannelOption;
import org.nettyrdma.channel.rdma.RdmaMemoryMetrics;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.testkit.Await;
import org.nettyrdma.testkit.RdmaTransportFixture;
import org.nettyrdma.testkit.StreamWriter;
import org.nettyrdma.testkit.TestSeed;
import org.nettyrdma.testkit.WritePlan;

/**
 * A server that does not read ({@code AUTO_READ} off) while the client writes ten times what the
 * server's ring and receive slots hold. Back-pressure must reach the writing application and stop
 * there: the transport sends no more than the reader granted, so the reader is never overrun; the
 * client's channel becomes and stays unwritable; every byte not yet delivered is still in the
 * client's outbound buffer, counted, while the transport's own (registered) memory does not grow
 * beyond the reader's ring, which opens with the first large write where rings open (the rings part
 * of the device tests), and stays as it is while the writer is stalled. Once the server reads again,
 * the whole stream arrives in order.
 */
class RdmaSlowReaderTest {

    private static final int RING = 256 << 10;
    private static final int SLOTS = 16;
    /** The most the server can hold unread: its ring, and a Send's payload in every slot. */
    private static final long SERVER_CAPACITY = RING + (long) SLOTS * WritePlan.SEND_THRESHOLD;
    private static final long TOTAL = 4L << 20;
    private static final int MAX_WRITE = 128 << 10;
    /** Netty counts each outbound entry at its size plus this much (ChannelOutboundBuffer's default). */
    private static final int ENTRY_OVERHEAD = 96;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    @Test
    void writerStopsAtTheReadersWindowAndEverythingArrivesOnceItReads(TestInfo test) throws Exception {
        long seed = TestSeed.of(test);
        OneWayTransfer transfer = OneWayTransfer.start(rdma, seed, WritePlan.of(seed, TOTAL, MAX_WRITE),
                server -> server.childOption(ChannelOption.AUTO_READ, false)
                        .childOption(ChannelOption.SO_RCVBUF, RING)
                        .childOption(RdmaChannelOption.RECEIVE_SLOTS, SLOTS)
                        .childOption(RdmaChannelOption.SLOT_SIZE, WritePlan.SLOT_SIZE),
                client -> client);
        Channel client = transfer.client;
        StreamWriter writer = transfer.writer;

        // Wait until the writer is blocked and the transport had every chance to send more.
        Await.until(() -> !client.isWritable(), 60, () -> "the client never became unwritable; queued "
                + writer.queuedBytes() + ", confirmed " + writer.confirmedBytes());
        awaitNoProgress(writer);
        long registeredWhenStalled = RdmaMemoryMetrics.snapshot().connectionBytes();
        assertTrue(registeredWhenStalled <= RING, () -> "the connections' own registered memory: "
                + registeredWhenStalled + " bytes, more than the reader's ring of " + RING);

        Stalled stalled = client.eventLoop().submit(() -> Stalled.of(client, writer)).get(10, TimeUnit.SECONDS);
        assertEquals(0, transfer.reader.receivedBytes(), "the server read nothing with AUTO_READ off");
        assertTrue(stalled.confirmed <= SERVER_CAPACITY, () -> "the client delivered " + stalled.confirmed
                + " bytes, more than the " + SERVER_CAPACITY + " the server can hold unread: " + stalled);
        assertFalse(stalled.writable, () -> "the client is writable again while nothing was read: " + stalled);
        assertEquals(0, stalled.bytesBeforeUnwritable, () -> "bytesBeforeUnwritable: " + stalled);
        assertTrue(stalled.queued < TOTAL, () -> "back-pressure did not stop the writer: " + stalled);
        long undelivered = stalled.queued - stalled.confirmed;
        assertTrue(stalled.pending >= undelivered
                && stalled.pending <= undelivered + (long) ENTRY_OVERHEAD * stalled.pendingWrites,
                () -> "the outbound buffer holds exactly the undelivered writes: " + stalled);
        awaitNoProgress(writer);
        assertEquals(registeredWhenStalled, RdmaMemoryMetrics.snapshot().connectionBytes(),
                "registered memory changed while the writes piled up");
        assertTrue(transfer.child.isActive(), "the reader's channel is still up");
        assertEquals(List.of(), transfer.serverErrors.exceptions(), "server exceptions while not reading");
        RdmaChannelMetrics metrics = ((RdmaSocketChannel) client).metrics();
        assertTrue(metrics.creditStalls() > 0, () -> "the writer's stalls for want of credit: " + metrics);

        transfer.child.config().setAutoRead(true);
        transfer.assertDeliveredAndClose(TOTAL);
    }

    /** Waits until the confirmed bytes stayed the same for a second (deliveries stopped). */
    private static void awaitNoProgress(StreamWriter writer) throws InterruptedException {
        long[] last = {-1};
        long[] sameSince = {System.nanoTime()};
        Await.until(() -> {
            long now = System.nanoTime();
            if (writer.confirmedBytes() != last[0]) {
                last[0] = writer.confirmedBytes();
                sameSince[0] = now;
            }
            return now - sameSince[0] > TimeUnit.SECONDS.toNanos(1);
        }, 60, () -> "deliveries to a server that does not read never stopped: " + writer.confirmedBytes());
    }

    /** The client's state while blocked, read on its event loop so the numbers agree. */
    private record Stalled(boolean writable, long bytesBeforeUnwritable, long pending, long queued, long confirmed,
                           int pendingWrites) {
        static Stalled of(Channel client, StreamWriter writer) {
            ChannelOutboundBuffer out = client.unsafe().outboundBuffer();
            return new Stalled(client.isWritable(), client.bytesBeforeUnwritable(), out.totalPendingWriteBytes(),
                    writer.queuedBytes(), writer.confirmedBytes(), writer.pendingWrites());
        }
    }
}
