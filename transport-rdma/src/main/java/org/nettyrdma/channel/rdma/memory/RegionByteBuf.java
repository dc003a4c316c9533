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

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.Recycler;
import io.netty.util.internal.CleanableDirectBuffer;
import io.netty.util.internal.PlatformDependent;

/**
 * A buffer over a piece of direct memory that it does not own: a block of the registered pool
 * ({@link #ofBlock}) or a region of a connection's receive ring ({@link #ofRegion}). When its last
 * reference is released it gives the memory back (to the pool, or to the region's {@link Releaser}),
 * and the buffer object itself goes back to a {@link Recycler}, so a steady stream of such buffers
 * makes no garbage, as Netty's pooled buffers do not.
 *
 * <p>This class decides where the memory comes from, how far the buffer may grow and where the
 * memory goes back; reading and writing the bytes is {@link AbstractViewByteBuf}'s, which never
 * changes a shared view's position or limit.
 *
 * <p>When a buffer grows past its memory it moves to a larger block of its pool, or, if there is
 * none, to ordinary direct memory (which an RDMA channel sends with a copy), and gives the old
 * memory back at once. Not thread-safe, like every {@link ByteBuf}; it may be released on any thread.
 */
public final class RegionByteBuf extends AbstractViewByteBuf {

    /** Takes back a region lent to buffers; may be called on any thread. */
    public interface Releaser {
        /** Called once per buffer, when it lets go of the region of {@code token}. */
        void release(long token);
    }

    private static final Recycler<RegionByteBuf> RECYCLER = new Recycler<RegionByteBuf>() {
        @Override
        protected RegionByteBuf newObject(Handle<RegionByteBuf> handle) {
            return new RegionByteBuf(handle);
        }
    };

    private final Recycler.Handle<RegionByteBuf> handle;
    private ByteBufAllocator alloc;
    /** The bytes of the view from its offset on that this buffer may use: it grows in place up to them. */
    private int length;
    private int capacity;
    /** Where the memory came from and where growth looks first; {@code null} for a ring region. */
    private RegisteredMemoryPool pool;
    /** Set while the memory is a lent region. */
    private Releaser releaser;
    private long token;
    /** Set while the memory is ordinary direct memory that this buffer allocated when it grew. */
    private CleanableDirectBuffer unpooled;

    private RegionByteBuf(Recycler.Handle<RegionByteBuf> handle) {
        super(0);
        this.handle = handle;
    }

    /**
     * Returns {@code true} if {@code buf} is a {@code RegionByteBuf} or a wrapper or slice of one: its
     * {@link ByteBuf#unwrap()} chain ends in one.
     */
    public static boolean isRegion(ByteBuf buf) {
        ByteBuf root = buf;
        for (ByteBuf inner = buf.unwrap(); inner != null; inner = inner.unwrap()) {
            root = inner;
        }
        return root instanceof RegionByteBuf;
    }

    /**
     * Returns a buffer over {@code block}, a block of {@code pool} that the caller took from it:
     * capacity {@code capacity} (at most the block's size), empty. The buffer owns the block from
     * now on (its limit is reset to its capacity) and gives it back to {@code pool} when released.
     */
    public static RegionByteBuf ofBlock(ByteBufAllocator alloc, RegisteredMemoryPool pool, ByteBuffer block,
                                        int capacity, int maxCapacity) {
        block.clear();
        RegionByteBuf buf = RECYCLER.get();
        buf.reuse(alloc, block, 0, block.capacity(), capacity, maxCapacity);
        buf.pool = pool;
        return buf;
    }

    /**
     * Returns a buffer over the {@code length} bytes of {@code memory} at {@code offset}, all of them
     * readable, that cannot grow; {@code releaser} gets {@code token} back when it is released.
     * {@code memory} may be shared with other buffers: it must be big-endian with its limit at its
     * capacity, and is not modified.
     */
    public static RegionByteBuf ofRegion(ByteBufAllocator alloc, ByteBuffer memory, int offset, int length,
                                         Releaser releaser, long token) {
        RegionByteBuf buf = RECYCLER.get();
        buf.reuse(alloc, memory, offset, length, length, length);
        buf.releaser = releaser;
        buf.token = token;
        buf.writerIndex(length);
        return buf;
    }

    /** Returns what takes this buffer's region back when it is released, or {@code null} if it holds none. */
    Releaser lender() {
        return releaser;
    }

    /** Points a buffer fresh from the recycler at its memory, with a reference count of 1. */
    private void reuse(ByteBufAllocator alloc, ByteBuffer memory, int offset, int length, int capacity,
                       int maxCapacity) {
        if (!memory.isDirect() || memory.order() != ByteOrder.BIG_ENDIAN || memory.limit() != memory.capacity()
                || offset < 0 || length < 0 || offset + length > memory.capacity()
                || capacity > length || capacity > maxCapacity) {
            throw new IllegalArgumentException("memory " + memory + ", offset " + offset + ", length " + length
                    + ", capacity " + capacity + ", max capacity " + maxCapacity
                    + " (expected: direct, big-endian, limit at capacity, capacity <= length <= max capacity)");
        }
        this.alloc = alloc;
        point(memory, offset, length);
        this.capacity = capacity;
        maxCapacity(maxCapacity);
        resetRefCnt();
        setIndex(0, 0);
        markReaderIndex();
        markWriterIndex();
    }

    private void point(ByteBuffer memory, int offset, int length) {
        view(memory, offset);
        this.length = length;
    }

    @Override
    protected void deallocate() {
        freeMemory();
        // A recycled buffer must not keep a closed connection's ring (or anything else) reachable.
        alloc = null;
        pool = null;
        clearView();
        handle.recycle(this);
    }

    /** Gives the memory back to where it came from. */
    private void freeMemory() {
        if (unpooled != null) {
            unpooled.clean();
            unpooled = null;
        } else if (releaser != null) {
            Releaser r = releaser;
            releaser = null;
            r.release(token);
        } else if (pool != null) {
            pool.free(memory());
        }
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public ByteBuf capacity(int newCapacity) {
        checkNewCapacity(newCapacity);
        if (newCapacity <= length) {
            if (newCapacity < capacity) {
                trimIndicesToCapacity(newCapacity);
            }
            capacity = newCapacity;
            return this;
        }
        ByteBuffer block = pool != null ? pool.allocate(newCapacity) : null;
        CleanableDirectBuffer grown = null;
        if (block != null) {
            block.clear();
        } else {
            grown = PlatformDependent.allocateDirect(newCapacity);
            block = grown.buffer();
        }
        block.put(0, memory(), offset(), capacity);
        freeMemory();
        unpooled = grown;
        point(block, 0, grown != null ? newCapacity : block.capacity());
        capacity = newCapacity;
        return this;
    }

    @Override
    public ByteBufAllocator alloc() {
        return alloc;
    }
}
