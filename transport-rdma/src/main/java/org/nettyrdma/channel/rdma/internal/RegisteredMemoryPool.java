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
package org.nettyrdma.channel.rdma.internal;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;

import com.ibm.disni.util.MemoryUtils;

/**
 * The memory of the registered allocator: blocks of power-of-two sizes from {@link #MIN_BLOCK} to
 * {@link #MAX_BLOCK}, carved from {@link RegisteredSlab}s of {@link #SLAB_SIZE} bytes, and kept on a
 * free list per size when released. A slab belongs to one size for ever; the pool grows slab by slab
 * up to a limit and never shrinks, so the memory it holds is bounded and, once warm, allocating takes
 * no new memory at all.
 *
 * <p>Thread-safe: buffers are allocated and released on any thread. Each size has its own lock,
 * held only to push or pop a block.
 */
public final class RegisteredMemoryPool {

    /** The smallest block: smaller requests round up to it. */
    public static final int MIN_BLOCK = 1024;
    /** The largest block: larger requests are not served from the pool. */
    public static final int MAX_BLOCK = 4 * 1024 * 1024;
    /** The size of a slab, registered in one piece. */
    public static final int SLAB_SIZE = 4 * 1024 * 1024;

    private static final int MIN_SHIFT = Integer.numberOfTrailingZeros(MIN_BLOCK);

    private final ArrayDeque<ByteBuffer>[] free;
    private final int maxSlabs;
    private int slabs;

    /** Creates a pool that holds at most {@code maxBytes} (rounded down to whole slabs, at least one). */
    @SuppressWarnings("unchecked")
    public RegisteredMemoryPool(long maxBytes) {
        free = new ArrayDeque[Integer.numberOfTrailingZeros(MAX_BLOCK) - MIN_SHIFT + 1];
        for (int i = 0; i < free.length; i++) {
            free[i] = new ArrayDeque<>();
        }
        maxSlabs = (int) Math.max(1, Math.min(Integer.MAX_VALUE, maxBytes / SLAB_SIZE));
    }

    /**
     * Returns a block of at least {@code capacity} bytes, with position 0 and limit {@code capacity},
     * or {@code null} if the request is larger than {@link #MAX_BLOCK} or the pool is at its limit.
     */
    public ByteBuffer allocate(int capacity) {
        if (capacity <= 0 || capacity > MAX_BLOCK) {
            return null;
        }
        int sizeClass = sizeClass(capacity);
        ArrayDeque<ByteBuffer> list = free[sizeClass];
        ByteBuffer block;
        synchronized (list) {
            block = list.poll();
            if (block == null && addSlab(sizeClass)) {
                block = list.poll();
            }
        }
        if (block == null) {
            return null;
        }
        block.clear().limit(capacity);
        return block;
    }

    /**
     * Gives a block back.
     *
     * @return {@code false} if {@code buffer} is not a block of a pool
     */
    public boolean free(ByteBuffer buffer) {
        if (!buffer.isDirect()) {
            return false;
        }
        if (RegisteredSlab.find(MemoryUtils.getAddress(buffer), buffer.capacity()) == null) {
            return false;
        }
        ArrayDeque<ByteBuffer> list = free[sizeClass(buffer.capacity())];
        synchronized (list) {
            list.push(buffer);
        }
        return true;
    }

    /** Returns the slabs this pool allocated. */
    public synchronized int slabs() {
        return slabs;
    }

    /** Returns the most slabs this pool allocates. */
    public int maxSlabs() {
        return maxSlabs;
    }

    /** Called with the size's list locked. */
    private boolean addSlab(int sizeClass) {
        synchronized (this) {
            if (slabs == maxSlabs) {
                return false;
            }
            slabs++;
        }
        RegisteredSlab slab = RegisteredSlab.allocate(SLAB_SIZE, MIN_BLOCK << sizeClass);
        for (int i = 0; i < slab.blocks(); i++) {
            free[sizeClass].add(slab.block(i));
        }
        return true;
    }

    private static int sizeClass(int capacity) {
        int rounded = Math.max(MIN_BLOCK, Integer.highestOneBit(capacity - 1) << 1);
        return Integer.numberOfTrailingZeros(rounded) - MIN_SHIFT;
    }
}
