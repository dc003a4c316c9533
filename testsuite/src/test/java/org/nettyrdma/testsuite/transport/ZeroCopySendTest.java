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
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaByteBufAllocator;
import org.nettyrdma.channel.rdma.RdmaChannelMetrics;
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
 * ring, and a large write goes by Sends, copied.
 */
@ExtendWith(RingsOnEveryDevice.class)
class ZeroCopySendTest {

    private static final int WRITE = 64 * 1024;
    /**
     * Half the peer's ring (SO_RCVBUF, 1 MiB): a write that finds the ring full goes on as Sends,
     * which copy, so that a receiver holding ring regions cannot stall the sender.
     */
    private static final int WRITES = 8;
    private static final long SEED = 11;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    @Test
    void registeredBuffersAreSentWithoutACopyAndOthersWithOne() throws Exception {
        TestStream stream = new TestStream(SEED);
        StreamReader reader = new StreamReader(SEED);
        Pair pair = connect(reader);
        Channel server = pair.server();
        RdmaSocketChannel client = pair.client();
        BlockingQueue<RdmaSocketChannel> children = pair.children();
        assertSame(RdmaByteBufAllocator.DEFAULT, client.alloc(), "the channel's default allocator");

        for (int i = 0; i < WRITES; i++) {
            ByteBuf buf = client.alloc().directBuffer(WRITE);
            stream.write(buf, (long) i * WRITE, WRITE);
            client.write(buf);
        }
        client.flush();
        client.writeAndFlush(Unpooled.EMPTY_BUFFER).sync();
        RdmaChannelMetrics sent = client.metrics();
        assertEquals(0, sent.copiedBytes(), "bytes copied of registered buffers: " + sent);
        assertEquals(WRITES, sent.rdmaWrites(), "one RDMA Write per buffer: " + sent);
        assertEquals((long) WRITES * WRITE, sent.rdmaWriteBytes(), "bytes written: " + sent);
        assertEquals(0, sent.sends(), "no data Send: " + sent);
        assertTrue(RdmaByteBufAllocator.registeredBytes() > 0, "allocator memory registered with the device");

        ByteBuf heap = Unpooled.buffer(WRITE);
        stream.write(heap, (long) WRITES * WRITE, WRITE);
        client.writeAndFlush(heap).sync();
        assertEquals(WRITE, client.metrics().copiedBytes(), "bytes copied of a heap buffer");

        long total = (WRITES + 1L) * WRITE;
        assertEquals(total, reader.digestAt(total).get(60, TimeUnit.SECONDS).length());
        RdmaChannelMetrics received = children.poll(10, TimeUnit.SECONDS).metrics();
        assertEquals(WRITES + 1, received.receivedWrites(), "RDMA Writes that landed in the ring: " + received);
        assertEquals(total, received.receivedBytes(), "bytes received: " + received);
        assertTrue(received.registeredBytes() > 0, "the child's own registered memory: " + received);
        client.close().sync();
        // A closing connection waits for its CLOSE message to complete, then frees its memory.
        Await.until(() -> client.metrics().registeredBytes() == 0, 10,
                () -> "still registered after close: " + client.metrics());
        assertEquals(WRITES + 1, client.metrics().rdmaWrites(), "the totals stay after close");
        server.close().sync();
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
        Pair pair = connect(reader);
        RdmaSocketChannel client = pair.client();
        for (int i = 0; i < writes; i++) {
            ByteBuf buf = client.alloc().directBuffer(WRITE);
            stream.write(buf, (long) i * WRITE, WRITE);
            if (i % 4 == 3) {
                client.writeAndFlush(buf).sync();
            } else {
                client.write(buf);
            }
        }
        long total = (long) writes * WRITE;
        assertEquals(total, reader.digestAt(total).get(60, TimeUnit.SECONDS).length());
        RdmaChannelMetrics received = pair.children().poll(10, TimeUnit.SECONDS).metrics();
        assertEquals(total, received.receivedBytes(), "bytes received: " + received);
        // The reader sends nothing but its HELLO and CREDITs: one per quarter of the ring's bytes (1 MiB,
        // SO_RCVBUF), one per half of the writer's share of slots, whichever comes first. Sends the writer
        // fell back to when it found the ring full count as slots; returning at every release would send
        // one per Write. The share starts at 4 slots and grows to 64 in two steps (docs/decisions.md,
        // "Shared receive queue"): a CREDIT at each, and one per half of the share of 4 and of 16 on the way.
        long messages = received.receivedWrites() + received.receivedSends();
        long ramp = 2 + 1 + 1;
        long bound = 1 + total / (256 * 1024) + messages / 32 + 1 + ramp;
        assertTrue(received.controlMessages() <= bound, () -> "control messages (HELLO and CREDITs) at most "
                + bound + " for " + messages + " messages: " + received);
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
        Pair pair = connect(reader);
        RdmaSocketChannel client = pair.client();
        long registeredBefore = RdmaByteBufAllocator.registeredBytes();
        int kernelRegionsBefore = DeviceResources.kernelMemoryRegions();
        RdmaMemoryMetrics memoryBefore = RdmaMemoryMetrics.snapshot();

        List<ByteBuf> burst = new ArrayList<>();
        for (int i = 0; i < buffers; i++) {
            ByteBuf buf = client.alloc().directBuffer(size);
            stream.write(buf, (long) i * size, size);
            burst.add(buf);
        }
        long pooledInBurst = RdmaByteBufAllocator.pooledBytes();
        assertTrue(pooledInBurst >= (long) buffers * size, "the pool holds the burst: " + pooledInBurst);
        for (ByteBuf buf : burst) {
            client.write(buf);
        }
        client.writeAndFlush(Unpooled.EMPTY_BUFFER).sync();
        long total = (long) buffers * size;
        assertEquals(total, reader.digestAt(total).get(120, TimeUnit.SECONDS).length());
        // Most went by RDMA Write from the buffers (a ring that is full sends the rest as Sends, which copy).
        assertTrue(client.metrics().rdmaWriteBytes() > total / 2, () -> "written in place: " + client.metrics());

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

    /** A server whose accepted channels read with {@code reader} (queued in {@code children}), and a client of it. */
    private record Pair(Channel server, RdmaSocketChannel client, BlockingQueue<RdmaSocketChannel> children) {
    }

    private Pair connect(StreamReader reader) throws InterruptedException {
        BlockingQueue<RdmaSocketChannel> children = new LinkedBlockingQueue<>();
        Channel server = rdma.bind(rdma.server().childHandler(new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                children.add((RdmaSocketChannel) ch);
                ch.pipeline().addLast(reader);
            }
        }));
        RdmaSocketChannel client = (RdmaSocketChannel) rdma.client().handler(new ChannelInboundHandlerAdapter())
                .connect(server.localAddress()).sync().channel();
        return new Pair(server, client, children);
    }
}
