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

import io.netty.buffer.ByteBuf;

/**
 * One block of registered memory that a connection stages outgoing bytes in: the buffer the bytes are
 * copied into, and where the device reads them (its address and the local key in the connection's
 * protection domain). {@link SendBlocks} says when it is in use; its {@link SendBlocks.Source} made it
 * and takes it back.
 */
public final class StagingBlock {

    private final ByteBuf memory;
    private final long address;
    private final int lkey;
    private final AutoCloseable registration;
    /** The staging mark at which the block stopped taking regions; its last region completes by it. */
    long end = Long.MAX_VALUE;

    /** Creates a block over {@code memory}, empty, that the device reads at {@code address} with {@code lkey}. */
    public StagingBlock(ByteBuf memory, long address, int lkey) {
        this(memory, address, lkey, null);
    }

    /**
     * Creates a block over {@code memory} that the device reads at {@code address} with {@code lkey},
     * under {@code registration}, which is the block's own rather than a shared slab's.
     */
    public StagingBlock(ByteBuf memory, long address, int lkey, AutoCloseable registration) {
        this.memory = memory;
        this.address = address;
        this.lkey = lkey;
        this.registration = registration;
    }

    /** Returns the block's memory, for copying and encoding into it at the offsets {@link SendBlocks} gives. */
    public ByteBuf memory() {
        return memory;
    }

    /** Returns the address of the block's first byte. */
    public long address() {
        return address;
    }

    /** Returns the local key under which the connection's device reads the block. */
    public int lkey() {
        return lkey;
    }

    /** Returns the registration made for this block alone, or {@code null} for a block of a shared slab. */
    public AutoCloseable registration() {
        return registration;
    }

    /** Returns the block's size in bytes. */
    public int capacity() {
        return memory.capacity();
    }
}
