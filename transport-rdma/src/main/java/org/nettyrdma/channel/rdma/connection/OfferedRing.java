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
package org.nettyrdma.channel.rdma.connection;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.nettyrdma.channel.rdma.memory.RegionByteBuf;
import org.nettyrdma.channel.rdma.memory.RegisteredBuffer;
import org.nettyrdma.channel.rdma.protocol.ReceiveRing;

/**
 * One ring a connection opened to its peer on request: its registered memory, the book of what the
 * peer wrote into it ({@link ReceiveRing}), and the view the pipeline's bytes are copied from. The
 * ring outlives its closing to the peer while regions of it wait in the inbound queue or in the
 * pipeline: each holds its memory ({@link RegisteredBuffer#retainMemory()}), so the memory is freed
 * only after the last, while the registration goes as soon as the peer released the ring.
 *
 * <p>Used on the channel's event loop only, except the memory holds.
 */
final class OfferedRing implements RegionByteBuf.Releaser {

    /** Hears of a region a buffer handed up over it gave back, on whatever thread released the buffer. */
    @FunctionalInterface
    public interface RegionListener {
        /** The buffer over the region of {@code token} of {@code ring} was released. */
        void regionReleased(OfferedRing ring, long token);
    }

    private final int generation;
    private final RegisteredBuffer memory;
    private final ReceiveRing book;
    private final ByteBuf view;
    private final RegionListener listener;

    /**
     * Creates ring {@code generation} over {@code memory} ({@code null} where only the bookkeeping is
     * tested: then the ring is {@code size} bytes and has no view); {@code listener} hears of the
     * regions that buffers handed up over it give back.
     */
    OfferedRing(int generation, int size, RegisteredBuffer memory, RegionListener listener) {
        if (memory != null && memory.size() != size) {
            throw new IllegalArgumentException("size: " + size + " (the memory has " + memory.size() + ')');
        }
        this.generation = generation;
        this.memory = memory;
        this.book = new ReceiveRing(size);
        this.view = memory != null ? Unpooled.wrappedBuffer(memory.buffer()) : null;
        this.listener = listener;
    }

    /** Returns the generation the {@code RING} that opened it named. */
    public int generation() {
        return generation;
    }

    /** Returns its size. */
    public int size() {
        return book.size();
    }

    /** Returns its registered memory. */
    public RegisteredBuffer memory() {
        return memory;
    }

    /** Returns the book of the regions the peer wrote and the pipeline has not given back. */
    public ReceiveRing book() {
        return book;
    }

    /** Returns its memory as a buffer to copy received bytes from. */
    public ByteBuf view() {
        return view;
    }

    @Override
    public void release(long token) {
        listener.regionReleased(this, token);
    }

    @Override
    public String toString() {
        return "ring " + generation + " (" + size() + " bytes)";
    }
}
