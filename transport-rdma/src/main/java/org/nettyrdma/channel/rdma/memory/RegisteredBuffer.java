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

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.nettyrdma.channel.rdma.internal.RdmaNative;

/**
 * Native memory registered with a device: the only memory the device may touch, and, through a
 * memory window bound over it, the only memory a peer may write. {@link #close()} deregisters it and
 * drops the owner's hold on the memory; the memory itself is freed when the last hold is dropped, so
 * bytes already handed up the pipeline ({@link #retainMemory()}) remain readable after the
 * connection closed, while neither the device nor the peer can reach them any more.
 *
 * <p>The memory comes from the native library, not from {@code ByteBuffer.allocateDirect}: it is
 * freed at close instead of whenever the collector finds the buffer, and it is page-aligned, as
 * registration pins whole pages. Every registration reserves its bytes in the
 * {@link RegisteredMemoryBudget} first. Counts every live registration process-wide
 * ({@link #liveRegistrations()}, {@link #liveBytes()}), so tests can check that no memory region
 * outlives its channel. {@link #close()} is for the owner's thread; the memory holds are thread-safe.
 */
public final class RegisteredBuffer implements AutoCloseable {

    /** {@code IBV_ACCESS_LOCAL_WRITE}: the device may write into it (receives, RDMA Read targets). */
    public static final int LOCAL_WRITE = 1;
    /**
     * {@code IBV_ACCESS_MW_BIND}: memory windows may be bound over it. The buffer's own rkey then
     * grants nothing; only a window's does, and only to the peer of the queue pair it is bound to.
     */
    public static final int MW_BIND = RdmaNative.ACCESS_MW_BIND;

    private static final AtomicInteger LIVE_REGISTRATIONS = new AtomicInteger();
    private static final AtomicLong LIVE_BYTES = new AtomicLong();
    private static final AtomicLong ALLOCATED_BYTES = new AtomicLong();

    private final ByteBuffer buffer;
    private final long address;
    private final MemoryRegion region;
    /** The owner's hold and one per buffer handed up over the memory; freed at 0. */
    private final AtomicInteger memoryHolds = new AtomicInteger(1);
    private boolean closed;

    /**
     * Allocates {@code size} bytes of native memory and registers them with {@code access}.
     *
     * @param what what the memory is for, for the message when the budget refuses it
     * @throws IOException if the {@link RegisteredMemoryBudget} or the device refuses it
     */
    public RegisteredBuffer(RdmaDevice device, int size, int access, String what) throws IOException {
        this(device.pd(), size, access, what);
    }

    /**
     * Allocates {@code size} bytes of native memory and registers them in protection domain {@code pd}
     * with {@code access}.
     *
     * @param what what the memory is for, for the message when the budget refuses it
     * @throws IOException if the {@link RegisteredMemoryBudget} or the device refuses it
     */
    public RegisteredBuffer(long pd, int size, int access, String what) throws IOException {
        if (!RegisteredMemoryBudget.hasRoom(size)) {
            throw RegisteredMemoryBudget.refusal(what, size);
        }
        ByteBuffer memory = RdmaNative.allocateMemory(size).order(ByteOrder.BIG_ENDIAN);
        ALLOCATED_BYTES.addAndGet(size);
        long memoryAddress = RdmaNative.directBufferAddress(memory);
        try {
            region = MemoryRegion.register(pd, memoryAddress, size, access, what);
        } catch (IOException | RuntimeException e) {
            RdmaNative.freeMemory(memoryAddress);
            ALLOCATED_BYTES.addAndGet(-size);
            throw e;
        }
        buffer = memory;
        address = memoryAddress;
        LIVE_REGISTRATIONS.incrementAndGet();
        LIVE_BYTES.addAndGet(size);
    }

    /**
     * Returns the memory; its position and limit are the caller's to use. It must not be touched
     * once {@link #close()} ran and every hold of {@link #retainMemory()} was released.
     */
    public ByteBuffer buffer() {
        return buffer;
    }

    /** Returns the virtual address of the first byte. */
    public long address() {
        return address;
    }

    /** Returns the size in bytes. */
    public int size() {
        return buffer.capacity();
    }

    /** Returns the local key, for scatter/gather entries. */
    public int lkey() {
        return region.lkey();
    }

    /** Returns the {@code ibv_mr*}, to bind memory windows over. */
    public long mr() {
        return region.mr();
    }

    /** Keeps the memory (not the registration) alive past {@link #close()}, until {@link #releaseMemory()}. */
    public void retainMemory() {
        memoryHolds.incrementAndGet();
    }

    /** Drops a hold taken with {@link #retainMemory()}; from any thread. The last one frees the memory. */
    public void releaseMemory() {
        if (memoryHolds.decrementAndGet() == 0) {
            RdmaNative.freeMemory(address);
            ALLOCATED_BYTES.addAndGet(-buffer.capacity());
        }
    }

    /**
     * Deregisters the memory, from then on neither the device nor a peer can access it, and drops the
     * owner's hold on it. A deregistration the device refuses is counted
     * ({@link RegisteredMemoryBudget#failedDeregistrations()}), and the memory then stays what it is:
     * registered, pinned, counted against the budget and among the live registrations, and never
     * freed, since the device could still write into it.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (!region.deregister()) {
            return;
        }
        LIVE_REGISTRATIONS.decrementAndGet();
        LIVE_BYTES.addAndGet(-buffer.capacity());
        releaseMemory();
    }

    /** Returns the number of registrations not yet closed, process-wide. */
    public static int liveRegistrations() {
        return LIVE_REGISTRATIONS.get();
    }

    /**
     * Returns the native memory of these buffers not yet freed, process-wide: registered, or held by
     * buffers the pipeline has not released.
     */
    public static long allocatedBytes() {
        return ALLOCATED_BYTES.get();
    }

    /** Returns the bytes registered and not yet deregistered, process-wide. */
    public static long liveBytes() {
        return LIVE_BYTES.get();
    }
}
