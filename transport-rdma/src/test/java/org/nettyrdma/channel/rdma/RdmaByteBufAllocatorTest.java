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
package org.nettyrdma.channel.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.buffer.ByteBuf;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.concurrent.FastThreadLocalThread;
import org.junit.jupiter.api.Test;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.channel.rdma.memory.RegisteredSlab;

/** The channel's default allocator, without a device: which buffers are registered memory, and growth. */
class RdmaByteBufAllocatorTest {

    private final RdmaByteBufAllocator alloc = RdmaByteBufAllocator.DEFAULT;

    @Test
    void directBuffersAreRegisteredMemoryOfTheRequestedCapacity() {
        ByteBuf buf = alloc.directBuffer(65536);
        try {
            assertEquals(65536, buf.capacity());
            assertTrue(buf.isDirect());
            assertNotNull(RegisteredSlab.find(addressOf(buf), buf.capacity()));
            assertTrue(alloc.isDirectBufferPooled());
            assertEquals(buf.capacity(), alloc.buffer(65536).release() ? 65536 : -1);
        } finally {
            buf.release();
        }
    }

    @Test
    void heapSmallAndOversizedBuffersComeFromTheDefaultAllocator() {
        ByteBuf heap = alloc.heapBuffer(100);
        ByteBuf small = alloc.directBuffer(100);
        ByteBuf huge = alloc.directBuffer(8 * 1024 * 1024);
        try {
            assertFalse(heap.isDirect());
            assertNull(RegisteredSlab.find(addressOf(small), 1), "a buffer that travels in a Send");
            assertNull(RegisteredSlab.find(addressOf(huge), 1));
        } finally {
            heap.release();
            small.release();
            huge.release();
        }
    }

    @Test
    void aGrowingBufferMovesToALargerBlockAndKeepsItsBytes() {
        ByteBuf buf = alloc.directBuffer(8192);
        try {
            for (int i = 0; i < 10_000; i++) {
                buf.writeInt(i);
            }
            assertNotNull(RegisteredSlab.find(addressOf(buf), buf.capacity()));
            for (int i = 0; i < 10_000; i++) {
                assertEquals(i, buf.readInt());
            }
        } finally {
            buf.release();
        }
    }

    @Test
    void aReleasedBlockServesTheNextBufferOfItsSize() {
        ByteBuf first = alloc.directBuffer(30_000);
        long address = addressOf(first);
        first.release();
        ByteBuf second = alloc.directBuffer(30_000);
        try {
            // Blocks are reused last-in first-out, so a steady state allocates no new memory.
            assertEquals(address, addressOf(second));
        } finally {
            second.release();
        }
    }

    @Test
    void allocatingAndReleasingOnAnEventLoopThreadMakesNoGarbage() throws Exception {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        AtomicLong allocated = new AtomicLong(-1);
        // The leak detector's samples are garbage by design (a stack trace per 128 buffers); measure without.
        ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        // Netty's event loops are FastThreadLocalThreads: only there does the recycler pool objects.
        Thread thread = new FastThreadLocalThread(() -> {
            // The steady state: the first rounds initialise classes and run before the JIT compiled the path.
            long least = Long.MAX_VALUE;
            for (int round = 0; round < 20 && least >= 10_000; round++) {
                long before = threads.getCurrentThreadAllocatedBytes();
                cycle(10_000);
                least = Math.min(least, threads.getCurrentThreadAllocatedBytes() - before);
            }
            allocated.set(least);
        });
        thread.start();
        try {
            thread.join();
        } finally {
            ResourceLeakDetector.setLevel(level);
        }
        assertTrue(allocated.get() >= 0, "the thread did not finish");
        assertTrue(allocated.get() < 10_000, allocated.get() + " bytes for 10000 buffers");
    }

    private void cycle(int buffers) {
        for (int i = 0; i < buffers; i++) {
            ByteBuf buf = alloc.directBuffer(65536);
            buf.writeLong(i);
            buf.release();
        }
    }

    private static long addressOf(ByteBuf buf) {
        ByteBuffer nio = buf.internalNioBuffer(0, 1);
        assertInstanceOf(ByteBuffer.class, nio);
        return RdmaNative.directBufferAddress(nio) + nio.position();
    }
}
