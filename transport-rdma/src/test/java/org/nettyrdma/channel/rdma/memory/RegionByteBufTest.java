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
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.ScatteringByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.util.IllegalReferenceCountException;
import io.netty.util.concurrent.FastThreadLocalThread;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nettyrdma.channel.rdma.internal.RdmaNative;

/** The recyclable buffer over pool blocks and ring regions, without a device. */
class RegionByteBufTest {

    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

    private final RegisteredMemoryPool pool = new RegisteredMemoryPool(4L * RegisteredMemoryPool.SLAB_SIZE);

    private RegionByteBuf block(int capacity) {
        return RegionByteBuf.ofBlock(ALLOC, pool, pool.allocate(capacity), capacity, Integer.MAX_VALUE);
    }

    @Test
    void everyAccessorReadsAndWritesTheBytesAHeapBufferWould() {
        RegionByteBuf buf = block(64);
        ByteBuf expected = Unpooled.buffer(64);
        try {
            for (ByteBuf b : new ByteBuf[] {buf, expected}) {
                b.writeByte(0x81).writeShort(0x8283).writeShortLE(0x8485).writeMedium(0x868788)
                        .writeMediumLE(0x898a8b).writeInt(0x8c8d8e8f).writeIntLE(0x90919293)
                        .writeLong(0x9495969798999a9bL).writeLongLE(0x9c9d9e9fa0a1a2a3L)
                        .writeFloat(1.5f).writeDoubleLE(-2.25).writeChar('x').writeBoolean(true);
            }
            assertEquals(expected.writerIndex(), buf.writerIndex());
            assertArrayEquals(ByteBufUtil.getBytes(expected), ByteBufUtil.getBytes(buf));
            assertEquals((byte) 0x81, buf.readByte());
            assertEquals((short) 0x8283, buf.readShort());
            assertEquals((short) 0x8485, buf.readShortLE());
            assertEquals(0x868788, buf.readUnsignedMedium());
            assertEquals(0x898a8b, buf.readUnsignedMediumLE());
            assertEquals(0x8c8d8e8f, buf.readInt());
            assertEquals(0x90919293, buf.readIntLE());
            assertEquals(0x9495969798999a9bL, buf.readLong());
            assertEquals(0x9c9d9e9fa0a1a2a3L, buf.readLongLE());
            assertEquals(1.5f, buf.readFloat());
            assertEquals(-2.25, buf.readDoubleLE());
            assertEquals('x', buf.readChar());
            assertTrue(buf.readBoolean());
            assertEquals(0xff868788, buf.getMedium(5));
            assertEquals(0x8b8a89, buf.getMedium(8) & 0xffffff);
            assertEquals(0x8283, buf.getUnsignedShort(1));
        } finally {
            buf.release();
            expected.release();
        }
    }

    @Test
    void bulkCopiesToAndFromEveryKindOfTarget() throws Exception {
        byte[] bytes = new byte[3000];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (i * 7);
        }
        RegionByteBuf buf = block(4096);
        RegionByteBuf other = block(4096);
        ByteBuf heap = Unpooled.buffer(4096);
        ByteBuf direct = Unpooled.directBuffer(4096);
        try {
            buf.setBytes(10, bytes);
            byte[] back = new byte[3000];
            buf.getBytes(10, back);
            assertArrayEquals(bytes, back);

            for (ByteBuf target : new ByteBuf[] {heap, direct, other}) {
                buf.getBytes(10, target, 5, 3000);
                assertArrayEquals(bytes, bytesOf(target, 5, 3000));
                // And back: from the target into another place of the buffer.
                buf.setBytes(3100, target, 5, 500);
                assertArrayEquals(slice(bytes, 0, 500), bytesOf(buf, 3100, 500));
            }

            ByteBuffer nio = ByteBuffer.allocateDirect(100);
            buf.getBytes(10, nio);
            assertEquals(100, nio.position());
            nio.flip();
            buf.setBytes(3700, nio);
            assertFalse(nio.hasRemaining());
            assertArrayEquals(slice(bytes, 0, 100), bytesOf(buf, 3700, 100));

            ByteArrayOutputStream out = new ByteArrayOutputStream();
            buf.getBytes(10, out, 3000);
            assertArrayEquals(bytes, out.toByteArray());
            assertEquals(50, buf.setBytes(3900, new ByteArrayInputStream(bytes, 0, 50), 80));
            assertArrayEquals(slice(bytes, 0, 50), bytesOf(buf, 3900, 50));

            ByteBuf copy = buf.copy(10, 3000);
            try {
                assertArrayEquals(bytes, bytesOf(copy, 0, 3000));
            } finally {
                copy.release();
            }
        } finally {
            buf.release();
            other.release();
            heap.release();
            direct.release();
        }
    }

    @Test
    void fileChannelsReadAndWriteThroughTheInternalView(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("bytes");
        RegionByteBuf buf = block(1024);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            buf.setBytes(0, new byte[] {1, 2, 3, 4, 5, 6});
            assertEquals(4, buf.getBytes(1, channel, 0L, 4));
            channel.position(4);
            assertEquals(2, buf.getBytes(0, (GatheringByteChannel) channel, 2));
            assertArrayEquals(new byte[] {2, 3, 4, 5, 1, 2}, Files.readAllBytes(file));
            assertEquals(6, buf.setBytes(100, channel, 0L, 6));
            assertArrayEquals(new byte[] {2, 3, 4, 5, 1, 2}, bytesOf(buf, 100, 6));
            channel.position(4);
            assertEquals(2, buf.setBytes(200, (ScatteringByteChannel) channel, 2));
            assertArrayEquals(new byte[] {1, 2}, bytesOf(buf, 200, 2));
        } finally {
            buf.release();
        }
    }

    @Test
    void nioViewsShareTheMemoryAtTheRightPlace() {
        ByteBuffer memory = ByteBuffer.allocateDirect(256);
        RegionByteBuf buf = RegionByteBuf.ofRegion(ALLOC, memory, 100, 50, token -> { }, 1);
        try {
            assertEquals(RdmaNative.directBufferAddress(memory) + 100, buf.memoryAddress());
            assertTrue(buf.hasMemoryAddress());
            assertTrue(buf.isDirect());
            assertTrue(buf.isContiguous());
            assertFalse(buf.hasArray());
            assertThrows(UnsupportedOperationException.class, buf::array);
            assertThrows(UnsupportedOperationException.class, buf::arrayOffset);
            assertNull(buf.unwrap());
            assertEquals(ByteOrder.BIG_ENDIAN, buf.order());
            assertSame(ALLOC, buf.alloc());
            assertEquals(1, buf.nioBufferCount());

            buf.setByte(0, 42);
            assertEquals(42, memory.get(100));
            ByteBuffer view = buf.nioBuffer(0, 10);
            assertEquals(0, view.position());
            assertEquals(10, view.remaining());
            assertEquals(42, view.get(0));
            assertEquals(42, buf.nioBuffers(0, 1)[0].get(0));
            ByteBuffer internal = buf.internalNioBuffer(0, 5);
            assertEquals(RdmaNative.directBufferAddress(memory), RdmaNative.directBufferAddress(internal));
            assertEquals(100, internal.position());
            assertEquals(105, internal.limit());
            assertSame(internal, buf.internalNioBuffer(1, 1), "cached");
            // The shared view is never moved.
            assertEquals(0, memory.position());
            assertEquals(256, memory.limit());
        } finally {
            buf.release();
        }
    }

    @Test
    void indexesOutsideTheBufferAreRefused() {
        ByteBuffer memory = ByteBuffer.allocateDirect(256);
        RegionByteBuf region = RegionByteBuf.ofRegion(ALLOC, memory, 100, 50, token -> { }, 1);
        RegionByteBuf buf = block(1000);
        try {
            assertThrows(IndexOutOfBoundsException.class, () -> region.getByte(50));
            assertThrows(IndexOutOfBoundsException.class, () -> region.getInt(47));
            assertThrows(IndexOutOfBoundsException.class, () -> region.getByte(-1));
            assertThrows(IndexOutOfBoundsException.class, () -> region.setLong(43, 1));
            assertThrows(IndexOutOfBoundsException.class, () -> region.getBytes(0, new byte[51]));
            assertThrows(IndexOutOfBoundsException.class, () -> region.nioBuffer(40, 11));
            assertThrows(IndexOutOfBoundsException.class, () -> region.internalNioBuffer(51, 0));
            // The block is larger than the capacity asked for; the capacity is the bound.
            assertEquals(1000, buf.capacity());
            assertThrows(IndexOutOfBoundsException.class, () -> buf.getByte(1000));
            assertThrows(IndexOutOfBoundsException.class, () -> buf.setBytes(999, new byte[2]));
        } finally {
            region.release();
            buf.release();
        }
    }

    @Test
    void memoryItCannotAddressIsRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> RegionByteBuf.ofRegion(ALLOC, ByteBuffer.allocate(64), 0, 64, token -> { }, 1));
        assertThrows(IllegalArgumentException.class, () -> RegionByteBuf.ofRegion(ALLOC,
                ByteBuffer.allocateDirect(64).order(ByteOrder.LITTLE_ENDIAN), 0, 64, token -> { }, 1));
        assertThrows(IllegalArgumentException.class, () -> RegionByteBuf.ofRegion(ALLOC,
                ByteBuffer.allocateDirect(64).limit(32), 0, 16, token -> { }, 1));
        assertThrows(IllegalArgumentException.class,
                () -> RegionByteBuf.ofRegion(ALLOC, ByteBuffer.allocateDirect(64), 60, 5, token -> { }, 1));
    }

    @Test
    void aRegionIsReadableAtOnceCannotGrowAndReturnsOnceOnItsLastRelease() {
        List<Long> returned = new ArrayList<>();
        ByteBuffer memory = ByteBuffer.allocateDirect(256);
        memory.put(10, (byte) 7);
        RegionByteBuf buf = RegionByteBuf.ofRegion(ALLOC, memory, 10, 20, returned::add, 99);
        assertEquals(20, buf.readableBytes());
        assertEquals(20, buf.capacity());
        assertEquals(20, buf.maxCapacity());
        assertEquals(7, buf.readByte());
        assertThrows(IllegalArgumentException.class, () -> buf.capacity(21));
        buf.retain();
        assertFalse(buf.release());
        assertTrue(returned.isEmpty());
        assertTrue(buf.release());
        assertEquals(List.of(99L), returned);
        assertThrows(IllegalReferenceCountException.class, buf::release);
        assertThrows(IllegalReferenceCountException.class, () -> buf.getByte(0));
        assertEquals(List.of(99L), returned);
    }

    @Test
    void aBlockGrowsInPlaceThenIntoALargerBlockThenBeyondThePool() {
        RegionByteBuf buf = RegionByteBuf.ofBlock(ALLOC, pool, pool.allocate(1000), 1000, 8 * 1024 * 1024);
        try {
            long first = buf.memoryAddress();
            buf.writeBytes(new byte[] {1, 2, 3});
            buf.capacity(1024);
            assertEquals(first, buf.memoryAddress(), "the block has room for 1024");
            buf.capacity(5000);
            assertNotEquals(first, buf.memoryAddress());
            assertNotNull(RegisteredSlab.find(buf.memoryAddress(), 5000));
            assertEquals(5000, buf.capacity());
            assertArrayEquals(new byte[] {1, 2, 3}, bytesOf(buf, 0, 3));
            // The first block went back at once.
            ByteBuffer again = pool.allocate(1024);
            assertEquals(first, RdmaNative.directBufferAddress(again));
            pool.free(again);

            buf.capacity(RegisteredMemoryPool.MAX_BLOCK + 1);
            assertNull(RegisteredSlab.find(buf.memoryAddress(), 1), "ordinary direct memory");
            assertArrayEquals(new byte[] {1, 2, 3}, bytesOf(buf, 0, 3));
            buf.setByte(RegisteredMemoryPool.MAX_BLOCK, 9);
            assertEquals(9, buf.getByte(RegisteredMemoryPool.MAX_BLOCK));

            buf.capacity(2);
            assertEquals(2, buf.capacity());
            assertEquals(2, buf.writerIndex());
            assertThrows(IllegalArgumentException.class, () -> buf.capacity(8 * 1024 * 1024 + 1));
        } finally {
            buf.release();
        }
    }

    @Test
    void aReleasedBlockGoesBackToItsPool() {
        RegionByteBuf buf = block(20_000);
        long address = buf.memoryAddress();
        buf.release();
        ByteBuffer next = pool.allocate(20_000);
        assertEquals(address, RdmaNative.directBufferAddress(next));
        pool.free(next);
    }

    @Test
    void aReusedBufferIsTheSameObjectAndClean() throws Exception {
        // Netty's recycler pools objects only on threads that clean up their thread-locals.
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread = new FastThreadLocalThread(() -> {
            try {
                RegionByteBuf first = block(4096);
                first.writeInt(5).readByte();
                first.markReaderIndex().markWriterIndex();
                first.retain().release();
                first.release();
                RegionByteBuf second = block(2048);
                try {
                    assertSame(first, second);
                    assertEquals(1, second.refCnt());
                    assertEquals(0, second.readerIndex());
                    assertEquals(0, second.writerIndex());
                    assertEquals(2048, second.capacity());
                    assertEquals(Integer.MAX_VALUE, second.maxCapacity());
                    second.writerIndex(8).readerIndex(4).resetReaderIndex().resetWriterIndex();
                    assertEquals(0, second.readerIndex(), "marks start at 0");
                    assertEquals(0, second.writerIndex());
                } finally {
                    second.release();
                }
                List<Long> returned = new ArrayList<>();
                ByteBuffer memory = ByteBuffer.allocateDirect(64);
                RegionByteBuf region = RegionByteBuf.ofRegion(ALLOC, memory, 8, 16, returned::add, 3);
                assertSame(first, region);
                assertEquals(16, region.readableBytes());
                assertEquals(16, region.maxCapacity());
                assertEquals(RdmaNative.directBufferAddress(memory) + 8, region.memoryAddress());
                region.release();
                assertEquals(List.of(3L), returned);
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        thread.start();
        thread.join();
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
    }

    @Test
    void piecesOfARegionHandedUpAndReleasedMakeNoGarbage() throws Exception {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        ByteBuffer ring = ByteBuffer.allocateDirect(65536);
        RegionByteBuf.Releaser releaser = token -> { };
        AtomicLong least = new AtomicLong(Long.MAX_VALUE);
        Thread thread = new FastThreadLocalThread(() -> {
            // Rounds until the JIT compiled the path; the least a round of 10000 pieces allocated counts.
            for (int round = 0; round < 20 && least.get() >= 10_000; round++) {
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 10_000; i++) {
                    ByteBuf piece = RegionByteBuf.ofRegion(ALLOC, ring, i & 0x7fff, 4096, releaser, i);
                    piece.readLong();
                    piece.release();
                }
                least.set(Math.min(least.get(), threads.getCurrentThreadAllocatedBytes() - before));
            }
        });
        thread.start();
        thread.join();
        assertTrue(least.get() < 10_000, least.get() + " bytes for 10000 pieces");
    }

    private static byte[] bytesOf(ByteBuf buf, int index, int length) {
        byte[] bytes = new byte[length];
        buf.getBytes(index, bytes);
        return bytes;
    }

    private static byte[] slice(byte[] bytes, int from, int length) {
        byte[] part = new byte[length];
        System.arraycopy(bytes, from, part, 0, length);
        return part;
    }
}
