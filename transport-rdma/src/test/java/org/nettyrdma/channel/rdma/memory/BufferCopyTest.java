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
package org.nettyrdma.channel.rdma.memory;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.IntFunction;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.concurrent.FastThreadLocalThread;
import org.junit.jupiter.api.Test;

class BufferCopyTest {

    private static final int SIZE = 256;

    /**
     * The kinds of buffer a copy meets: a user's heap, pooled, wrapped or composite buffer, a view of the
     * transport's (a received slot, a block) and a slice of one.
     */
    private static final List<IntFunction<ByteBuf>> KINDS = List.of(
            BufferCopyTest::view,
            size -> view(size * 2).slice(size / 2, size),
            Unpooled::buffer,
            Unpooled::directBuffer,
            size -> PooledByteBufAllocator.DEFAULT.heapBuffer(size, size),
            size -> PooledByteBufAllocator.DEFAULT.directBuffer(size, size),
            size -> Unpooled.wrappedBuffer(ByteBuffer.allocateDirect(size)),
            size -> Unpooled.wrappedBuffer(Unpooled.buffer(size / 2, size / 2).writerIndex(size / 2),
                    Unpooled.directBuffer(size / 2, size / 2).writerIndex(size / 2)).writerIndex(0));

    /** Returns a view of the transport's on {@code size} bytes in the middle of fresh direct memory. */
    private static ByteBuf view(int size) {
        return RegionByteBuf.ofRegion(UnpooledByteBufAllocator.DEFAULT, ByteBuffer.allocateDirect(size + 64), 32, size,
                token -> { }, 0);
    }

    @Test
    void copiesTheRangeBetweenEveryKindOfBufferAndMovesNoIndex() {
        for (IntFunction<ByteBuf> srcKind : KINDS) {
            for (IntFunction<ByteBuf> dstKind : KINDS) {
                ByteBuf src = srcKind.apply(SIZE);
                ByteBuf dst = dstKind.apply(SIZE);
                try {
                    for (int i = 0; i < SIZE; i++) {
                        src.setByte(i, i);
                    }
                    dst.setZero(0, SIZE); // a pooled buffer comes back as its last user left it
                    src.setIndex(3, 7);
                    dst.setIndex(5, 9);
                    BufferCopy.copy(src, 10, dst, 100, 120);
                    byte[] expected = new byte[120];
                    src.getBytes(10, expected);
                    byte[] copied = new byte[120];
                    dst.getBytes(100, copied);
                    String kinds = src.getClass().getSimpleName() + " to " + dst.getClass().getSimpleName();
                    assertArrayEquals(expected, copied, kinds);
                    assertEquals(0, dst.getByte(99), kinds);
                    assertEquals(0, dst.getByte(220), kinds);
                    assertEquals(3, src.readerIndex(), kinds);
                    assertEquals(7, src.writerIndex(), kinds);
                    assertEquals(5, dst.readerIndex(), kinds);
                    assertEquals(9, dst.writerIndex(), kinds);
                } finally {
                    src.release();
                    dst.release();
                }
            }
        }
    }

    @Test
    void aRangeOutsideEitherBufferIsRefused() {
        ByteBuf src = Unpooled.directBuffer(SIZE, SIZE);
        ByteBuf dst = Unpooled.directBuffer(SIZE, SIZE);
        try {
            assertThrows(IndexOutOfBoundsException.class, () -> BufferCopy.copy(src, SIZE - 10, dst, 0, 11));
            assertThrows(IndexOutOfBoundsException.class, () -> BufferCopy.copy(src, 0, dst, -1, 11));
            assertThrows(IndexOutOfBoundsException.class, () -> BufferCopy.copy(src, 0, dst, 0, -1));
        } finally {
            src.release();
            dst.release();
        }
    }

    /**
     * A direct buffer and a heap buffer (no memory address, as every buffer is without {@code Unsafe}):
     * the copy between their internal NIO buffers allocates nothing once each made its own.
     */
    @Test
    void copiesThroughInternalBuffersLeaveNoGarbage() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        ByteBuf direct = Unpooled.wrappedBuffer(ByteBuffer.allocateDirect(4096));
        // Wrapped, not allocated: the leak detector, paranoid in these tests, records a stack at each
        // access of a buffer it traces.
        ByteBuf heap = Unpooled.wrappedBuffer(new byte[4096]);
        long least = Long.MAX_VALUE;
        try {
            // Rounds until the JIT compiled the path; the least a round of 10000 copies allocated counts.
            for (int round = 0; round < 20 && least > 0; round++) {
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 10_000; i++) {
                    BufferCopy.copy(direct, i & 1023, heap, 64, 1024);
                    BufferCopy.copy(heap, 32, direct, i & 2047, 2048);
                }
                least = Math.min(least, threads.getCurrentThreadAllocatedBytes() - before);
            }
        } finally {
            direct.release();
            heap.release();
        }
        assertTrue(least < 10_000, least + " bytes for 20000 copies");
    }

    /**
     * A view recycled for each copy, as received slots are, copies to and from a heap and a direct
     * buffer without garbage: it reads its own memory rather than make an internal NIO buffer for each
     * memory it views. Run on a {@link FastThreadLocalThread}, as on an event loop: Netty's recycler
     * keeps objects for such threads only.
     */
    @Test
    void copiesOfRecycledViewsLeaveNoGarbage() throws InterruptedException {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        ByteBuffer slots = ByteBuffer.allocateDirect(8192);
        ByteBuf direct = Unpooled.wrappedBuffer(ByteBuffer.allocateDirect(4096));
        ByteBuf heap = Unpooled.wrappedBuffer(new byte[4096]);
        long[] least = {Long.MAX_VALUE};
        Thread loop = new FastThreadLocalThread(() -> {
            for (int round = 0; round < 20 && least[0] > 0; round++) {
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 10_000; i++) {
                    ByteBuf slot = RegionByteBuf.ofRegion(UnpooledByteBufAllocator.DEFAULT, slots, (i & 1) * 4096,
                            4096, token -> { }, i);
                    BufferCopy.copy(slot, i & 1023, heap, 64, 1024);
                    BufferCopy.copy(direct, 32, slot, i & 2047, 2048);
                    slot.release();
                }
                least[0] = Math.min(least[0], threads.getCurrentThreadAllocatedBytes() - before);
            }
        });
        try {
            loop.start();
            loop.join();
        } finally {
            direct.release();
            heap.release();
        }
        assertTrue(least[0] < 10_000, least[0] + " bytes for 10000 views and 20000 copies");
    }
}
