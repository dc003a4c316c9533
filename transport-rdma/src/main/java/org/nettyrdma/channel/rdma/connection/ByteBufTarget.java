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

import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;

import io.netty.buffer.ByteBuf;

/**
 * The channel a {@link io.netty.channel.FileRegion} writes into when it is staged: a window of the
 * registered send buffer. It takes at most the window's size and then reports 0 bytes written, which
 * ends a {@code FileChannel.transferTo} early, as a full socket would. Reused; not thread-safe.
 */
final class ByteBufTarget implements WritableByteChannel {

    private ByteBuf buffer;
    private int start;
    private int index;
    private int end;

    /** Points the target at {@code length} bytes of {@code buffer} from {@code index}. */
    ByteBufTarget reset(ByteBuf buffer, int index, int length) {
        this.buffer = buffer;
        this.start = index;
        this.index = index;
        this.end = index + length;
        return this;
    }

    /** Returns the bytes written since {@link #reset}. */
    int written() {
        return index - start;
    }

    /** Returns the room left in the window. */
    int writable() {
        return end - index;
    }

    @Override
    public int write(ByteBuffer src) {
        int length = Math.min(src.remaining(), end - index);
        if (length == 0) {
            return 0;
        }
        int limit = src.limit();
        src.limit(src.position() + length);
        buffer.setBytes(index, src);
        src.limit(limit);
        index += length;
        return length;
    }

    @Override
    public boolean isOpen() {
        return true;
    }

    @Override
    public void close() {
        buffer = null;
    }
}
