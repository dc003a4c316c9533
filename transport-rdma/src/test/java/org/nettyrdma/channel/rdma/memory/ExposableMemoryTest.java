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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

/** Memory that never moves, the only kind a connection exposes, without a device. */
class ExposableMemoryTest {

    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

    @Test
    void itIsZeroedEmptyAndCannotGrow() {
        ByteBuf buf = ExposableMemory.allocate(ALLOC, 64);
        try {
            assertEquals(64, buf.capacity());
            assertEquals(64, buf.maxCapacity());
            assertEquals(0, buf.readableBytes(), "empty, like any new buffer");
            for (int i = 0; i < 64; i += Long.BYTES) {
                assertEquals(0, buf.getLong(i), "zeroed at " + i);
            }
            long address = buf.memoryAddress();
            buf.writerIndex(64);
            assertThrows(IndexOutOfBoundsException.class, () -> buf.writeByte(1), "a write past it does not grow it");
            assertThrows(IndexOutOfBoundsException.class, () -> buf.ensureWritable(1));
            assertThrows(IllegalArgumentException.class, () -> buf.capacity(65));
            buf.capacity(32);
            buf.capacity(64);
            assertEquals(address, buf.memoryAddress(), "a shrink and a growth back stay in place");
            assertTrue(ExposableMemory.isExposable(buf));
        } finally {
            buf.release();
        }
    }

    @Test
    void slicesDuplicatesAndWrappersOfItAreExposable() {
        ByteBuf buf = ExposableMemory.allocate(ALLOC, 64).writerIndex(64);
        try {
            assertTrue(ExposableMemory.isExposable(buf.slice(8, 16)));
            assertTrue(ExposableMemory.isExposable(buf.duplicate()));
            assertTrue(ExposableMemory.isExposable(buf.asReadOnly()));
            ByteBuf retained = buf.retainedSlice(8, 16);
            try {
                assertTrue(ExposableMemory.isExposable(retained));
                assertEquals(buf.memoryAddress() + 8, retained.memoryAddress());
            } finally {
                retained.release();
            }
            assertEquals(1, buf.refCnt());
        } finally {
            buf.release();
        }
    }

    /** Every buffer whose capacity may change reallocates when it does: none is exposable, nor its slices. */
    @Test
    void buffersWhoseMemoryCanMoveAreNot() {
        RegisteredMemoryPool pool = new RegisteredMemoryPool(4L * RegisteredMemoryPool.SLAB_SIZE);
        ByteBuf[] movable = {
            Unpooled.directBuffer(64),
            Unpooled.directBuffer(64, 64),
            PooledByteBufAllocator.DEFAULT.directBuffer(64, 64),
            UnpooledByteBufAllocator.DEFAULT.directBuffer(64),
            RegionByteBuf.ofBlock(ALLOC, pool, pool.allocate(64), 64, 64),
            Unpooled.compositeBuffer().addComponent(true, Unpooled.directBuffer(64).writeZero(64)),
        };
        for (ByteBuf buf : movable) {
            try {
                assertFalse(ExposableMemory.isExposable(buf), () -> buf + " is exposable");
                assertFalse(ExposableMemory.isExposable(buf.slice()), () -> "a slice of " + buf + " is exposable");
            } finally {
                buf.release();
            }
        }
    }
}
