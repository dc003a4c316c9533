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

import io.netty.buffer.ByteBuf;

/**
 * The book of one queue pair's posted send work requests, by sequence number (the request's
 * {@code wr_id}): how many are outstanding, and for each, where the send buffer and the outbound
 * bytes stand once it completes, and the buffer it reads in place, released when it completes.
 *
 * <p>Send requests complete in order and a completion covers every request before its own, so an
 * unsignaled request is done when a later signaled one completes; in the error state every
 * outstanding request completes with a flush error, signaled or not.
 *
 * <p>Not thread-safe: used on the channel's event loop only.
 */
final class SendLedger {

    private final int depth;
    private final long[] stagingMarks;
    private final long[] outboundMarks;
    private final ByteBuf[] heldBuffers;
    private long next;
    private long completed;

    /** Creates the book of a send queue of {@code depth} requests. */
    SendLedger(int depth) {
        this.depth = depth;
        stagingMarks = new long[depth];
        outboundMarks = new long[depth];
        heldBuffers = new ByteBuf[depth];
    }

    /** Returns the sequence number the next request gets. */
    long next() {
        return next;
    }

    /** Returns the requests posted (or about to be) whose completion has not arrived. */
    int outstanding() {
        return (int) (next - completed);
    }

    /** Returns {@code true} if the send queue has no room for another request. */
    boolean isFull() {
        return outstanding() >= depth;
    }

    /** Returns {@code true} if request {@code sequence} completed. */
    boolean isCompleted(long sequence) {
        return completed > sequence;
    }

    /** Holds {@code buffer} until the next request, which reads it in place, completes. */
    void hold(ByteBuf buffer) {
        heldBuffers[index(next)] = buffer;
    }

    /**
     * Records the request just added: once it completes, the send buffer is free up to
     * {@code stagingMark} and the outbound bytes up to {@code outboundMark} are delivered.
     *
     * @return its sequence number
     */
    long add(long stagingMark, long outboundMark) {
        int index = index(next);
        stagingMarks[index] = stagingMark;
        outboundMarks[index] = outboundMark;
        return next++;
    }

    /**
     * Accounts for the completion of request {@code sequence}, successful or not, and of every request
     * before it; releases the buffers they held.
     *
     * @return {@code false} if it was accounted for already
     */
    boolean complete(long sequence) {
        if (sequence < completed || sequence >= next) {
            return false;
        }
        releaseHeld(completed, sequence + 1);
        completed = sequence + 1;
        return true;
    }

    /** Returns the send buffer mark recorded with request {@code sequence}. */
    long stagingMark(long sequence) {
        return stagingMarks[index(sequence)];
    }

    /** Returns the outbound bytes mark recorded with request {@code sequence}. */
    long outboundMark(long sequence) {
        return outboundMarks[index(sequence)];
    }

    /**
     * Releases the buffers of every outstanding request: the device reads nothing any more. The
     * requests stay outstanding until their completions arrive.
     */
    void releaseHeld() {
        releaseHeld(completed, next);
    }

    private void releaseHeld(long from, long to) {
        for (long sequence = from; sequence < to; sequence++) {
            int index = index(sequence);
            ByteBuf held = heldBuffers[index];
            if (held != null) {
                heldBuffers[index] = null;
                held.release();
            }
        }
    }

    private int index(long sequence) {
        return (int) (sequence % depth);
    }
}
