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

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelOutboundBuffer;

/**
 * The flushed bytes of a channel's outbound buffer that are not staged yet: writes stay in the
 * {@link ChannelOutboundBuffer} until the device completes the work requests that carry them, so a
 * flush walks the buffer past the bytes already in flight. Reused for every flush; holds references
 * only during one.
 *
 * <p>Not thread-safe: used on the channel's event loop only.
 */
final class FlushedBytes implements ChannelOutboundBuffer.MessageProcessor {

    private static final int MAX_SEGMENTS = 256;

    private final ByteBuf[] buffers = new ByteBuf[MAX_SEGMENTS];
    private final int[] indexes = new int[MAX_SEGMENTS];
    private final int[] lengths = new int[MAX_SEGMENTS];
    private int count;
    private int current;
    private long skip;

    /** Collects the flushed buffers of {@code in}, skipping the first {@code inFlight} bytes. */
    void load(ChannelOutboundBuffer in, long inFlight) throws Exception {
        count = 0;
        current = 0;
        skip = inFlight;
        in.forEachFlushedMessage(this);
    }

    @Override
    public boolean processMessage(Object msg) {
        ByteBuf buf = (ByteBuf) msg; // filterOutboundMessage lets nothing else in
        int readable = buf.readableBytes();
        if (skip >= readable) {
            skip -= readable;
            return true;
        }
        buffers[count] = buf;
        indexes[count] = buf.readerIndex() + (int) skip;
        lengths[count] = readable - (int) skip;
        skip = 0;
        return ++count < MAX_SEGMENTS;
    }

    /** Returns {@code true} if unstaged bytes are left. */
    boolean hasRemaining() {
        return current < count;
    }

    /** Returns the unstaged bytes of the current buffer. */
    int currentLength() {
        return lengths[current];
    }

    /** Copies {@code length} bytes (at most {@link #currentLength()}) of the current buffer and moves on. */
    void copyCurrent(ByteBuf dst, int dstIndex, int length) {
        buffers[current].getBytes(indexes[current], dst, dstIndex, length);
        indexes[current] += length;
        lengths[current] -= length;
        if (lengths[current] == 0) {
            buffers[current] = null;
            current++;
        }
    }

    /** Drops the references to the outbound buffer's messages. */
    void clear() {
        for (int i = current; i < count; i++) {
            buffers[i] = null;
        }
        count = 0;
        current = 0;
    }
}
