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
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import io.netty.util.concurrent.DefaultThreadFactory;
import org.nettyrdma.channel.rdma.internal.RdmaNative;

/**
 * The memory of the registered allocator: blocks of power-of-two sizes from {@link #MIN_BLOCK} to
 * {@link #MAX_BLOCK}, carved from {@link RegisteredSlab}s of {@link #SLAB_SIZE} bytes, each slab into
 * blocks of one size at a time. The pool grows slab by slab up to a limit, so the memory it holds is
 * bounded and, once warm, allocating takes no new memory at all. At the limit, a slab none of whose
 * blocks is out is carved again for the size that finds no free block: a burst of one size does not
 * keep the others out of registered memory for good.
 *
 * <p>After a burst the pool gives back what it does not need: it keeps up to a number of slabs none of
 * whose blocks is out, to serve the next burst without registering again, and releases every further
 * slab that stayed wholly free for a delay ({@link RegisteredSlab#release()}): its registrations, which
 * unpins its pages, and its memory once the garbage collector frees the buffer. The delay keeps a load
 * that swings around the retained amount from registering and deregistering a slab with every swing;
 * the slabs free longest go first.
 *
 * <p>Thread-safe: buffers are allocated and released on any thread, under one lock held only to take
 * or return a block (and, at the limit, to carve a slab again); a slab is deregistered outside it, on
 * the thread that returned its last block when there is no delay, else on a timer's daemon thread.
 */
public final class RegisteredMemoryPool {

    /** The smallest block: smaller requests round up to it. */
    static final int MIN_BLOCK = 1024;
    /** The largest block: larger requests are not served from the pool. */
    public static final int MAX_BLOCK = 4 * 1024 * 1024;
    /** The size of a slab, registered in one piece. */
    public static final int SLAB_SIZE = 4 * 1024 * 1024;

    private static final int MIN_SHIFT = Integer.numberOfTrailingZeros(MIN_BLOCK);

    /** Runs a task once after a delay; the pool's way to come back for slabs that stayed free. */
    @FunctionalInterface
    interface ReleaseTimer {
        void schedule(Runnable task, long delayNanos);
    }

    /**
     * The timer of pools with a delay: one daemon thread, started when a release is due and gone a
     * second after the last one, so an idle process keeps no thread for it.
     */
    private static final class DaemonTimer implements ReleaseTimer {
        static final DaemonTimer INSTANCE = new DaemonTimer();

        private final ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1,
                new DefaultThreadFactory("rdma-memory-release", true));

        private DaemonTimer() {
            executor.setKeepAliveTime(1, TimeUnit.SECONDS);
            executor.allowCoreThreadTimeOut(true);
        }

        @Override
        public void schedule(Runnable task, long delayNanos) {
            executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** Per block size, the slabs of that carving with a free block; the first serves first. */
    private final ArrayDeque<RegisteredSlab>[] withFreeBlocks;
    private final List<RegisteredSlab> slabs = new ArrayList<>();
    private final int maxSlabs;
    private final int retainedFreeSlabs;
    private final long releaseDelayNanos;
    private final ReleaseTimer timer;
    private final LongSupplier clock;
    /** Slabs none of whose blocks is out. */
    private int whollyFree;
    /** Whether the timer will come back to release slabs beyond the retained ones. */
    private boolean releaseScheduled;
    private long recarvings;
    private long releases;

    /**
     * Creates a pool that holds at most {@code maxBytes} (rounded down to whole slabs, at least one)
     * and keeps all of it.
     */
    public RegisteredMemoryPool(long maxBytes) {
        this(maxBytes, maxBytes);
    }

    /**
     * Creates a pool that holds at most {@code maxBytes} (rounded down to whole slabs, at least one)
     * and keeps at most {@code retainedBytes} of slabs none of whose blocks is out (rounded down to
     * whole slabs); it releases each other one as its last block returns.
     */
    public RegisteredMemoryPool(long maxBytes, long retainedBytes) {
        this(maxBytes, retainedBytes, 0);
    }

    /**
     * Creates a pool that holds at most {@code maxBytes} (rounded down to whole slabs, at least one)
     * and keeps at most {@code retainedBytes} of slabs none of whose blocks is out (rounded down to
     * whole slabs); it releases the others once they stayed wholly free for {@code releaseDelayNanos}
     * (at once if 0).
     */
    public RegisteredMemoryPool(long maxBytes, long retainedBytes, long releaseDelayNanos) {
        this(maxBytes, retainedBytes, releaseDelayNanos, DaemonTimer.INSTANCE, System::nanoTime);
    }

    @SuppressWarnings({"unchecked", "rawtypes"}) // an array of generic deques
    RegisteredMemoryPool(long maxBytes, long retainedBytes, long releaseDelayNanos, ReleaseTimer timer,
            LongSupplier clock) {
        if (retainedBytes < 0) {
            throw new IllegalArgumentException("retainedBytes: " + retainedBytes + " (expected: >= 0)");
        }
        if (releaseDelayNanos < 0) {
            throw new IllegalArgumentException("releaseDelayNanos: " + releaseDelayNanos + " (expected: >= 0)");
        }
        this.releaseDelayNanos = releaseDelayNanos;
        this.timer = timer;
        this.clock = clock;
        withFreeBlocks = new ArrayDeque[Integer.numberOfTrailingZeros(MAX_BLOCK) - MIN_SHIFT + 1];
        for (int i = 0; i < withFreeBlocks.length; i++) {
            withFreeBlocks[i] = new ArrayDeque<>();
        }
        maxSlabs = (int) Math.max(1, Math.min(Integer.MAX_VALUE, maxBytes / SLAB_SIZE));
        retainedFreeSlabs = (int) Math.min(maxSlabs, retainedBytes / SLAB_SIZE);
    }

    /**
     * Returns a block of at least {@code capacity} bytes, with position 0 and limit {@code capacity},
     * or {@code null} if the request is larger than {@link #MAX_BLOCK} or the pool is at its limit
     * with no block of that size free and no slab wholly free.
     */
    public ByteBuffer allocate(int capacity) {
        if (capacity <= 0 || capacity > MAX_BLOCK) {
            return null;
        }
        int sizeClass = sizeClass(capacity);
        ByteBuffer block;
        synchronized (this) {
            ArrayDeque<RegisteredSlab> candidates = withFreeBlocks[sizeClass];
            RegisteredSlab slab = candidates.peek();
            if (slab == null) {
                slab = slabFor(sizeClass);
                if (slab == null) {
                    return null;
                }
            }
            if (slab.isWhollyFree()) {
                whollyFree--;
            }
            block = slab.takeBlock();
            if (!slab.hasFreeBlock()) {
                candidates.poll();
            }
        }
        block.clear().limit(capacity);
        return block;
    }

    /**
     * Gives a block back.
     *
     * @return {@code false} if {@code buffer} is not a block of this pool
     */
    public boolean free(ByteBuffer buffer) {
        if (!buffer.isDirect()) {
            return false;
        }
        RegisteredSlab slab = RegisteredSlab.find(RdmaNative.directBufferAddress(buffer), buffer.capacity());
        if (slab == null || slab.owner() != this) {
            return false;
        }
        RegisteredSlab released = null;
        synchronized (this) {
            if (slab.isReleased() || buffer.capacity() != slab.blockSize()) {
                // Its slab was carved again or released, which happens only when all its blocks were back.
                throw new IllegalStateException("a block of " + buffer.capacity() + " bytes returned to a slab "
                        + (slab.isReleased() ? "released" : "carved in blocks of " + slab.blockSize())
                        + ": released twice?");
            }
            if (!slab.hasFreeBlock()) {
                withFreeBlocks[sizeClass(slab.blockSize())].addFirst(slab);
            }
            slab.returnBlock(buffer);
            if (!slab.isWhollyFree()) {
                return true;
            }
            whollyFree++;
            slab.whollyFreeSince(clock.getAsLong());
            if (whollyFree <= retainedFreeSlabs) {
                return true;
            }
            if (releaseDelayNanos == 0) {
                // One more than the pool keeps: off the lists now, so no allocation can take a block of it.
                retire(slab);
                released = slab;
            } else if (releaseScheduled) {
                return true;
            } else {
                releaseScheduled = true;
            }
        }
        // Outside the lock: deregistering is a system call per device, scheduling may start the
        // timer's thread, and other threads allocate.
        if (released != null) {
            released.release();
        } else {
            timer.schedule(this::releaseIdleSlabs, releaseDelayNanos);
        }
        return true;
    }

    /**
     * Releases the wholly free slabs beyond the retained ones that stayed so for the delay, those free
     * longest first, and comes back for the others when their delay ends. Run by the timer.
     */
    private void releaseIdleSlabs() {
        List<RegisteredSlab> idle = new ArrayList<>();
        long comeBackIn = -1;
        synchronized (this) {
            releaseScheduled = false;
            long now = clock.getAsLong();
            while (whollyFree > retainedFreeSlabs) {
                RegisteredSlab longestFree = null;
                for (RegisteredSlab slab : slabs) {
                    if (slab.isWhollyFree() && (longestFree == null
                            || slab.whollyFreeSince() - longestFree.whollyFreeSince() < 0)) {
                        longestFree = slab;
                    }
                }
                long waited = now - longestFree.whollyFreeSince();
                if (waited < releaseDelayNanos) {
                    releaseScheduled = true;
                    comeBackIn = releaseDelayNanos - waited;
                    break;
                }
                retire(longestFree);
                idle.add(longestFree);
            }
        }
        for (RegisteredSlab slab : idle) {
            slab.release();
        }
        if (comeBackIn >= 0) {
            timer.schedule(this::releaseIdleSlabs, comeBackIn);
        }
    }

    /** Takes a wholly free slab off the pool's lists and marks it released. Called with the lock held. */
    private void retire(RegisteredSlab slab) {
        withFreeBlocks[sizeClass(slab.blockSize())].remove(slab);
        slabs.remove(slab);
        whollyFree--;
        slab.retire();
        releases++;
    }

    /** Returns the slabs this pool allocated. */
    public synchronized int slabs() {
        return slabs.size();
    }

    /** Returns the most slabs this pool allocates. */
    int maxSlabs() {
        return maxSlabs;
    }

    /** Returns how often a wholly free slab was carved again for another block size. */
    synchronized long recarvings() {
        return recarvings;
    }

    /** Returns how many slabs the pool released because it kept enough wholly free ones. */
    public synchronized long releases() {
        return releases;
    }

    /** Returns how long a wholly free slab beyond the retained ones stays before it is released. */
    public long releaseDelayNanos() {
        return releaseDelayNanos;
    }

    /** Returns the most bytes of wholly free slabs the pool keeps. */
    public long retainedBytes() {
        return (long) retainedFreeSlabs * SLAB_SIZE;
    }

    /**
     * A slab for blocks of {@code sizeClass}, none of which is free: a new one below the limit, at the
     * limit one with no block out, carved again, or {@code null}. Called with the lock held.
     */
    private RegisteredSlab slabFor(int sizeClass) {
        int blockSize = MIN_BLOCK << sizeClass;
        RegisteredSlab slab = null;
        if (slabs.size() < maxSlabs) {
            slab = RegisteredSlab.allocate(SLAB_SIZE, blockSize, this);
            slabs.add(slab);
            whollyFree++;
            slab.whollyFreeSince(clock.getAsLong());
        } else {
            for (RegisteredSlab candidate : slabs) {
                if (candidate.isWhollyFree()) {
                    slab = candidate;
                    break;
                }
            }
            if (slab == null) {
                return null;
            }
            // It has free blocks of another size (none of this one is free), so it is listed there.
            withFreeBlocks[sizeClass(slab.blockSize())].remove(slab);
            slab.carve(blockSize);
            recarvings++;
        }
        withFreeBlocks[sizeClass].add(slab);
        return slab;
    }

    private static int sizeClass(int capacity) {
        int rounded = Math.max(MIN_BLOCK, Integer.highestOneBit(capacity - 1) << 1);
        return Integer.numberOfTrailingZeros(rounded) - MIN_SHIFT;
    }
}
