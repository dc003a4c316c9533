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
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaByteBufAllocator;
import org.nettyrdma.channel.rdma.RdmaChannelMetrics;
import org.nettyrdma.channel.rdma.RdmaChannelOption;
import org.nettyrdma.channel.rdma.RdmaMemoryMetrics;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.testkit.Await;
import org.nettyrdma.testkit.DeviceResources;
import org.nettyrdma.testkit.RdmaTransportFixture;
import org.nettyrdma.testkit.RingsOnEveryDevice;
import org.nettyrdma.testkit.StreamReader;
import org.nettyrdma.testkit.TestStream;

/**
 * Large writes of buffers from the channel's allocator travel by RDMA Write from where the pipeline
 * wrote them (the channel copies nothing), buffers of other allocators are copied once and counted,
 * an empty write completes, and the receiver gets every byte in order either way. The channels'
 * {@link RdmaChannelMetrics} count each of those Writes on both sides. The channels open rings as on
 * a device whose windows confine a peer ({@link RingsOnEveryDevice}): on rxe by default there is no
 * ring, and a large write goes by Sends, copied. A ring opens when the first large write asks for one
 * and grows as the stream goes through it: each test first writes until the client sees the largest
 * ring open ({@link #openLargestRing}).
 */
@ExtendWith(RingsOnEveryDevice.class)
class ZeroCopySendTest {

    private static final int WRITE = 64 * 1024;
    /**
     * Half the peer's largest ring (SO_RCVBUF, 1 MiB): a write that finds the ring full goes on as
     * Sends, which copy, so that a receiver holding ring regions cannot stall the sender.
     */
    private static final int WRITES = 8;
    /** The largest ring a peer opens by default: SO_RCVBUF. */
    private static final int LARGEST_RING = 1 << 20;
    private static final long SEED = 11;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    @Test
    void registeredBuffersAreSentWithoutACopyAndOthersWithOne() throws Exception {
        TestStream stream = new TestStream(SEED);
        StreamReader reader = new StreamReader(SEED);
        StreamPair pair = connect(reader);
        Channel server = pair.server();
        RdmaSocketChannel client = pair.client();
        assertSame(RdmaByteBufAllocator.DEFAULT, client.alloc(), "the channel's default allocator");
        long start = openLargestRing(client, stream);
        RdmaSocketChannel child = pair.child();
        // Read to the end, so the child has taken every receive of the warm-up before it is counted.
        reader.awaitReceived(start, 60);
        RdmaChannelMetrics sentBefore = client.metrics();
        RdmaChannelMetrics receivedBefore = child.metrics();

        for (int i = 0; i < WRITES; i++) {
            ByteBuf buf = client.alloc().directBuffer(WRITE);
            stream.write(buf, start + (long) i * WRITE, WRITE);
            client.write(buf);
        }
        client.flush();
        client.writeAndFlush(Unpooled.EMPTY_BUFFER).sync();
        RdmaChannelMetrics sent = client.metrics();
        assertEquals(0, sent.copiedBytes() - sentBefore.copiedBytes(), "bytes copied of registered buffers: " + sent);
        assertEquals(WRITES, sent.rdmaWrites() - sentBefore.rdmaWrites(), "one RDMA Write per buffer: " + sent);
        assertEquals((long) WRITES * WRITE, sent.rdmaWriteBytes() - sentBefore.rdmaWriteBytes(),
                "bytes written: " + sent);
        assertEquals(0, sent.sends() - sentBefore.sends(), "no data Send: " + sent);
        assertTrue(RdmaByteBufAllocator.registeredBytes() > 0, "allocator memory registered with the device");

        ByteBuf heap = Unpooled.buffer(WRITE);
        stream.write(heap, start + (long) WRITES * WRITE, WRITE);
        client.writeAndFlush(heap).sync();
        assertEquals(WRITE, client.metrics().copiedBytes() - sentBefore.copiedBytes(), "bytes copied of a heap buffer");

        long total = start + (WRITES + 1L) * WRITE;
        assertEquals(total, reader.digestAt(total).get(60, TimeUnit.SECONDS).length());
        RdmaChannelMetrics received = child.metrics();
        assertEquals(WRITES + 1, received.receivedWrites() - receivedBefore.receivedWrites(),
                "RDMA Writes that landed in the ring: " + received);
        assertEquals(total, received.receivedBytes(), "bytes received: " + received);
        assertTrue(received.registeredBytes() >= LARGEST_RING, "the child's ring among its registered memory: "
                + received);
        long writesInAll = client.metrics().rdmaWrites();
        client.close().sync();
        // A closing connection waits for its CLOSE message to complete, then frees its memory.
        Await.until(() -> client.metrics().registeredBytes() == 0, 10,
                () -> "still registered after close: " + client.metrics());
        assertEquals(writesInAll, client.metrics().rdmaWrites(), "the totals stay after close");
        server.close().sync();
    }

    /**
     * Writes registered buffers of {@link #WRITE} bytes, the stream's first, until the client sees the
     * largest ring open at the server: the first asks for a ring and goes by Sends, and the ring grows
     * as the stream goes through it (docs/decisions.md#rings-on-demand).
     *
     * @return the bytes written
     */
    private static long openLargestRing(RdmaSocketChannel client, TestStream stream) throws InterruptedException {
        long written = 0;
        while (client.metrics().peerRingSize() < LARGEST_RING) {
            assertTrue(written < 64L * LARGEST_RING, () -> "the ring did not grow: " + client.metrics());
            ByteBuf buf = client.alloc().directBuffer(WRITE);
            stream.write(buf, written, WRITE);
            client.writeAndFlush(buf).sync();
            written += WRITE;
        }
        return written;
    }

    /**
     * A reader that releases each buffer at once returns ring space a quarter of the ring at a time,
     * not after every Write: a {@code CREDIT} costs a Send and a receive completion (docs/protocol.md,
     * "Returning credits").
     */
    @Test
    void aReaderThatReleasesAtOnceReturnsRingCreditByTheQuarter() throws Exception {
        int writes = 32;
        TestStream stream = new TestStream(SEED);
        StreamReader reader = new StreamReader(SEED);
        StreamPair pair = connect(reader);
        RdmaSocketChannel client = pair.client();
        long start = openLargestRing(client, stream);
        RdmaSocketChannel child = pair.child();
        reader.awaitReceived(start, 60);
        RdmaChannelMetrics before = child.metrics();
        for (int i = 0; i < writes; i++) {
            ByteBuf buf = client.alloc().directBuffer(WRITE);
            stream.write(buf, start + (long) i * WRITE, WRITE);
            if (i % 4 == 3) {
                client.writeAndFlush(buf).sync();
            } else {
                client.write(buf);
            }
        }
        long bytes = (long) writes * WRITE;
        assertEquals(start + bytes, reader.digestAt(start + bytes).get(60, TimeUnit.SECONDS).length());
        RdmaChannelMetrics received = child.metrics();
        assertEquals(start + bytes, received.receivedBytes(), "bytes received: " + received);
        // Meanwhile the reader sends nothing but CREDITs: one per quarter of the ring's bytes (1 MiB, the
        // largest ring, which the stream opened first), one per half of the writer's share of slots (64,
        // grown while the ring opened), whichever comes first. Sends the writer fell back to when it found
        // the ring full count as slots; returning at every release would send one per Write.
        long messages = received.receivedWrites() + received.receivedSends()
                - before.receivedWrites() - before.receivedSends();
        long bound = bytes / (LARGEST_RING / 4) + messages / 32 + 1;
        long controls = received.controlMessages() - before.controlMessages();
        assertTrue(controls <= bound, () -> "CREDITs at most " + bound + " for " + messages + " messages, "
                + controls + " sent: " + received);
        client.close().sync();
        pair.server().close().sync();
    }

    /**
     * After a burst of large registered buffers, all in use at once and all sent, the allocator keeps
     * what it retains and deregisters the rest from the device: the transport's count and the
     * kernel's both drop, and every byte arrived.
     */
    @Test
    void afterABurstTheAllocatorDeregistersWhatItDoesNotRetain() throws Exception {
        int size = 4 * 1024 * 1024;
        long retained = RdmaByteBufAllocator.retainedBytes();
        // Twice what the pool keeps, each buffer a slab of its own: at least half is released after.
        int buffers = (int) (2 * retained / size);
        TestStream stream = new TestStream(SEED);
        StreamReader reader = new StreamReader(SEED);
        StreamPair pair = connect(reader);
        RdmaSocketChannel client = pair.client();
        // The server's ring is open at its largest before the burst, kept for it (RING_IDLE_MILLIS 0).
        long start = openLargestRing(client, stream);
        reader.awaitReceived(start, 60);
        long writtenBefore = client.metrics().rdmaWriteBytes();
        long registeredBefore = RdmaByteBufAllocator.registeredBytes();
        int kernelRegionsBefore = DeviceResources.kernelMemoryRegions();
        RdmaMemoryMetrics memoryBefore = RdmaMemoryMetrics.snapshot();

        List<ByteBuf> burst = new ArrayList<>();
        for (int i = 0; i < buffers; i++) {
            ByteBuf buf = client.alloc().directBuffer(size);
            stream.write(buf, start + (long) i * size, size);
            burst.add(buf);
        }
        long pooledInBurst = RdmaByteBufAllocator.pooledBytes();
        assertTrue(pooledInBurst >= (long) buffers * size, "the pool holds the burst: " + pooledInBurst);
        for (ByteBuf buf : burst) {
            client.write(buf);
        }
        client.writeAndFlush(Unpooled.EMPTY_BUFFER).sync();
        long total = (long) buffers * size;
        assertEquals(start + total, reader.digestAt(start + total).get(120, TimeUnit.SECONDS).length());
        // Most went by RDMA Write from the buffers (a ring that is full sends the rest as Sends, which copy).
        assertTrue(client.metrics().rdmaWriteBytes() - writtenBefore > total / 2,
                () -> "written in place: " + client.metrics());

        // Each buffer went back to the pool when its last Write completed, before the empty write's
        // promise: the pool keeps at most `retained` of them, registered, and lets the others go once
        // they stayed unused for its release delay.
        awaitReleased(pooledInBurst - (total - retained), registeredBefore + retained);
        long pooledAfter = RdmaByteBufAllocator.pooledBytes();
        assertTrue(pooledAfter <= pooledInBurst - (total - retained), () -> "pooled " + pooledAfter
                + " B after the burst, " + pooledInBurst + " B in it; at most " + retained + " B kept");
        long registeredAfter = RdmaByteBufAllocator.registeredBytes();
        assertTrue(registeredAfter <= registeredBefore + retained, () -> "registered " + registeredAfter
                + " B after the burst, " + registeredBefore + " B before it");
        int kernelRegionsAfter = DeviceResources.kernelMemoryRegions();
        RdmaMemoryMetrics memoryAfter = RdmaMemoryMetrics.snapshot();
        int keptRegions = (int) (retained / size);
        // The device's count holds the loops' shared receive queues too, which the burst may have grown
        // (a share grows with traffic, and their chunks stay): those are not the allocator's.
        int sharedGrowth = memoryAfter.sharedReceiveRegions() - memoryBefore.sharedReceiveRegions();
        assertTrue(kernelRegionsAfter <= kernelRegionsBefore + keptRegions + sharedGrowth,
                () -> "memory regions on the device: " + kernelRegionsBefore + " before the burst, "
                        + kernelRegionsAfter + " after it, " + sharedGrowth + " of them the shared receive queues' ("
                        + memoryBefore + " before, " + memoryAfter + " after)");
        client.close().sync();
        pair.server().close().sync();
    }

    /**
     * Waits, up to the allocator's release delay and 30 s more, until it pools at most {@code pooled}
     * bytes and has at most {@code registered} bytes registered; the assertions after it say which not.
     */
    private static void awaitReleased(long pooled, long registered) throws InterruptedException {
        long deadline = System.nanoTime()
                + TimeUnit.MILLISECONDS.toNanos(RdmaByteBufAllocator.releaseDelayMillis() + 30_000);
        while ((RdmaByteBufAllocator.pooledBytes() > pooled || RdmaByteBufAllocator.registeredBytes() > registered)
                && System.nanoTime() - deadline < 0) {
            Thread.sleep(50);
        }
    }

    private StreamPair connect(StreamReader reader) throws InterruptedException {
        // The ring the warm-up opened stays while a test measures, however slow the machine.
        return StreamPair.connect(rdma, reader, server -> server.childOption(RdmaChannelOption.RING_IDLE_MILLIS, 0));
    }
}
