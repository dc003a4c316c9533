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

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.internal.CleanableDirectBuffer;
import io.netty.util.internal.ObjectUtil;
import io.netty.util.internal.PlatformDependent;

/**
 * Direct memory that never moves while a buffer holds it, the only memory a connection exposes to its
 * peer (docs/decisions.md#exposed-memory-never-moves). A buffer that grows reallocates and frees its old
 * memory, which a registration would still cover and a pool would hand to other buffers; a buffer of
 * this memory cannot grow past the capacity it was made with (it may shrink in place), and the memory
 * is freed only when the last reference to it is released.
 *
 * <p>Thread-safe: the memory is freed once, on whichever thread releases the last reference.
 */
public final class ExposableMemory implements RegionByteBuf.Releaser {

    private final CleanableDirectBuffer memory;

    private ExposableMemory(CleanableDirectBuffer memory) {
        this.memory = memory;
    }

    /**
     * Returns a buffer over {@code capacity} bytes of zeroed direct memory of its own, empty, that
     * cannot grow: {@link #isExposable} holds for it and for buffers derived from it.
     */
    public static ByteBuf allocate(ByteBufAllocator alloc, int capacity) {
        ObjectUtil.checkPositive(capacity, "capacity");
        CleanableDirectBuffer memory = PlatformDependent.allocateDirect(capacity);
        ByteBuffer bytes = memory.buffer();
        // The peer may read what was never written: it must read zeros, not this process's old data.
        for (int i = 0; i < capacity; i++) {
            bytes.put(i, (byte) 0);
        }
        return RegionByteBuf.ofRegion(alloc, bytes, 0, capacity, new ExposableMemory(memory), 0).clear();
    }

    /**
     * Returns {@code true} if {@code buffer} is, or is derived from (a slice, a duplicate, a wrapper),
     * a buffer of {@link #allocate}: its memory stays where it is while the buffer is retained.
     */
    public static boolean isExposable(ByteBuf buffer) {
        ByteBuf root = buffer;
        for (ByteBuf inner = root.unwrap(); inner != null; inner = inner.unwrap()) {
            root = inner;
        }
        return root instanceof RegionByteBuf && ((RegionByteBuf) root).lender() instanceof ExposableMemory;
    }

    @Override
    public void release(long token) {
        memory.clean();
    }
}
