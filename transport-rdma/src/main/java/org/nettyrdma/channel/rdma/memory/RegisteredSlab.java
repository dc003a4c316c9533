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
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.internal.DisniNative;
import org.nettyrdma.channel.rdma.internal.RdmaNative;

/**
 * A slab of direct memory that the registered allocator carves into blocks of one size at a time,
 * registered with each device the first time a block of it is sent there. Registered for local access
 * only: the device may read it for a Send or an RDMA Write; no peer can read or write it.
 *
 * <p>A slab stays registered while its pool keeps it, so a buffer can be sent on any connection of
 * its device without a registration per write; the protection domains it is registered in live as
 * long as the process. A process-wide table finds the slab of any address, so a slice or duplicate
 * of a block is recognised too. A pool that has enough wholly free slabs releases one
 * ({@link #release()}): deregistered, out of the table, its memory left to the garbage collector.
 * Thread-safe, except the carving and its free blocks, which the owning pool guards with its lock.
 */
public final class RegisteredSlab {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RegisteredSlab.class);

    private static final Object TABLE_LOCK = new Object();
    private static final AtomicLong REGISTERED_BYTES = new AtomicLong();
    private static final AtomicInteger REGISTRATIONS = new AtomicInteger();
    /**
     * Registrations and deregistrations begun and ended, process-wide: a reader of the kernel's count of
     * memory regions compares them around its reading to know that {@link #registrations()} matches it
     * (the kernel's count moves inside the verbs call, this class's counter just after it).
     */
    private static final AtomicLong CHANGES_BEGUN = new AtomicLong();
    private static final AtomicLong CHANGES_ENDED = new AtomicLong();
    /** Every slab, sorted by address; replaced, never modified, so lookups need no lock. */
    private static volatile RegisteredSlab[] table = new RegisteredSlab[0];

    private final ByteBuffer memory;
    private final long address;
    private final int size;
    /** The pool that carves this slab; its lock guards the carving and the free blocks. */
    private final Object owner;
    private int blockSize;
    /** The blocks not handed out, of the current carving. */
    private final ArrayDeque<ByteBuffer> freeBlocks = new ArrayDeque<>();
    /** The registration used last: a connection sends on one device, so this is nearly always it. */
    private volatile Registration last;
    private Registration[] registrations = new Registration[0];
    /** Set by the owning pool when it lets the slab go; no block of it is out then. */
    private volatile boolean released;
    /** When the last block came back ({@link System#nanoTime()} or the pool's clock); guarded by the pool. */
    private long whollyFreeSince;

    /** The memory region of this slab on one device. */
    private static final class Registration {
        final RdmaDevice device;
        final long mr;
        final int lkey;

        Registration(RdmaDevice device, long mr, int lkey) {
            this.device = device;
            this.mr = mr;
            this.lkey = lkey;
        }
    }

    private RegisteredSlab(int size, int blockSize, Object owner) {
        this.memory = ByteBuffer.allocateDirect(size);
        this.address = RdmaNative.directBufferAddress(memory);
        this.size = size;
        this.owner = owner;
        carve(blockSize);
    }

    /**
     * Allocates a slab of {@code size} bytes carved into free blocks of {@code blockSize} for
     * {@code owner}, and enters it in the table.
     */
    static RegisteredSlab allocate(int size, int blockSize, Object owner) {
        RegisteredSlab slab = new RegisteredSlab(size, blockSize, owner);
        synchronized (TABLE_LOCK) {
            RegisteredSlab[] old = table;
            RegisteredSlab[] grown = Arrays.copyOf(old, old.length + 1);
            int at = old.length;
            while (at > 0 && grown[at - 1].address > slab.address) {
                grown[at] = grown[at - 1];
                at--;
            }
            grown[at] = slab;
            table = grown;
        }
        return slab;
    }

    /** Returns the slab holding all of {@code [address, address + length)}, or {@code null}. */
    public static RegisteredSlab find(long address, int length) {
        RegisteredSlab[] slabs = table;
        int low = 0;
        int high = slabs.length - 1;
        while (low <= high) {
            int middle = (low + high) >>> 1;
            RegisteredSlab slab = slabs[middle];
            if (address < slab.address) {
                high = middle - 1;
            } else if (address >= slab.address + slab.size) {
                low = middle + 1;
            } else {
                return address + length <= slab.address + slab.size ? slab : null;
            }
        }
        return null;
    }

    /** Returns the memory regions of all slabs on all devices, process-wide, until their pools release them. */
    public static int registrations() {
        return REGISTRATIONS.get();
    }

    /** Returns how many slab registrations and deregistrations have begun, process-wide. */
    public static long changesBegun() {
        return CHANGES_BEGUN.get();
    }

    /** Returns how many slab registrations and deregistrations have ended, process-wide. */
    public static long changesEnded() {
        return CHANGES_ENDED.get();
    }

    /** Returns the bytes registered by all slabs on all devices, process-wide. */
    public static long registeredBytes() {
        return REGISTERED_BYTES.get();
    }

    /**
     * Cuts the slab into free blocks of {@code blockSize}; only while none of the current ones is out.
     * The registrations cover the whole slab, so they serve the new blocks unchanged.
     */
    void carve(int blockSize) {
        if (this.blockSize != 0 && !isWhollyFree()) {
            throw new IllegalStateException("carving a slab with blocks out");
        }
        this.blockSize = blockSize;
        freeBlocks.clear();
        for (int offset = 0; offset + blockSize <= size; offset += blockSize) {
            freeBlocks.add(memory.duplicate().position(offset).limit(offset + blockSize).slice());
        }
    }

    /** Returns the pool that carves this slab. */
    Object owner() {
        return owner;
    }

    /** Returns the size of the current carving's blocks. */
    int blockSize() {
        return blockSize;
    }

    /** Takes a free block, or returns {@code null} if every block is out. */
    ByteBuffer takeBlock() {
        return freeBlocks.poll();
    }

    /** Puts a block of the current carving back; it is the next one taken. */
    void returnBlock(ByteBuffer block) {
        freeBlocks.push(block);
    }

    /** Returns {@code true} if some block is free. */
    boolean hasFreeBlock() {
        return !freeBlocks.isEmpty();
    }

    /** Returns {@code true} if no block is out. */
    boolean isWhollyFree() {
        return freeBlocks.size() == size / blockSize;
    }

    /** Returns when the slab last became wholly free, as the owning pool recorded it. */
    long whollyFreeSince() {
        return whollyFreeSince;
    }

    /** Records that the slab became wholly free at {@code nanos}; called by the owning pool. */
    void whollyFreeSince(long nanos) {
        whollyFreeSince = nanos;
    }

    /**
     * Marks the slab released, under its pool's lock, once the pool took it off its lists: no block
     * of it is out, and none can be taken any more. {@link #release()} follows, outside the lock.
     */
    void retire() {
        if (!isWhollyFree()) {
            throw new IllegalStateException("releasing a slab with blocks out");
        }
        released = true;
        freeBlocks.clear();
    }

    /** Returns {@code true} once the pool let the slab go. */
    boolean isReleased() {
        return released;
    }

    /**
     * Deregisters a retired slab from every device and takes it out of the table. No work request can
     * still read it: every block was back, and a channel holds a block it sends until its send
     * completed. The memory itself goes when the garbage collector frees the buffer, not here: a
     * thread that looked the table up just before keeps the slab reachable, so no other buffer can
     * have been given its addresses meanwhile.
     */
    void release() {
        if (!released) {
            throw new IllegalStateException("releasing a slab its pool did not retire");
        }
        synchronized (this) {
            last = null;
            for (Registration r : registrations) {
                deregister(r);
            }
            registrations = new Registration[0];
        }
        synchronized (TABLE_LOCK) {
            RegisteredSlab[] old = table;
            for (int i = 0; i < old.length; i++) {
                if (old[i] == this) {
                    RegisteredSlab[] shrunk = new RegisteredSlab[old.length - 1];
                    System.arraycopy(old, 0, shrunk, 0, i);
                    System.arraycopy(old, i + 1, shrunk, i, old.length - i - 1);
                    table = shrunk;
                    return;
                }
            }
        }
    }

    /**
     * Deregisters every slab from {@code device}, which is being removed: its memory regions must go
     * before its protection domain can. No connection sends from a slab on it any more.
     */
    static void deregisterAll(RdmaDevice device) {
        for (RegisteredSlab slab : table) {
            slab.deregister(device);
        }
    }

    private synchronized void deregister(RdmaDevice device) {
        Registration recent = last;
        if (recent != null && recent.device == device) {
            last = null;
        }
        for (int i = 0; i < registrations.length; i++) {
            Registration r = registrations[i];
            if (r.device != device) {
                continue;
            }
            deregister(r);
            Registration[] shrunk = new Registration[registrations.length - 1];
            System.arraycopy(registrations, 0, shrunk, 0, i);
            System.arraycopy(registrations, i + 1, shrunk, i, registrations.length - i - 1);
            registrations = shrunk;
            return;
        }
    }

    private void deregister(Registration r) {
        CHANGES_BEGUN.incrementAndGet();
        try {
            DisniNative.dispatcher()._deregMr(r.mr);
            REGISTERED_BYTES.addAndGet(-size);
            REGISTRATIONS.decrementAndGet();
            RegisteredMemoryBudget.release(size);
        } catch (IOException e) {
            // The pages stay pinned until the process ends; the counts keep showing them.
            RegisteredMemoryBudget.deregistrationFailed();
            logger.warn("deregistering {} bytes of allocator memory from {} failed", size, r.device, e);
        } finally {
            CHANGES_ENDED.incrementAndGet();
        }
    }

    /**
     * Returns the local key of this slab on {@code device}, registering it on first use.
     *
     * @throws IOException if the device refuses the registration
     */
    public int lkey(RdmaDevice device) throws IOException {
        Registration registration = last;
        if (registration != null && registration.device == device) {
            return registration.lkey;
        }
        synchronized (this) {
            if (released) {
                // Only a block used after its release gets here: it is copied instead.
                throw new IOException("the registered slab at " + Long.toHexString(address) + " was released");
            }
            if (device.isRemoved()) {
                throw new IOException("the RDMA device " + device + " was removed");
            }
            for (Registration r : registrations) {
                if (r.device == device) {
                    last = r;
                    return r.lkey;
                }
            }
            if (!RegisteredMemoryBudget.tryReserve(size)) {
                // The buffer is copied into the connection's send buffer instead.
                throw RegisteredMemoryBudget.refusal("a slab of the allocator", size);
            }
            CHANGES_BEGUN.incrementAndGet();
            try {
                return register(device);
            } finally {
                CHANGES_ENDED.incrementAndGet();
            }
        }
    }

    /** Registers this slab with {@code device}; called holding this slab's lock. */
    private int register(RdmaDevice device) throws IOException {
        ByteBuffer keys = ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder());
        long keysAddress = RdmaNative.directBufferAddress(keys);
        long mr;
        try {
            mr = DisniNative.dispatcher()._regMr(device.pd(), address, size, 0, keysAddress, keysAddress + 4,
                    keysAddress + 8);
        } catch (IOException | RuntimeException e) {
            RegisteredMemoryBudget.release(size);
            throw e;
        }
        if (mr <= 0) {
            RegisteredMemoryBudget.release(size);
            throw new IOException("registering " + size + " bytes of allocator memory with " + device
                    + " failed");
        }
        RegisteredMemoryBudget.registered();
        Registration r = new Registration(device, mr, keys.getInt(0));
        registrations = Arrays.copyOf(registrations, registrations.length + 1);
        registrations[registrations.length - 1] = r;
        REGISTERED_BYTES.addAndGet(size);
        REGISTRATIONS.incrementAndGet();
        last = r;
        return r.lkey;
    }
}
