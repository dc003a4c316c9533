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
import io.netty.util.internal.PlatformDependent;
import org.nettyrdma.channel.rdma.internal.RdmaNative;

/**
 * The byte access of a direct {@link ByteBuf} whose bytes are a window of a {@link ByteBuffer} view,
 * apart from where that memory comes from and when it goes back, which the subclass decides.
 *
 * <p>Bytes are read and written with absolute {@link ByteBuffer} operations on the view, which need
 * no {@code sun.misc.Unsafe} (Netty disables it by default on Java 25). The view's position and limit
 * are never changed here, so a view shared by several buffers (a receive ring) stays usable by all;
 * {@link #internalNioBuffer} hands out a private duplicate instead, made anew for each memory a
 * recycled buffer views. Copies to and from another buffer read this side straight from the view,
 * without that duplicate, which is why {@link BufferCopy} hands the copies that involve a view to the
 * view. Not thread-safe, like every {@link ByteBuf}.
 */
abstract class AbstractViewByteBuf extends AbstractReferenceCountedByteBuf {

    /** Big-endian, limit equal to its capacity; read and written with absolute operations only. */
    private ByteBuffer memory;
    /** Where this buffer's index 0 lies in {@link #memory}. */
    private int offset;
    /** The native address of index 0, which Netty copies through and an RDMA channel finds a slab by. */
    private long address;
    /** A duplicate of {@link #memory} for {@link #internalNioBuffer}, made on first use. */
    private ByteBuffer tmpNioBuf;

    AbstractViewByteBuf(int maxCapacity) {
        super(maxCapacity);
    }

    /**
     * Makes index 0 of this buffer byte {@code offset} of {@code memory}, which must be direct,
     * big-endian and have its limit at its capacity; the subclass checks that where memory enters.
     */
    final void view(ByteBuffer memory, int offset) {
        // A duplicate of the previous memory would read the wrong bytes.
        tmpNioBuf = null;
        this.memory = memory;
        this.offset = offset;
        this.address = RdmaNative.directBufferAddress(memory) + offset;
    }

    /** Lets go of the view, so that a recycled buffer keeps no memory (or the ring it lies in) reachable. */
    final void clearView() {
        memory = null;
        tmpNioBuf = null;
    }

    /** Returns the view this buffer's bytes lie in, shared with other buffers when it is a ring's. */
    final ByteBuffer memory() {
        return memory;
    }

    /** Returns where this buffer's index 0 lies in {@link #memory()}. */
    final int offset() {
        return offset;
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
