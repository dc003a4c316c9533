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

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.internal.SystemPropertyUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.connection.PooledMemory;
import org.nettyrdma.channel.rdma.memory.RdmaDevice;
import org.nettyrdma.channel.rdma.memory.RegionByteBuf;
import org.nettyrdma.channel.rdma.memory.RegisteredBuffer;
import org.nettyrdma.channel.rdma.memory.RegisteredMemoryPool;
import org.nettyrdma.channel.rdma.memory.RegisteredSlab;
import org.nettyrdma.channel.rdma.memory.SendBlocks;
import org.nettyrdma.channel.rdma.memory.StagingBlock;

/**
 * The default {@link ByteBufAllocator} of RDMA channels: direct buffers come from memory that is
 * registered with the RDMA device, so what a pipeline allocates from {@code ctx.alloc()} and writes
 * travels by RDMA Write straight from where it was written, without a copy into the send buffer.
 * Heap buffers, direct buffers smaller than {@code -Dorg.nettyrdma.allocator.minRegistered} bytes
 * (default 8 KiB, the default receive slot: smaller writes travel as Sends, which copy them anyway),
 * larger than {@value RegisteredMemoryPool#MAX_BLOCK} bytes, or requested when the pool is at its
 * limit, come from {@link ByteBufAllocator#DEFAULT}, whose buffer objects are recycled; an RDMA
 * channel copies those once into registered memory when it sends them. Buffer objects of the pool are
 * recycled as Netty's pooled buffers are ({@link RegionByteBuf}), so allocating and releasing them
 * makes no garbage on threads that clean up their thread-locals (Netty's event loops).
 *
 * <p>The pool is shared by the whole process and grows in slabs of
 * {@value #SLAB_SIZE} bytes up to {@code -Dorg.nettyrdma.allocator.maxMemory}
 * bytes (default 256 MiB); at that limit a slab none of whose blocks is in use is carved again for a
 * size that needs one. Of the slabs none of whose blocks is in use it keeps up to
 * {@code -Dorg.nettyrdma.allocator.retainedMemory} bytes (default 32 MiB) for the next burst and
 * releases the others once they stayed unused for {@code -Dorg.nettyrdma.allocator.releaseDelayMillis}
 * (default 1000; 0 releases a slab as its last block returns): their registration then, their memory
 * when the garbage collector frees it.
 * It is registered for local access only: peers can neither read nor write it. Connections stage the
 * bytes they copy before sending in blocks of the same pool ({@link #stagingBlocks}), so the memory
 * they hold for that comes and goes with their sends. Thread-safe.
 */
public final class RdmaByteBufAllocator extends AbstractByteBufAllocator {

    /**
     * The bytes of each slab the pool registers at once: what one registration of the allocator
     * costs, and the step in which its registered memory grows and shrinks.
     */
    public static final int SLAB_SIZE = RegisteredMemoryPool.SLAB_SIZE;

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RdmaByteBufAllocator.class);

    private static final long MAX_MEMORY = SystemPropertyUtil.getLong("org.nettyrdma.allocator.maxMemory",
            256L * 1024 * 1024);
    private static final int MIN_REGISTERED = SystemPropertyUtil.getInt("org.nettyrdma.allocator.minRegistered",
            8192);
    private static final long RETAINED_MEMORY = SystemPropertyUtil.getLong("org.nettyrdma.allocator.retainedMemory",
            32L * 1024 * 1024);
    private static final long RELEASE_DELAY_MILLIS = SystemPropertyUtil.getLong(
            "org.nettyrdma.allocator.releaseDelayMillis", 1000);
    private static final RegisteredMemoryPool POOL = new RegisteredMemoryPool(MAX_MEMORY, RETAINED_MEMORY,
            TimeUnit.MILLISECONDS.toNanos(RELEASE_DELAY_MILLIS));

    /** The allocator; there is one, because its registered memory is shared by the process. */
    public static final RdmaByteBufAllocator DEFAULT = new RdmaByteBufAllocator();

    /** The pool's blocks and the leak detector, as a connection takes them. */
    static final PooledMemory POOLED_MEMORY = new PooledMemory() {
        @Override
        public SendBlocks.Source stagingBlocks(RdmaDevice device) {
            return RdmaByteBufAllocator.stagingBlocks(device);
        }

        @Override
        public ByteBuf trackLeaks(ByteBuf buf) {
            return RdmaByteBufAllocator.trackLeaks(buf);
        }
    };

    private final ByteBufAllocator unregistered = ByteBufAllocator.DEFAULT;

    private RdmaByteBufAllocator() {
        super(true);
    }

    /** Returns the bytes of allocator memory registered with RDMA devices, process-wide. */
    public static long registeredBytes() {
        return RegisteredSlab.registeredBytes();
    }

    /** Returns the bytes of memory the pool holds (registered or not yet), process-wide. */
    public static long pooledBytes() {
        return (long) POOL.slabs() * RegisteredMemoryPool.SLAB_SIZE;
    }

    /**
     * Returns the most bytes the pool keeps in slabs none of whose blocks is in use: what it holds
     * beyond that after a burst, it releases after {@link #releaseDelayMillis()}.
     */
    public static long retainedBytes() {
        return POOL.retainedBytes();
    }

    /** Returns how long a slab beyond the retained bytes stays unused before the pool releases it. */
    public static long releaseDelayMillis() {
        return TimeUnit.NANOSECONDS.toMillis(POOL.releaseDelayNanos());
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return unregistered.heapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        ByteBuffer block = initialCapacity >= MIN_REGISTERED ? POOL.allocate(initialCapacity) : null;
        if (block == null) {
            // Small (a Send copies it anyway), larger than the largest block, or the pool is full.
            return unregistered.directBuffer(initialCapacity, maxCapacity);
        }
        return toLeakAwareBuffer(RegionByteBuf.ofBlock(this, POOL, block, initialCapacity, maxCapacity));
    }

    /**
     * Returns where a connection on {@code device} takes the blocks it stages its copied sends in:
     * blocks of this allocator's pool, whose slabs are registered with {@code device} on first use.
     * They count against the pool's limit and the registered memory limit like any buffer of it.
     */
    static SendBlocks.Source stagingBlocks(RdmaDevice device) {
        return new StagingBlocks(device);
    }

    /** The pool's blocks, with their key on one device, as one connection's staging memory. */
    private static final class StagingBlocks implements SendBlocks.Source {
        private final RdmaDevice device;

        StagingBlocks(RdmaDevice device) {
            this.device = device;
        }

        @Override
        public StagingBlock take(int size) {
            ByteBuffer block = POOL.allocate(size);
            if (block == null) {
                return null;
            }
            RegionByteBuf memory = RegionByteBuf.ofBlock(DEFAULT, POOL, block, size, size);
            long address = memory.memoryAddress();
            try {
                return new StagingBlock(memory, address, RegisteredSlab.find(address, size).lkey(device));
            } catch (IOException e) {
                // The registered memory limit refused the slab on this device, or the device is going:
                // the connection waits as for a full pool (SendBlocks#starved).
                memory.release();
                logger.debug("no staging block of {} bytes on {}", size, device, e);
                return null;
            }
        }

        @Override
        public StagingBlock takeOwn(int size) {
            try {
                // Small (a block, not a slab), so it fits where the limit has no room for a slab.
                RegisteredBuffer own = new RegisteredBuffer(device, size, 0, "a staging block of a connection");
                return new StagingBlock(Unpooled.wrappedBuffer(own.buffer()), own.address(), own.lkey(), own);
            } catch (IOException e) {
                logger.debug("no staging block of {} bytes of its own on {}", size, device, e);
                return null;
            }
        }

        @Override
        public void give(StagingBlock block) {
            if (block.registration() != null) {
                ((RegisteredBuffer) block.registration()).close();
            } else {
                block.memory().release();
            }
        }
    }

    /**
     * Hands {@code buf} to Netty's leak detector like the buffers this allocator makes: used for the
     * receive slots and ring pieces a channel hands up in place, so that a pipeline that never releases
     * one is reported, not only noticed as a sender that stalls once the slots or the ring are held.
     */
    static ByteBuf trackLeaks(ByteBuf buf) {
        return toLeakAwareBuffer(buf);
    }

    @Override
    public boolean isDirectBufferPooled() {
        return true;
    }
}
