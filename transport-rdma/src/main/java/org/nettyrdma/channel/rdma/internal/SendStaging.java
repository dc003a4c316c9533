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
package org.nettyrdma.channel.rdma.internal;

/**
 * The book of a connection's send buffer: registered memory that outgoing bytes are copied into
 * (header and payload of a Send, or the payload of an RDMA Write) and that stays untouched until the
 * device reports the work request complete.
 *
 * <p>Space is taken at a running position, skipping the buffer's tail when a region does not fit
 * before its end, and returns in the same order, because the send queue completes in order: a
 * completion returns everything up to the {@linkplain #mark() mark} taken after its request. Counters
 * are monotonic {@code long}s, so there is no wrap-around case. Not thread-safe.
 */
public final class SendStaging {

    private final int size;
    private long taken;
    private long returned;

    /** Creates the book of a send buffer of {@code size} bytes. */
    public SendStaging(int size) {
        this.size = size;
    }

    /** Returns the bytes free now. */
    public int free() {
        return size - (int) (taken - returned);
    }

    /** Returns {@code true} if {@code length} contiguous bytes can be taken now. */
    public boolean canTake(int length) {
        return skipFor(length) + length <= free();
    }

    /**
     * Takes {@code length} contiguous bytes.
     *
     * @return the offset in the buffer, or -1 if they do not fit now
     */
    public int take(int length) {
        int skip = skipFor(length);
        if (length > size || skip + length > free()) {
            return -1;
        }
        taken += skip;
        int offset = (int) (taken % size);
        taken += length;
        return offset;
    }

    /** Gives back the last {@code unused} bytes of the region taken last. */
    public void giveBack(int unused) {
        taken -= unused;
    }

    /** Returns the position to record with a work request: its completion returns everything before it. */
    public long mark() {
        return taken;
    }

    /** Returns every byte before {@code mark}, when the work request it was taken for has completed. */
    public void returnTo(long mark) {
        if (mark > returned) {
            returned = mark;
        }
    }

    private int skipFor(int length) {
        int position = (int) (taken % size);
        return position + length > size ? size - position : 0;
    }
}
