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
package org.nettyrdma.example.kv;

import java.lang.invoke.VarHandle;

import io.netty.buffer.ByteBuf;
import org.nettyrdma.channel.rdma.OneSidedOperations;

/**
 * The server's table: the slots of a {@link SlotLayout} in one direct buffer, which the server
 * exposes to its clients for RDMA Reads. The server writes a slot ({@link #put}) under a seqlock; the
 * clients read slots without the server's CPU and retry a read that overlapped a write
 * ({@link SlotLayout#stable}).
 *
 * <p>{@link #put} may be called from any thread: writes are serialized among themselves. Reads from
 * the network need no lock.
 */
public final class SlotTable {

    private final SlotLayout layout;
    private final ByteBuf memory;

    /** Creates a table of {@code layout}, every slot empty at version 0. */
    public SlotTable(SlotLayout layout) {
        this.layout = layout;
        int length = layout.tableLength();
        // Memory that never moves, the only kind a channel exposes: zeroed, so every slot starts empty.
        this.memory = OneSidedOperations.allocateExposable(length).writerIndex(length);
    }

    /** Returns the layout. */
    public SlotLayout layout() {
        return layout;
    }

    /**
     * Returns the table's memory: its readable bytes are the table, to expose. Its reference is the
     * table's until {@link #release()}, or until handed to whoever releases it instead (a
     * {@link KvServer} does when it closes).
     */
    public ByteBuf memory() {
        return memory;
    }

    /**
     * Makes {@code value} slot {@code slot}'s value. The version turns odd before the first byte changes
     * and even after the last: a reader that finds it even and the same before and after its read
     * knows it read one value whole.
     *
     * @throws IllegalArgumentException for a slot not in the table or a value too long for a slot
     */
    public synchronized void put(int slot, byte[] value) {
        layout.checkValueLength(value.length);
        int base = layout.versionOffset(slot);
        long version = memory.getLongLE(base);
        memory.setLongLE(base, version + 1);
        // Stores reach memory, where the device reads, in program order on x86-64; these fences keep
        // the compiler from moving the value's stores before the odd version or after the even one.
        VarHandle.storeStoreFence();
        memory.setIntLE(base + SlotLayout.LENGTH, value.length);
        memory.setBytes(base + SlotLayout.VALUE, value);
        VarHandle.storeStoreFence();
        memory.setLongLE(base, version + 2);
    }

    /** Returns slot {@code slot}'s version: twice the number of writes it had, plus one during a write. */
    public long version(int slot) {
        return memory.getLongLE(layout.versionOffset(slot));
    }

    /** Returns slot {@code slot}'s value as this process sees it, between writes. */
    public synchronized byte[] value(int slot) {
        return layout.value(memory.slice(layout.bodyOffset(slot), layout.bodyLength()));
    }

    /** Releases the table's reference to its memory; exposures still open keep theirs until they close. */
    public void release() {
        memory.release();
    }
}
