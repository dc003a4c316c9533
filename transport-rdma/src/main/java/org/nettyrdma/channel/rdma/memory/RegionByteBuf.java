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
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.ScatteringByteChannel;

import io.netty.buffer.AbstractReferenceCountedByteBuf;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.Recycler;
import io.netty.util.internal.CleanableDirectBuffer;
import io.netty.util.internal.PlatformDependent;
import org.nettyrdma.channel.rdma.internal.RdmaNative;

/**
 * A buffer over a piece of direct memory that it does not own: a block of the registered pool
 * ({@link #ofBlock}) or a region of a connection's receive ring ({@link #ofRegion}). When its last
 * reference is released it gives the memory back (to the pool, or to the region's {@link Releaser}),
 * and the buffer object itself goes back to a {@link Recycler}, so a steady stream of such buffers
 * makes no garbage, as Netty's pooled buffers do not.
 *
 * <p>Bytes are read and written with absolute {@link ByteBuffer} operations on the memory's view,
 * which needs no {@code sun.misc.Unsafe} (Netty disables it by default on Java 25). The view's
 * position and limit are never changed here, so a view shared by several buffers (the ring) stays
 * usable by all; {@link #internalNioBuffer} hands out a private duplicate instead.
 *
 * <p>When a buffer grows past its memory it moves to a larger block of its pool, or, if there is
 * none, to ordinary direct memory (which an RDMA channel sends with a copy), and gives the old
 * memory back at once. Not thread-safe, like every {@link ByteBuf}; it may be released on any thread.
 */
public final class RegionByteBuf extends AbstractReferenceCountedByteBuf {

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
    /** Big-endian, limit equal to its capacity; read and written with absolute operations only. */
    private ByteBuffer memory;
    /** Where this buffer's index 0 lies in {@link #memory}. */
    private int offset;
    /** The bytes of {@link #memory} from {@link #offset} on that this buffer may use: it grows in place up to them. */
    private int length;
    private long address;
    private int capacity;
    /** Where the memory came from and where growth looks first; {@code null} for a ring region. */
    private RegisteredMemoryPool pool;
    /** Set while the memory is a lent region. */
    private Releaser releaser;
    private long token;
    /** Set while the memory is ordinary direct memory that this buffer allocated when it grew. */
    private CleanableDirectBuffer unpooled;
    /** A duplicate of {@link #memory} for {@link #internalNioBuffer}, made on first use. */
    private ByteBuffer tmpNioBuf;

    private RegionByteBuf(Recycler.Handle<RegionByteBuf> handle) {
        super(0);
        this.handle = handle;
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
        tmpNioBuf = null;
        this.memory = memory;
        this.offset = offset;
        this.length = length;
        this.address = RdmaNative.directBufferAddress(memory) + offset;
    }

    @Override
    protected void deallocate() {
        freeMemory();
        // A recycled buffer must not keep a closed connection's ring (or anything else) reachable.
        alloc = null;
        pool = null;
        memory = null;
        tmpNioBuf = null;
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
            pool.free(memory);
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
        block.put(0, memory, offset, capacity);
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

    @Override
    @SuppressWarnings("deprecation")
    public ByteOrder order() {
        return ByteOrder.BIG_ENDIAN;
    }

    @Override
    public ByteBuf unwrap() {
        return null;
    }

    @Override
    public boolean isDirect() {
        return true;
    }

    @Override
    public boolean isContiguous() {
        return true;
    }

    @Override
    public boolean hasArray() {
        return false;
    }

    @Override
    public byte[] array() {
        throw new UnsupportedOperationException("direct buffer");
    }

    @Override
    public int arrayOffset() {
        throw new UnsupportedOperationException("direct buffer");
    }

    /**
     * Returns {@code true}: the address is real with or without {@code Unsafe}, and an RDMA channel
     * finds registered memory by it. Netty copies through it only where {@code Unsafe} is available,
     * as for its own pooled direct buffers.
     */
    @Override
    public boolean hasMemoryAddress() {
        return true;
    }

    @Override
    public long memoryAddress() {
        ensureAccessible();
        return address;
    }

    @Override
    protected byte _getByte(int index) {
        return memory.get(offset + index);
    }

    @Override
    protected short _getShort(int index) {
        return memory.getShort(offset + index);
    }

    @Override
    protected short _getShortLE(int index) {
        return Short.reverseBytes(memory.getShort(offset + index));
    }

    @Override
    protected int _getUnsignedMedium(int index) {
        int i = offset + index;
        return (memory.get(i) & 0xff) << 16 | (memory.get(i + 1) & 0xff) << 8 | memory.get(i + 2) & 0xff;
    }

    @Override
    protected int _getUnsignedMediumLE(int index) {
        int i = offset + index;
        return memory.get(i) & 0xff | (memory.get(i + 1) & 0xff) << 8 | (memory.get(i + 2) & 0xff) << 16;
    }

    @Override
    protected int _getInt(int index) {
        return memory.getInt(offset + index);
    }

    @Override
    protected int _getIntLE(int index) {
        return Integer.reverseBytes(memory.getInt(offset + index));
    }

    @Override
    protected long _getLong(int index) {
        return memory.getLong(offset + index);
    }

    @Override
    protected long _getLongLE(int index) {
        return Long.reverseBytes(memory.getLong(offset + index));
    }

    @Override
    protected void _setByte(int index, int value) {
        memory.put(offset + index, (byte) value);
    }

    @Override
    protected void _setShort(int index, int value) {
        memory.putShort(offset + index, (short) value);
    }

    @Override
    protected void _setShortLE(int index, int value) {
        memory.putShort(offset + index, Short.reverseBytes((short) value));
    }

    @Override
    protected void _setMedium(int index, int value) {
        int i = offset + index;
        memory.put(i, (byte) (value >>> 16));
        memory.put(i + 1, (byte) (value >>> 8));
        memory.put(i + 2, (byte) value);
    }

    @Override
    protected void _setMediumLE(int index, int value) {
        int i = offset + index;
        memory.put(i, (byte) value);
        memory.put(i + 1, (byte) (value >>> 8));
        memory.put(i + 2, (byte) (value >>> 16));
    }

    @Override
    protected void _setInt(int index, int value) {
        memory.putInt(offset + index, value);
    }

    @Override
    protected void _setIntLE(int index, int value) {
        memory.putInt(offset + index, Integer.reverseBytes(value));
    }

    @Override
    protected void _setLong(int index, long value) {
        memory.putLong(offset + index, value);
    }

    @Override
    protected void _setLongLE(int index, long value) {
        memory.putLong(offset + index, Long.reverseBytes(value));
    }

    @Override
    public ByteBuf getBytes(int index, ByteBuf dst, int dstIndex, int length) {
        checkDstIndex(index, length, dstIndex, dst.capacity());
        if (length == 0) {
            return this;
        }
        if (dst.hasMemoryAddress() && PlatformDependent.hasUnsafe()) {
            PlatformDependent.copyMemory(address + index, dst.memoryAddress() + dstIndex, length);
        } else if (dst.hasArray()) {
            memory.get(offset + index, dst.array(), dst.arrayOffset() + dstIndex, length);
        } else if (dst.isDirect() && dst.nioBufferCount() == 1) {
            // The destination's own cached view: no ByteBuffer is made for the copy.
            ByteBuffer target = dst.internalNioBuffer(dstIndex, length);
            target.put(target.position(), memory, offset + index, length);
        } else {
            dst.setBytes(dstIndex, this, index, length);
        }
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, byte[] dst, int dstIndex, int length) {
        checkDstIndex(index, length, dstIndex, dst.length);
        memory.get(offset + index, dst, dstIndex, length);
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, ByteBuffer dst) {
        int length = dst.remaining();
        checkIndex(index, length);
        int position = dst.position();
        dst.put(position, memory, offset + index, length);
        dst.position(position + length);
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, OutputStream out, int length) throws IOException {
        checkIndex(index, length);
        byte[] chunk = new byte[Math.min(length, 8192)];
        for (int done = 0; done < length; ) {
            int n = Math.min(chunk.length, length - done);
            memory.get(offset + index + done, chunk, 0, n);
            out.write(chunk, 0, n);
            done += n;
        }
        return this;
    }

    @Override
    public int getBytes(int index, GatheringByteChannel out, int length) throws IOException {
        checkIndex(index, length);
        return length == 0 ? 0 : out.write(internalNioBuffer(index, length));
    }

    @Override
    public int getBytes(int index, FileChannel out, long position, int length) throws IOException {
        checkIndex(index, length);
        return length == 0 ? 0 : out.write(internalNioBuffer(index, length), position);
    }

    @Override
    public ByteBuf setBytes(int index, ByteBuf src, int srcIndex, int length) {
        checkSrcIndex(index, length, srcIndex, src.capacity());
        if (length == 0) {
            return this;
        }
        if (src.hasMemoryAddress() && PlatformDependent.hasUnsafe()) {
            PlatformDependent.copyMemory(src.memoryAddress() + srcIndex, address + index, length);
        } else if (src.hasArray()) {
            memory.put(offset + index, src.array(), src.arrayOffset() + srcIndex, length);
        } else if (src.isDirect() && src.nioBufferCount() == 1) {
            ByteBuffer source = src.internalNioBuffer(srcIndex, length);
            memory.put(offset + index, source, source.position(), length);
        } else {
            src.getBytes(srcIndex, this, index, length);
        }
        return this;
    }

    @Override
    public ByteBuf setBytes(int index, byte[] src, int srcIndex, int length) {
        checkSrcIndex(index, length, srcIndex, src.length);
        memory.put(offset + index, src, srcIndex, length);
        return this;
    }

    @Override
    public ByteBuf setBytes(int index, ByteBuffer src) {
        int length = src.remaining();
        checkIndex(index, length);
        memory.put(offset + index, src, src.position(), length);
        src.position(src.limit());
        return this;
    }

    @Override
    public int setBytes(int index, InputStream in, int length) throws IOException {
        checkIndex(index, length);
        byte[] chunk = new byte[length];
        int read = in.read(chunk, 0, length);
        if (read > 0) {
            memory.put(offset + index, chunk, 0, read);
        }
        return read;
    }

    @Override
    public int setBytes(int index, ScatteringByteChannel in, int length) throws IOException {
        checkIndex(index, length);
        try {
            return in.read(internalNioBuffer(index, length));
        } catch (ClosedChannelException e) {
            return -1;
        }
    }

    @Override
    public int setBytes(int index, FileChannel in, long position, int length) throws IOException {
        checkIndex(index, length);
        try {
            return in.read(internalNioBuffer(index, length), position);
        } catch (ClosedChannelException e) {
            return -1;
        }
    }

    @Override
    public ByteBuf copy(int index, int length) {
        checkIndex(index, length);
        ByteBuf copy = alloc().directBuffer(length, maxCapacity());
        return copy.writeBytes(this, index, length);
    }

    @Override
    public int nioBufferCount() {
        return 1;
    }

    @Override
    public ByteBuffer nioBuffer(int index, int length) {
        checkIndex(index, length);
        return memory.slice(offset + index, length);
    }

    @Override
    public ByteBuffer[] nioBuffers(int index, int length) {
        return new ByteBuffer[] {nioBuffer(index, length)};
    }

    @Override
    public ByteBuffer internalNioBuffer(int index, int length) {
        checkIndex(index, length);
        if (tmpNioBuf == null) {
            tmpNioBuf = memory.duplicate();
        }
        tmpNioBuf.clear().position(offset + index).limit(offset + index + length);
        return tmpNioBuf;
    }
}
