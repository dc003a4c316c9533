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

import java.io.IOException;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelOutboundBuffer;
import org.nettyrdma.channel.rdma.internal.WorkRequests;
import org.nettyrdma.channel.rdma.memory.BufferCopy;

/**
 * The send queue of one queue pair: builds a chain of send work requests, posts it with one call,
 * and completes the requests when the device reports them. Each request added records in the
 * {@link SendLedger} where the {@link SendStaging} and the {@link FlushedBytes} stand after it, so
 * that its completion frees its staging and takes the bytes it carried out of the outbound buffer,
 * which completes their promises. Which requests of a chain are signaled is {@link SendSignals}'
 * choice, and the last one always is.
 *
 * <p>Besides the chain the connection's sends build, it posts the one-sided requests of
 * {@link OneSidedRequests} (RDMA Read, atomics, RDMA Write without immediate), each alone and
 * signaled, since its caller waits for that completion.
 *
 * <p>Not thread-safe: used on the channel's event loop only.
 */
final class SendQueue {

    /** Requests of one chain, posted with one call. */
    static final int CHAIN = 32;
    /** Returned instead of a sequence number by a one-sided post the send queue has no room for now. */
    static final long NO_ROOM = -1;

    private final long qp;
    private final SendStaging staging;
    private final FlushedBytes flushed;
    private final SendLedger ledger;
    private final SendSignals signals = new SendSignals();
    private final WorkRequests chain;
    private boolean closed;

    /**
     * Creates the send queue of {@code qp} ({@code ibv_qp*}), {@code depth} requests deep, whose
     * requests read {@code staging} and carry {@code flushed}.
     */
    SendQueue(long qp, int depth, SendStaging staging, FlushedBytes flushed) {
        this.qp = qp;
        this.staging = staging;
        this.flushed = flushed;
        ledger = new SendLedger(depth);
        // Last: nothing after it can fail and leave the chain's memory to nobody (close() frees it).
        chain = WorkRequests.sends(CHAIN);
    }

    /** Returns the chain this posts with, for the loop to claim for the channel's registration. */
    WorkRequests chain() {
        return chain;
    }

    /** Returns {@code true} once {@link #close()} was called. */
    boolean isClosed() {
        return closed;
    }

    /** Returns the sequence number, the {@code wr_id}, that the next request gets. */
    long nextSequence() {
        return ledger.next();
    }

    /** Returns {@code true} if the send queue has no room for another request. */
    boolean isFull() {
        return ledger.isFull();
    }

    /** Returns {@code true} if a request may be added now: the queue is open and has room. */
    boolean hasRoom() {
        return !closed && !ledger.isFull();
    }

    /** Returns {@code true} if a request may be posted outside the chain now: there is room and no chain is being built. */
    boolean hasRoomOutsideChain() {
        return hasRoom() && chain.count() == 0;
    }

    /** Accounts for a request posted with {@link #nextSequence()} outside the chain (the window's bind). */
    void postedOutsideChain() {
        record();
    }

    /** Returns {@code true} if request {@code sequence} completed. */
    boolean isCompleted(long sequence) {
        return ledger.isCompleted(sequence);
    }

    /**
     * Adds a request to the chain, unsignaled unless {@link #signalIfDue} or {@link #post()} says
     * otherwise, and records it in the ledger.
     *
     * @return its sequence number
     */
    long add(int opcode, int flags, long localAddress, int length, int lkey, long remoteAddress, int rkey, int imm) {
        chain.addSend(ledger.next(), opcode, flags, localAddress, length, lkey, remoteAddress, rkey, imm);
        return record();
    }

    /**
     * Adds a Send that gathers the {@code headerLength} bytes of the last staging placement and
     * {@code payloadLength} bytes of registered memory at {@code payloadAddress}, read where they are
     * ({@link #hold} keeps their buffer), and records it in the ledger.
     *
     * @return its sequence number
     */
    long addGather(int headerLength, long payloadAddress, int payloadLength, int payloadLkey) {
        chain.addGather(ledger.next(), 0, staging.placedAddress(), headerLength, staging.placedLkey(),
                payloadAddress, payloadLength, payloadLkey);
        return record();
    }

    /** Signals the request just added if it carries the chain past the signal interval ({@link SendSignals}). */
    void signalIfDue(int payload) {
        if (signals.added(payload)) {
            chain.signalLast(true);
        }
    }

    /** Holds {@code buffer} until the next request, which reads it in place, completes. */
    void hold(ByteBuf buffer) {
        ledger.hold(buffer);
    }

    /** Posts the chain if it has no room for another request. */
    void postIfChainFull() throws IOException {
        if (chain.isFull()) {
            post();
        }
    }

    /** Posts the chain, its last request signaled: a completion covers every request up to its own. */
    void post() throws IOException {
        if (chain.count() == 0) {
            return;
        }
        chain.signalLast(true);
        signals.posted();
        try {
            chain.post(qp);
        } finally {
            // Posted, the device has the inline data; failed, the connection fails.
            staging.chainPosted();
        }
    }

    /**
     * Posts an RDMA Read of {@code length} bytes at {@code remoteAddress} ({@code rkey}) into
     * {@code localAddress} ({@code lkey}), signaled: its completion says the bytes are there.
     *
     * @return its sequence number, or {@link #NO_ROOM}
     */
    long postRead(long localAddress, int lkey, int length, long remoteAddress, int rkey) throws IOException {
        if (!hasRoom()) {
            return NO_ROOM;
        }
        return postAlone(add(WorkRequests.OPCODE_RDMA_READ, 0, localAddress, length, lkey, remoteAddress, rkey, 0));
    }

    /**
     * Posts an atomic request ({@code opcode}) on the word at {@code remoteAddress} ({@code rkey}),
     * whose old value lands at {@code localAddress} ({@code lkey}), signaled.
     *
     * @return its sequence number, or {@link #NO_ROOM}
     */
    long postAtomic(int opcode, long localAddress, int lkey, long remoteAddress, int rkey, long compareAdd,
                    long swap) throws IOException {
        if (!hasRoom()) {
            return NO_ROOM;
        }
        chain.addAtomic(ledger.next(), opcode, 0, localAddress, lkey, remoteAddress, rkey, compareAdd, swap);
        return postAlone(record());
    }

    /**
     * Copies {@code length} bytes of {@code source} from {@code index} into staging (or inline) and
     * posts them as an RDMA Write without immediate to {@code remoteAddress} ({@code rkey}),
     * signaled: the peer's CPU sees nothing of it.
     *
     * @return its sequence number, or {@link #NO_ROOM} if the send queue or the staging blocks have
     *         no room now
     */
    long postWrite(ByteBuf source, int index, int length, long remoteAddress, int rkey) throws IOException {
        if (!hasRoom() || !staging.place(length, staging.maxInline())) {
            return NO_ROOM;
        }
        BufferCopy.copy(source, index, staging.placedMemory(), staging.placedOffset(), length);
        return postAlone(add(WorkRequests.OPCODE_RDMA_WRITE, staging.inlineFlag(length), staging.placedAddress(),
                length, staging.placedLkey(), remoteAddress, rkey, 0));
    }

    /**
     * Posts a signaled Send of no bytes on a queue pair already in the error state, where it is
     * flushed at once: its completion follows every completion the queue pair made before, which
     * tells a connection on a shared receive queue that none of its receives is left in the CQ.
     */
    void postFlushMarker() throws IOException {
        if (ledger.isFull()) {
            return;
        }
        postAlone(add(WorkRequests.OPCODE_SEND, 0, 0, 0, 0, 0, 0, 0));
    }

    /** Posts the chain that ends with request {@code sequence}, just added, and returns that sequence. */
    private long postAlone(long sequence) throws IOException {
        post();
        return sequence;
    }

    /** Records where the staging and the outbound bytes stand after the request just added. */
    private long record() {
        return ledger.add(staging.mark(), flushed.mark());
    }

    /** Returns the requests posted whose completion has not arrived. */
    int outstanding() {
        return ledger.outstanding();
    }

    /**
     * Accounts for the successful completion of request {@code sequence}: frees its staging and
     * takes the bytes it delivered out of {@code in} ({@code null} once the channel closed), which
     * completes their promises.
     */
    void completed(long sequence, ChannelOutboundBuffer in) {
        if (!ledger.complete(sequence)) {
            return;
        }
        staging.returnTo(ledger.stagingMark(sequence));
        // Removing the messages completes promises, whose listeners may write and flush: such a flush
        // waits for the connection's writeSpaceAvailable (FlushedBytes.isRemoving()).
        flushed.delivered(closed ? null : in, ledger.outboundMark(sequence));
    }

    /**
     * Accounts for request {@code sequence} completed in error (a flush, or a failure that put the
     * queue pair in the error state): it and every request before it are done with, their bytes not
     * delivered.
     *
     * @return {@code true} if that completed requests not accounted for before
     */
    boolean failed(long sequence) {
        return ledger.complete(sequence);
    }

    /**
     * Stops posting and releases the buffers read in place and the chain: the queue pair is gone, the
     * device reads nothing any more. Requests stay outstanding until their completions arrive, if they do.
     */
    void close() {
        closed = true;
        ledger.releaseHeld();
        chain.close();
    }
}
