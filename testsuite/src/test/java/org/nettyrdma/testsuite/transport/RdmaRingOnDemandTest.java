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

import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaChannelMetrics;
import org.nettyrdma.channel.rdma.RdmaChannelOption;
import org.nettyrdma.channel.rdma.RdmaMemoryMetrics;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.testkit.Await;
import org.nettyrdma.testkit.RdmaTransportFixture;
import org.nettyrdma.testkit.RingsOnEveryDevice;
import org.nettyrdma.testkit.StreamReader;
import org.nettyrdma.testkit.TestSeed;
import org.nettyrdma.testkit.TestStream;
import org.nettyrdma.testkit.WritePlan;

/**
 * Rings on demand (docs/decisions.md#rings-on-demand): a connection holds no ring while its peer
 * sends only what fits a receive slot; the first larger write asks for one, a stream through it makes
 * it grow up to {@code SO_RCVBUF}, and once the Writes stop it goes, its registration with it, until
 * large writes come back and a new one opens. Every byte arrives in order across the rings. The
 * channels open rings as on a device whose windows confine a peer ({@link RingsOnEveryDevice}).
 */
@ExtendWith(RingsOnEveryDevice.class)
class RdmaRingOnDemandTest {

    private static final int WRITE = 64 * 1024;
    private static final int LARGEST_RING = 1 << 20;
    /** The first ring a peer gets; written through four times, it grows. */
    private static final int FIRST_RING = 256 * 1024;
    /** Large writes that go through the first ring twice: not enough to grow it. */
    private static final int BURST = 2 * FIRST_RING / WRITE;
    /** Short, so that a test sees the ring go; the idle check looks twice before it closes. */
    private static final int RING_IDLE_MILLIS = 500;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    @Test
    void aRingOpensForLargeWritesAndGoesWhenTheyStop(TestInfo test) throws Exception {
        TestStream stream = new TestStream(TestSeed.of(test));
        StreamReader reader = new StreamReader(stream.seed());
        StreamPair pair = connect(reader);
        RdmaSocketChannel client = pair.client();
        RdmaSocketChannel child = pair.child();
        // Regions of the connections' own, not the shared receive queues' or the allocator's, which grow with traffic.
        int regionsConnected = RdmaMemoryMetrics.snapshot().connectionRegions();

        long position = write(client, stream, 0, 4, 1000);
        reader.awaitReceived(position, 60);
        RdmaChannelMetrics small = child.metrics();
        assertEquals(0, small.ringsOpened(), () -> "a ring for writes a slot takes: " + small);
        assertEquals(0, client.metrics().peerRingSize(), () -> "the client's view: " + client.metrics());
        assertEquals(0, client.metrics().rdmaWrites(), () -> "RDMA Writes without a ring: " + client.metrics());

        position = write(client, stream, position, BURST, WRITE);
        reader.awaitReceived(position, 60);
        RdmaChannelMetrics streamed = child.metrics();
        // One, or more if the writer found it full before credit came back and asked for a larger one.
        assertTrue(streamed.ringsOpened() >= 1, () -> "a ring for the large writes: " + streamed);
        assertTrue(streamed.receivedWrites() > 0, () -> "RDMA Writes into it: " + streamed);

        // No Write for a while: every ring the server opened closes (a larger one may still open first,
        // if the stream asked for it, and close in turn), the client releases it, and it is deregistered.
        awaitIdle(client, child, regionsConnected);
        Thread.sleep(2 * RING_IDLE_MILLIS);
        awaitIdle(client, child, regionsConnected);
        RdmaChannelMetrics idle = child.metrics();
        Thread.sleep(2 * RING_IDLE_MILLIS);
        assertEquals(idle.ringsOpened(), child.metrics().ringsOpened(), () -> "a ring opened while the client "
                + "wrote nothing: " + child.metrics());

        // Large writes again: a new ring, with a new key, and the stream goes on intact.
        long before = client.metrics().rdmaWrites();
        position = write(client, stream, position, BURST, WRITE);
        assertEquals(position, reader.digestAt(position).get(60, TimeUnit.SECONDS).length());
        RdmaChannelMetrics again = child.metrics();
        assertTrue(again.ringsOpened() > idle.ringsOpened(), () -> "a new ring: " + again);
        assertTrue(client.metrics().rdmaWrites() > before, () -> "RDMA Writes into it: " + client.metrics());
        pair.close();
    }

    @Test
    void aStreamGrowsItsRingToTheLargest(TestInfo test) throws Exception {
        TestStream stream = new TestStream(TestSeed.of(test));
        StreamReader reader = new StreamReader(stream.seed());
        StreamPair pair = connect(reader);
        RdmaSocketChannel child = pair.child();
        long position = 0;
        while (pair.client().metrics().peerRingSize() < LARGEST_RING) {
            assertTrue(position < 64L * LARGEST_RING, () -> "the ring did not grow: " + child.metrics());
            position = write(pair.client(), stream, position, 4, WRITE);
        }
        assertEquals(position, reader.digestAt(position).get(60, TimeUnit.SECONDS).length());
        RdmaChannelMetrics grown = child.metrics();
        // 256 KiB, 512 KiB, 1 MiB: each closed as the next opened.
        assertEquals(3, grown.ringsOpened(), () -> "rings on the way to the largest: " + grown);
        // The largest may have gone idle since, and closed too.
        assertTrue(grown.ringsClosed() >= 2, () -> "rings closed on the way: " + grown);
        pair.close();
    }

    /**
     * A reader that stops reading holds its ring's regions: the writer finds the ring full, goes on
     * in Sends until the slots run out too, and asks for a larger ring. None opens while the old one's
     * regions wait to be read, so the paused reader holds one ring and its slots, however long the
     * writer goes on. Reading again, the reader gets the ring's bytes and the Sends' in the order
     * written, and the larger ring opens then.
     */
    @Test
    void aReaderThatPausesHoldsOneRingAndGetsTheStreamInOrder(TestInfo test) throws Exception {
        TestStream stream = new TestStream(TestSeed.of(test));
        StreamReader reader = new StreamReader(stream.seed());
        StreamPair pair = connect(reader, false);
        RdmaSocketChannel client = pair.client();
        RdmaSocketChannel child = pair.child();
        // Writes without waiting: the reader holds everything until it reads.
        long total = 0;
        for (int i = 0; i < 40; i++) {
            ByteBuf buf = client.alloc().directBuffer(WRITE);
            stream.write(buf, total, WRITE);
            client.write(buf);
            total += WRITE;
        }
        client.flush();
        Await.until(() -> child.metrics().receivedWrites() > 0 && client.metrics().creditStalls() > 0, 60,
                () -> "the writer stalled on the paused reader: " + client.metrics() + "; " + child.metrics());
        // The writer's request and the ring's close go back and forth for a while, if at all.
        Thread.sleep(2 * RING_IDLE_MILLIS);
        RdmaChannelMetrics paused = child.metrics();
        assertEquals(1, paused.ringsOpened(), () -> "rings opened while the reader paused: " + paused);
        assertTrue(paused.registeredBytes() <= FIRST_RING + 64L * WritePlan.SLOT_SIZE,
                () -> "the paused reader holds one ring and its slots: " + paused);

        child.config().setAutoRead(true);
        long written = total;
        assertEquals(written, reader.digestAt(written).get(120, TimeUnit.SECONDS).length());
        RdmaChannelMetrics metrics = child.metrics();
        assertTrue(metrics.receivedWrites() > 0 && metrics.receivedSends() > 0,
                () -> "bytes by Write and by Send: " + metrics);
        pair.close();
    }

    /** Waits until every ring the child opened is closed and released, and its region deregistered. */
    private static void awaitIdle(RdmaSocketChannel client, RdmaSocketChannel child, int regionsConnected)
            throws InterruptedException {
        Await.until(() -> allClosed(child.metrics()) && client.metrics().peerRingSize() == 0
                        && RdmaMemoryMetrics.snapshot().connectionRegions() == regionsConnected, 30,
                () -> "the idle rings went: " + child.metrics() + "; the connections' memory regions: "
                        + RdmaMemoryMetrics.snapshot() + ", " + regionsConnected + " once connected");
    }

    private static boolean allClosed(RdmaChannelMetrics metrics) {
        return metrics.ringsOpened() > 0 && metrics.ringsClosed() == metrics.ringsOpened();
    }

    /** Writes {@code count} registered buffers of {@code size} bytes of the stream from {@code position}, each flushed. */
    private static long write(RdmaSocketChannel client, TestStream stream, long position, int count, int size)
            throws InterruptedException {
        for (int i = 0; i < count; i++) {
            ByteBuf buf = client.alloc().directBuffer(size);
            stream.write(buf, position, size);
            client.writeAndFlush(buf).sync();
            position += size;
        }
        return position;
    }

    private StreamPair connect(StreamReader reader) throws InterruptedException {
        return connect(reader, true);
    }

    private StreamPair connect(StreamReader reader, boolean autoRead) throws InterruptedException {
        return StreamPair.connect(rdma, reader, server -> server
                .childOption(RdmaChannelOption.RING_IDLE_MILLIS, RING_IDLE_MILLIS)
                .childOption(ChannelOption.AUTO_READ, autoRead));
    }
}
