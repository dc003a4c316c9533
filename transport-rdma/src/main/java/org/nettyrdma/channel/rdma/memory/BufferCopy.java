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
import io.netty.util.internal.MathUtil;
import io.netty.util.internal.PlatformDependent;

/**
 * Copies bytes between two buffers without leaving garbage per copy, where Netty's own
 * {@link ByteBuf#setBytes(int, ByteBuf, int, int)} makes a {@link ByteBuffer} view per call between
 * buffers of different kinds (a staging block and a user's pooled buffer, say): address to address
 * where Netty has {@code Unsafe}; else a view buffer of the transport's (a received slot, a block)
 * copies itself, reading its side straight from its memory; else between the buffers' internal NIO
 * buffers with an absolute bulk put. Netty 4.2 on JDK 24 and later runs without {@code Unsafe} by
 * default, so every way is the default on some JDK the library supports.
 */
public final class BufferCopy {

    private BufferCopy() {
    }

    /**
     * Copies {@code length} bytes of {@code src} from {@code srcIndex} into {@code dst} at
     * {@code dstIndex}, leaving both buffers' indexes alone. {@code src} and {@code dst} must be
     * different buffers that share no internal NIO buffer, as a block of the transport's and a
     * user's buffer never do.
     */
    public static void copy(ByteBuf src, int srcIndex, ByteBuf dst, int dstIndex, int length) {
        if (PlatformDependent.hasUnsafe() && src.hasMemoryAddress() && dst.hasMemoryAddress()) {
            checkRange(src, srcIndex, length);
            checkRange(dst, dstIndex, length);
            PlatformDependent.copyMemory(src.memoryAddress() + srcIndex, dst.memoryAddress() + dstIndex, length);
        } else if (RegionByteBuf.isRegion(src)) {
            // A recycled view makes a new internal NIO buffer for each memory it views: it reads its
            // own memory instead.
            src.getBytes(srcIndex, dst, dstIndex, length);
        } else if (RegionByteBuf.isRegion(dst)) {
            dst.setBytes(dstIndex, src, srcIndex, length);
        } else if (src.nioBufferCount() == 1 && dst.nioBufferCount() == 1) {
            // Each internal NIO buffer is cached by its ByteBuf, and the absolute put moves neither
            // position: nothing is allocated once each buffer made its own.
            ByteBuffer from = src.internalNioBuffer(srcIndex, length);
            ByteBuffer to = dst.internalNioBuffer(dstIndex, length);
            to.put(to.position(), from, from.position(), length);
        } else {
            dst.setBytes(dstIndex, src, srcIndex, length);
        }
    }

    /** The bounds check that Netty's own copies make, which an address-to-address copy would skip. */
    private static void checkRange(ByteBuf buf, int index, int length) {
        if (MathUtil.isOutOfBounds(index, length, buf.capacity())) {
            throw new IndexOutOfBoundsException("index: " + index + ", length: " + length + " (capacity: "
                    + buf.capacity() + ')');
        }
    }
}
