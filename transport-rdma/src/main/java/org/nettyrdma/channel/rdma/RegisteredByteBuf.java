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

import java.nio.ByteBuffer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.util.internal.CleanableDirectBuffer;
import org.nettyrdma.channel.rdma.internal.RegisteredMemoryPool;

/**
 * A buffer of {@link RdmaByteBufAllocator}: its memory is a block of the registered pool, so an RDMA
 * channel sends it without copying. When its capacity changes it moves to another block (or, beyond
 * the largest, to ordinary direct memory, which is sent with a copy) and gives the old block back; its
 * last release gives back the block it has then.
 */
final class RegisteredByteBuf extends UnpooledDirectByteBuf {

    private final RegisteredMemoryPool pool;
    /** The block the buffer was made with, until it moves; {@link UnpooledDirectByteBuf} never frees it. */
    private ByteBuffer initialBlock;

    RegisteredByteBuf(RdmaByteBufAllocator alloc, RegisteredMemoryPool pool, ByteBuffer block, int maxCapacity) {
        super(alloc, block, maxCapacity);
        this.pool = pool;
        this.initialBlock = block;
        setIndex(0, 0);
    }

    @Override
    protected CleanableDirectBuffer allocateDirectBuffer(int capacity) {
        ByteBuffer block = pool.allocate(capacity);
        return block != null ? new PoolBlock(pool, block) : super.allocateDirectBuffer(capacity);
    }

    @Override
    public ByteBuf capacity(int newCapacity) {
        int oldCapacity = capacity();
        super.capacity(newCapacity);
        if (newCapacity != oldCapacity && initialBlock != null) {
            // The bytes moved to a new buffer; the first block is no longer referenced.
            pool.free(initialBlock);
            initialBlock = null;
        }
        return this;
    }

    @Override
    protected void deallocate() {
        super.deallocate();
        if (initialBlock != null) {
            pool.free(initialBlock);
            initialBlock = null;
        }
    }

    /** A block taken when the buffer grows: {@link UnpooledDirectByteBuf} "cleans" it, which gives it back. */
    private static final class PoolBlock implements CleanableDirectBuffer {
        private final RegisteredMemoryPool pool;
        private final ByteBuffer block;

        PoolBlock(RegisteredMemoryPool pool, ByteBuffer block) {
            this.pool = pool;
            this.block = block;
        }

        @Override
        public ByteBuffer buffer() {
            return block;
        }

        @Override
        public void clean() {
            pool.free(block);
        }
    }
}
