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

import static org.nettyrdma.channel.rdma.internal.RdmaProtocol.HEADER_SIZE;
import static org.nettyrdma.channel.rdma.internal.RdmaProtocol.HELLO_SIZE;

import java.io.IOException;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelOutboundBuffer;
import org.nettyrdma.channel.rdma.internal.CreditReturn;
import org.nettyrdma.channel.rdma.internal.HelloMessage;
import org.nettyrdma.channel.rdma.internal.MessageHeader;
import org.nettyrdma.channel.rdma.internal.RdmaDevice;
import org.nettyrdma.channel.rdma.internal.RdmaProtocol;
import org.nettyrdma.channel.rdma.internal.RegisteredBuffer;
import org.nettyrdma.channel.rdma.internal.SendCredits;
import org.nettyrdma.channel.rdma.internal.SendStaging;
import org.nettyrdma.channel.rdma.internal.WorkRequests;

/**
 * The send side of one connection (docs/protocol.md): turns the flushed bytes of the channel's
 * outbound buffer into work requests within the peer's credits, and takes them out of the outbound
 * buffer when the requests that carry them complete, so a write's promise means the peer's device has
 * the bytes.
 *
 * <p>Writes up to the peer's slot size travel as Sends, all that fit of one flush in one Send, copied
 * into the registered send buffer (inline where the queue pair allows). Larger ones travel as RDMA
 * Writes with immediate into the peer's ring: read where they are if they lie in registered memory
 * ({@link RdmaByteBufAllocator}), copied otherwise (docs/decisions.md#send-or-write). One flush is one post of a chain; which requests
 * of it are signaled is {@link SendSignals}' choice, and the {@link SendLedger} keeps what each
 * completion frees. Headers carry the credits this side owes the peer ({@link CreditReturn}).
 *
 * <p>Not thread-safe: used on the channel's event loop only.
 */
final class RdmaSender {

    /** Requests of one chain, posted with one call. */
    private static final int CHAIN = 32;

    private final RdmaDevice device;
    private final long qp;
    /** The largest Send posted inline: what the user asked for, as far as the device granted it. */
    private final int maxInline;
    private final int sendBufferSize;
    private final CreditReturn owed;
    private final ConnectionCounters counters;
    private final WorkRequests chain;
    private final SendStaging staging;
    private final SendLedger ledger;
    private final SendSignals signals = new SendSignals();
    private final FlushedBytes flushed = new FlushedBytes();
    /** The send buffer, registered when this side sends its {@code HELLO}; null before. */
    private RegisteredBuffer sendBuffer;
    private ByteBuf sendView;
    /** The peer's {@code HELLO}, and the credits it granted; null before it arrived. */
    private HelloMessage peer;
    private SendCredits credits;
    /** The last flush stopped with data left for want of the peer's slots. */
    private boolean stalledOnCredit;
    /** The largest Send payload to the peer: its slot, as far as this side's send buffer can stage it. */
    private int maxSendPayload;
    /** The largest Write copied into the send buffer: a quarter of the peer's ring, or of the send buffer. */
    private int maxCopiedWrite;
    /** The sequence number of this side's {@code HELLO} once it is posted; -1 before. */
    private long helloSequence = -1;
    private boolean closed;

    RdmaSender(RdmaDevice device, long qp, int maxInline, int sendDepth, int sendBufferSize, CreditReturn owed,
               ConnectionCounters counters) {
        this.device = device;
        this.qp = qp;
        this.maxInline = maxInline;
        this.sendBufferSize = sendBufferSize;
        this.owed = owed;
        this.counters = counters;
        staging = new SendStaging(sendBufferSize);
        ledger = new SendLedger(sendDepth);
        // Last: nothing after it can fail and leave the chain's memory to nobody (close() frees it).
        chain = WorkRequests.sends(CHAIN);
    }

    /** Takes the registered send buffer into use (with this side's {@code HELLO}). */
    void open(RegisteredBuffer buffer) {
        sendBuffer = buffer;
        sendView = Unpooled.wrappedBuffer(buffer.buffer());
    }

    /** Returns the sequence number, the {@code wr_id}, that the next send request gets. */
    long nextSequence() {
        return ledger.next();
    }

    /** Accounts for a request posted with {@link #nextSequence()} outside the chain (the window's bind). */
    void postedOutsideChain() {
        mark();
    }

    /** Posts this side's {@code HELLO}. */
    void sendHello(HelloMessage hello) throws IOException {
        int offset = staging.take(HELLO_SIZE);
        sendView.writerIndex(offset);
        hello.encode(sendView);
        long sequence = ledger.next();
        chain.addSend(sequence, WorkRequests.OPCODE_SEND, inlineFlag(HELLO_SIZE), sendBuffer.address() + offset,
                HELLO_SIZE, sendBuffer.lkey(), 0, 0, 0);
        mark();
        post();
        counters.controlMessages++;
        helloSequence = sequence;
    }

    /** Returns {@code true} once this side's {@code HELLO} is posted. */
    boolean helloSent() {
        return helloSequence >= 0;
    }

    /** Returns {@code true} once this side's {@code HELLO} completed: the peer's device has it. */
    boolean helloDelivered() {
        return helloSent() && ledger.isCompleted(helloSequence);
    }

    /** Returns {@code true} once the peer's {@code HELLO} arrived. */
    boolean hasPeer() {
        return credits != null;
    }

    /** Takes the peer's {@code HELLO}: the credits it grants, and the sizes they allow. */
    void peerHello(HelloMessage hello) {
        peer = hello;
        credits = new SendCredits(hello.slots(), hello.maxSlots(), hello.ringSize());
        credits.consumeSlot(); // this side's own HELLO
        // A Send or a copied Write must fit the send buffer with room for others in flight, whatever
        // slot or ring the peer announces.
        maxSendPayload = Math.min(hello.slotSize(), sendBufferSize / 4) - HEADER_SIZE;
        maxCopiedWrite = Math.min(maxWrite(), sendBufferSize / 4);
    }

    /** The largest payload of one Write: a quarter of the peer's ring, so returns always unblock it. */
    private int maxWrite() {
        return peer.ringSize() / 4;
    }

    /** Accounts for the slots and ring bytes the peer returned in a header. */
    void creditsReturned(int slots, int ringBytes) throws RdmaProtocolException {
        credits.onReturned(slots, ringBytes);
    }

    /**
     * Stages and posts as much of {@code in} as credits, send space and the send queue allow. Nothing is
     * removed from {@code in} here: the bytes leave it when the work requests carrying them complete
     * ({@link #removeSent}), so a write's promise says the device delivered it.
     *
     * @return {@code false} if it did not flush: sent bytes are being removed, or it closed meanwhile
     */
    boolean flush(ChannelOutboundBuffer in) throws Exception {
        if (closed || flushed.isRemoving()) {
            return false;
        }
        stalledOnCredit = false;
        if (!flushed.hasInFlight()) {
            // Empty writes at the head wait for nothing: complete them now.
            flushed.removeSent(in, 0);
            if (closed) {
                return false;
            }
        }
        flushed.load(in);
        try {
            while (flushed.hasRemaining()) {
                if (ledger.isFull()) {
                    break;
                }
                if (chain.isFull()) {
                    post();
                }
                if (!credits.canSendData()) {
                    counters.creditStalls++;
                    stalledOnCredit = true;
                    break;
                }
                if (!(stageWrite() || stageSend())) {
                    break;
                }
            }
        } catch (Exception e) {
            // A file region failed: what was staged before it still goes out, then the channel closes.
            try {
                post();
            } catch (IOException postFailure) {
                e.addSuppressed(postFailure);
            }
            throw e;
        } finally {
            flushed.clear();
        }
        post();
        return true;
    }

    /** Returns {@code true} if the last {@link #flush} left data behind because the peer had no slot left. */
    boolean stalledOnCredit() {
        return stalledOnCredit;
    }

    /** Takes the messages whose {@code units} completed out of {@code in}; listeners may not flush meanwhile. */
    void removeSent(ChannelOutboundBuffer in, long units) {
        flushed.removeSent(in, units);
    }

    private boolean stageWrite() throws IOException {
        int readable = flushed.currentLength();
        if (peer.ringSize() == 0 || readable <= maxSendPayload) {
            return false;
        }
        int length = Math.min(readable, maxWrite());
        long lkey = credits.canReserveRing(length) ? flushed.currentLkey(device, length) : -1;
        if (lkey != -1) {
            // Registered memory (RdmaByteBufAllocator): the device reads the bytes where they are.
            // The buffer is held until the device has read it, even if the channel closes before.
            long address = flushed.currentAddress();
            ledger.hold(flushed.retainCurrent());
            flushed.skipCurrent(length);
            addWrite(address, length, (int) lkey, false);
            return true;
        }
        length = Math.min(length, maxCopiedWrite);
        if (!credits.canReserveRing(length) || !staging.canTake(length)) {
            return false;
        }
        int offset = staging.take(length);
        // A file region may deliver fewer bytes than its units; the Write carries what was copied.
        int copied = flushed.copyCurrent(sendView, offset, length);
        staging.giveBack(length - copied);
        addWrite(sendBuffer.address() + offset, copied, sendBuffer.lkey(), true);
        return true;
    }

    /**
     * Adds an RDMA Write with immediate of {@code length} bytes into the peer's ring to the chain:
     * bytes {@code copied} into the send buffer, or a registered buffer's, read where they are.
     */
    private void addWrite(long address, int length, int lkey, boolean copied) {
        counters.wrote(length, copied);
        long ringOffset = credits.reserveRing(length);
        flushed.posted();
        credits.consumeSlot();
        chain.addSend(ledger.next(), WorkRequests.OPCODE_RDMA_WRITE_WITH_IMM, 0, address, length, lkey,
                peer.ringAddress() + ringOffset, peer.ringKey(), (int) ringOffset);
        signalIfDue(length);
        mark();
    }

    /** Copies as much of the flushed bytes as fits into one Send. */
    private boolean stageSend() throws IOException {
        int room = maxSendPayload;
        int offset = staging.take(HEADER_SIZE + room);
        if (offset < 0) {
            return false;
        }
        int payload = 0;
        while (flushed.hasRemaining() && payload < room) {
            int readable = flushed.currentLength();
            // A large buffer goes by Write when the ring has room; stop coalescing in front of it.
            if (payload > 0 && readable > room && peer.ringSize() > 0) {
                break;
            }
            int length = Math.min(readable, room - payload);
            payload += flushed.copyCurrent(sendView, offset + HEADER_SIZE + payload, length);
        }
        counters.sent(payload);
        flushed.posted();
        staging.giveBack(room - payload);
        sendView.writerIndex(offset);
        MessageHeader.encode(sendView, RdmaProtocol.TYPE_DATA, owed.takeSlots(), owed.takeRingBytes(), payload);
        credits.consumeSlot();
        chain.addSend(ledger.next(), WorkRequests.OPCODE_SEND, inlineFlag(HEADER_SIZE + payload),
                sendBuffer.address() + offset, HEADER_SIZE + payload, sendBuffer.lkey(), 0, 0, 0);
        signalIfDue(payload);
        mark();
        return true;
    }

    private void signalIfDue(int payload) {
        if (signals.added(payload)) {
            chain.signalLast(true);
        }
    }

    /**
     * Posts a message without payload ({@code CREDIT}, {@code SHUTDOWN_OUTPUT}, {@code CLOSE}) if a
     * slot, send space and a send queue entry are free.
     *
     * @return {@code true} if it was posted
     */
    boolean sendControl(int type) throws IOException {
        if (closed || !credits.canSendControl() || ledger.isFull()) {
            return false;
        }
        int offset = staging.take(HEADER_SIZE);
        if (offset < 0) {
            return false;
        }
        sendView.writerIndex(offset);
        MessageHeader.encode(sendView, type, owed.takeSlots(), owed.takeRingBytes(), 0);
        credits.consumeSlot();
        chain.addSend(ledger.next(), WorkRequests.OPCODE_SEND, inlineFlag(HEADER_SIZE),
                sendBuffer.address() + offset, HEADER_SIZE, sendBuffer.lkey(), 0, 0, 0);
        mark();
        post();
        counters.controlMessages++;
        return true;
    }

    /**
     * Probes the peer: an RDMA Write of no bytes, which the peer's device acknowledges without a
     * completion or a receive there. A peer that is gone never acknowledges it, and the queue pair's
     * retries end in a failed completion. A peer without a ring (allowed by the protocol) gets a
     * {@code CREDIT} message instead.
     *
     * @return {@code true} if a probe was posted
     */
    boolean probe() throws IOException {
        if (peer.ringSize() == 0) {
            return sendControl(RdmaProtocol.TYPE_CREDIT);
        }
        chain.addSend(ledger.next(), WorkRequests.OPCODE_RDMA_WRITE, 0, sendBuffer.address(), 0, sendBuffer.lkey(),
                peer.ringAddress(), peer.ringKey(), 0);
        mark();
        post();
        return true;
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
        chain.addSend(ledger.next(), WorkRequests.OPCODE_SEND, 0, 0, 0, 0, 0, 0, 0);
        mark();
        post();
    }

    /**
     * Returns the flags for a Send of {@code length} bytes: inline when the queue pair takes it. The
     * staged bytes stay reserved until the request completes all the same; only the device's read of
     * them is saved.
     */
    private int inlineFlag(int length) {
        return length <= maxInline ? WorkRequests.FLAG_INLINE : 0;
    }

    /** Records where the send buffer and the outbound bytes stand after the request just added. */
    private void mark() {
        ledger.add(staging.mark(), flushed.mark());
    }

    /** Posts the chain, its last request signaled: a completion covers every request up to its own. */
    private void post() throws IOException {
        if (chain.count() == 0) {
            return;
        }
        chain.signalLast(true);
        signals.posted();
        chain.post(qp);
    }

    /** Returns the send requests posted whose completion has not arrived. */
    int outstanding() {
        return ledger.outstanding();
    }

    /**
     * Accounts for the successful completion of request {@code sequence}: frees its send space and
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
     * Stops sending and releases the buffers sent in place and the chain: the queue pair is gone, the
     * device reads nothing any more. Requests stay outstanding until their completions arrive, if they do.
     */
    void close() {
        closed = true;
        ledger.releaseHeld();
        chain.close();
    }

    /** Returns the chain this posts with, for the loop to claim for the channel's registration. */
    WorkRequests chain() {
        return chain;
    }
}
