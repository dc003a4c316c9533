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
package org.nettyrdma.channel.rdma.protocol;

import org.nettyrdma.channel.rdma.RdmaProtocolException;

/**
 * The receiving side's book of its ring: where the peer must write next, which regions the pipeline
 * still holds, and how much space returns when one is released (docs/protocol.md).
 *
 * <p>Space returns oldest first: a released region behind one still held waits, because the peer
 * writes the ring in order and may only be told about contiguous space. Every Write the peer reports
 * is checked against this book before its bytes are handed up, so a peer that writes outside what it
 * was granted is caught.
 *
 * <p>The book is a ring of region records that grows only when more regions are outstanding than
 * ever before, so the steady state allocates nothing. Not thread-safe: used on the event loop only.
 */
public final class ReceiveRing {

    private final int size;
    private int position;
    private int used;

    private int[] lengths = new int[16];
    /** Per region: the holds on it; 0 once released (a skipped tail never has one). */
    private int[] holds = new int[16];
    /** Sequence number of the oldest region still in the book. */
    private long head;
    /** Sequence number the next region gets. */
    private long tail;

    /** Creates the book of a ring of {@code size} bytes. */
    public ReceiveRing(int size) {
        if (size <= 0) {
            throw new IllegalArgumentException("size: " + size + " (expected: > 0)");
        }
        this.size = size;
    }

    /** Returns the ring's size. */
    public int size() {
        return size;
    }

    /** Returns the bytes written by the peer and not yet returned, including skipped tails. */
    public int used() {
        return used;
    }

    /** Returns the number of regions the pipeline still holds or that wait for an older one. */
    public int outstandingRegions() {
        return (int) (tail - head);
    }

    /**
     * Checks a Write the peer reported (the immediate is the offset, the completion's byte length the
     * length) and books it.
     *
     * @return the token of the region, held once: {@link #release(long)} takes it when the bytes were read
     * @throws RdmaProtocolException if the Write is not where the peer was allowed to write
     */
    public long accept(int offset, int length) throws RdmaProtocolException {
        if (length <= 0 || length > size) {
            throw new RdmaProtocolException("RDMA Write of " + length + " ring bytes (expected: 1.." + size + ')');
        }
        int skip;
        if (offset == position && position + length <= size) {
            skip = 0;
        } else if (offset == 0 && position + length > size) {
            skip = size - position;
        } else {
            throw new RdmaProtocolException("RDMA Write at ring offset " + offset + " of " + length
                    + " bytes (expected: at " + position + ", or at 0 if it does not fit before " + size + ')');
        }
        if ((long) used + skip + length > size) {
            throw new RdmaProtocolException("RDMA Write at ring offset " + offset + " of " + length
                    + " bytes overruns the " + (size - used) + " ring bytes the peer was granted");
        }
        if (skip > 0) {
            append(skip, 0);
        }
        used += skip + length;
        position = offset + length == size ? 0 : offset + length;
        return append(length, 1);
    }

    /**
     * Adds a hold on the region of {@code token}: each buffer handed up over part of it holds it, as
     * does the inbound queue until the whole region was read. A region returns when its last hold is
     * released.
     */
    public void retain(long token) {
        int index = checkHeld(token);
        holds[index]++;
    }

    /**
     * Releases one hold on the region of {@code token}.
     *
     * @return the bytes that became free at the ring's tail, which the peer may be told about now
     */
    public int release(long token) {
        int index = checkHeld(token);
        if (--holds[index] > 0) {
            return 0;
        }
        int freed = 0;
        while (head < tail && holds[index(head)] == 0) {
            freed += lengths[index(head)];
            head++;
        }
        used -= freed;
        return freed;
    }

    private int checkHeld(long token) {
        if (token < head || token >= tail) {
            throw new IllegalStateException("unknown ring region " + token + " (outstanding: " + head + ".."
                    + tail + ')');
        }
        int index = index(token);
        if (holds[index] == 0) {
            throw new IllegalStateException("ring region " + token + " released more often than held");
        }
        return index;
    }

    private long append(int length, int initialHolds) {
        if (tail - head == lengths.length) {
            grow();
        }
        long token = tail++;
        lengths[index(token)] = length;
        holds[index(token)] = initialHolds;
        return token;
    }

    private int index(long sequence) {
        return (int) sequence & (lengths.length - 1);
    }

    private void grow() {
        int[] newLengths = new int[lengths.length * 2];
        int[] newHolds = new int[holds.length * 2];
        for (long s = head; s < tail; s++) {
            newLengths[(int) s & (newLengths.length - 1)] = lengths[index(s)];
            newHolds[(int) s & (newHolds.length - 1)] = holds[index(s)];
        }
        lengths = newLengths;
        holds = newHolds;
    }
}
