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
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOutboundBuffer;
import org.nettyrdma.channel.rdma.internal.CreditReturn;
import org.nettyrdma.channel.rdma.internal.HelloMessage;
import org.nettyrdma.channel.rdma.internal.MessageHeader;
import org.nettyrdma.channel.rdma.internal.RdmaDevice;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.channel.rdma.internal.RdmaProtocol;
import org.nettyrdma.channel.rdma.internal.RingMessage;
import org.nettyrdma.channel.rdma.internal.SendBlocks;
import org.nettyrdma.channel.rdma.internal.SendCredits;
import org.nettyrdma.channel.rdma.internal.StagingBlock;
import org.nettyrdma.channel.rdma.internal.WorkRequests;

/**
 * The send side of one connection (docs/protocol.md): turns the flushed bytes of the channel's
 * outbound buffer into work requests within the peer's credits, and takes them out of the outbound
 * buffer when the requests that carry them complete, so a write's promise means the peer's device has
 * the bytes.
 *
 * <p>Writes up to the peer's slot size travel as Sends, all that fit of one flush in one Send: inline
 * where the queue pair allows, encoded in a small unregistered buffer that the device copies from
 * when the request is posted, else copied into registered staging blocks ({@link SendBlocks}) that
 * the connection holds only while it sends. Larger ones travel as RDMA Writes with
 * immediate into the ring the peer opened to this side: read where they are if they lie in
 * registered memory ({@link RdmaByteBufAllocator}), copied into staging blocks otherwise
 * (docs/decisions.md#send-or-write, docs/decisions.md#send-staging-blocks). The peer opens a ring
 * when asked ({@code RING_REQUEST}), which a write too large for a slot does, and closes it when the
 * Writes stop; until one is open, or while it is full, those go as Sends too. One flush is one post of
 * a chain; which requests of it are signaled is {@link SendSignals}' choice, and the {@link SendLedger} keeps what each
 * completion frees. Headers carry the credits this side owes the peer ({@link CreditReturn}).
 *
 * <p>Not thread-safe: used on the channel's event loop only.
 */
final class RdmaSender {

    /** Requests of one chain, posted with one call. */
    private static final int CHAIN = 32;
    /** How long a peer that declined a ring is not asked again. */
    private static final long REQUEST_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** No {@code RING_REQUEST} outstanding. */
    private static final int REQUEST_NONE = 0;
    /** A {@code RING_REQUEST} is to be posted. */
    private static final int REQUEST_DUE = 1;
    /** A {@code RING_REQUEST} was posted; the peer's next {@code RING} answers it. */
    private static final int REQUEST_POSTED = 2;

    private final RdmaDevice device;
    private final long qp;
    /** The largest Send posted inline: what the user asked for, as far as the device granted it. */
    private final int maxInline;
    /**
     * The largest {@code HELLO} or control message posted inline: every one of them where the device
     * granted {@link RdmaProtocol#MAX_CONTROL_SIZE}, whatever the user asked for, so that a close
     * takes no staging block, whose pool might register one.
     */
    private final int controlInline;
    private final CreditReturn owed;
    private final ConnectionCounters counters;
    private final WorkRequests chain;
    private final SendBlocks blocks;
    private final SendLedger ledger;
    private final SendSignals signals = new SendSignals();
    private final FlushedBytes flushed = new FlushedBytes();
    /**
     * The inline Sends of the chain being built: room for a full chain of them, reused once it is
     * posted, since the device copies inline data when the request is posted. Not registered; null
     * where the queue pair takes no inline data.
     */
    private final ByteBuf inline;
    private final long inlineAddress;
    private int inlineUsed;
    /** Where the last {@link #place} put a request's bytes: the buffer and offset to write, the address to post. */
    private ByteBuf placed;
    private int placedOffset;
    private long placedAddress;
    private int placedLkey;
    /** The last staging failed for want of a block the pool did not have; a retry is the caller's. */
    private boolean waitingForBlock;
    /** The peer's {@code HELLO}, and the credits it granted; null before it arrived. */
    private HelloMessage peer;
    private SendCredits credits;
    /** The last flush stopped with data left for want of the peer's slots. */
    private boolean stalledOnCredit;
    /** The largest Send payload to the peer: its slot, as far as this side's staging can take it. */
    private int maxSendPayload;
    /** The generation of the ring the peer has open to this side; 0 while none is. */
    private int ringGeneration;
    private long ringAddress;
    private int ringKey;
    /** The newest ring generation the peer named in a {@code RING}. */
    private int newestGeneration;
    private int requestState = REQUEST_NONE;
    /** After the peer declined a ring, no request before this {@link System#nanoTime()}. */
    private long requestNotBefore;
    /** The generation of a ring the peer closed whose {@code RING_RELEASED} is still to be posted; 0 for none. */
    private int releaseOwed;
    /**
     * The smallest Write with immediate: one byte more than a Send into the peer's slot carries. The
     * peer refuses smaller ones (docs/protocol.md), which would cost it a ring region for a few bytes.
     */
    private int minWrite;
    /** The sequence number of this side's {@code HELLO} once it is posted; -1 before. */
    private long helloSequence = -1;
    private boolean closed;

    RdmaSender(RdmaDevice device, long qp, int maxInline, int controlInline, int sendDepth, int sendBufferSize,
               CreditReturn owed, ConnectionCounters counters, SendBlocks.Source staging) {
        this.device = device;
        this.qp = qp;
        this.maxInline = maxInline;
        this.controlInline = controlInline;
        this.owed = owed;
        this.counters = counters;
        // SO_SNDBUF bounds the staging blocks held, and so the bytes copied and in flight.
        blocks = new SendBlocks(staging, sendBufferSize);
        ledger = new SendLedger(sendDepth);
        int inlineBytes = CHAIN * Math.max(maxInline, controlInline);
        inline = inlineBytes > 0 ? ByteBufAllocator.DEFAULT.directBuffer(inlineBytes, inlineBytes) : null;
        inlineAddress = inline != null ? RdmaNative.directBufferAddress(inline.nioBuffer(0, inline.capacity())) : 0;
        WorkRequests sends;
        try {
            sends = WorkRequests.sends(CHAIN);
        } catch (RuntimeException e) {
            if (inline != null) {
                inline.release();
            }
            throw e;
        }
        // Last: nothing after it can fail and leave the chain's memory to nobody (close() frees it).
        chain = sends;
    }

    /** Returns the sequence number, the {@code wr_id}, that the next send request gets. */
    long nextSequence() {
        return ledger.next();
    }

    /**
     * Returns {@code true} if a request may be posted outside the chain now: the send queue has room
     * and no chain is being built.
     */
    boolean hasRoomOutsideChain() {
        return !closed && !ledger.isFull() && chain.count() == 0;
    }

    /** Accounts for a request posted with {@link #nextSequence()} outside the chain (the window's bind). */
    void postedOutsideChain() {
        mark();
    }

    /** Posts this side's {@code HELLO}. */
    void sendHello(HelloMessage hello) throws IOException {
        if (!place(HELLO_SIZE, controlInline)) {
            throw new IOException("no registered memory to stage this side's HELLO in (" + HELLO_SIZE
                    + " bytes, more than the queue pair's inline data of " + controlInline + " bytes)");
        }
        placed.writerIndex(placedOffset);
        hello.encode(placed);
        long sequence = ledger.next();
        chain.addSend(sequence, WorkRequests.OPCODE_SEND, inlineFlag(HELLO_SIZE), placedAddress, HELLO_SIZE,
                placedLkey, 0, 0, 0);
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
        credits = new SendCredits(hello.slots(), hello.maxSlots());
        credits.consumeSlot(); // this side's own HELLO
        // A Send or a copied Write must fit the staging limit with room for others in flight, whatever
        // slot or ring the peer announces.
        maxSendPayload = Math.min(hello.slotSize(), blocks.largestRegion()) - HEADER_SIZE;
        minWrite = RdmaProtocol.minWriteLength(hello.slotSize());
    }

    /** The largest payload of one Write: a quarter of the peer's ring, so returns always unblock it. */
    private int maxWrite() {
        return credits.ringSize() / 4;
    }

    /**
     * The largest Write copied into staging: a quarter of the peer's ring, or what a staging region
     * takes with room for a header in front, in case a file region copies too few bytes for a Write.
     */
    private int maxCopiedWrite() {
        return Math.min(maxWrite(), blocks.largestRegion() - HEADER_SIZE);
    }

    /**
     * Takes the peer's {@code RING}: a ring it opens to this side, which this side then writes into, or
     * the close of the one it had opened, which this side answers with {@code RING_RELEASED} once
     * posted (every Write into it comes before), or the decline of a request.
     *
     * @throws RdmaProtocolException if the peer opens a ring it never offered, a second one, or one of
     *         an old generation
     */
    void onRing(RingMessage ring) throws RdmaProtocolException {
        int generation = ring.generation();
        if (ring.size() == 0) {
            if (generation == ringGeneration && ringGeneration != 0) {
                credits.closeRing();
                counters.peerRingSize = 0;
                ringGeneration = 0;
                releaseOwed = generation;
                // A request posted before the close is answered by the peer's next ring, if any.
            } else if (generation > newestGeneration) {
                throw new RdmaProtocolException("RING closing ring " + generation + ", which was never opened (newest: "
                        + newestGeneration + ')');
            } else if (requestState == REQUEST_POSTED) {
                // Declined: the peer has no room for a ring now; ask again later.
                requestState = REQUEST_NONE;
                requestNotBefore = System.nanoTime() + REQUEST_RETRY_NANOS;
            }
            return;
        }
        if (ring.size() > peer.maxRingSize() || ring.size() < 4 * minWrite) {
            throw new RdmaProtocolException("RING of " + ring.size() + " bytes (expected: " + 4 * minWrite + ".."
                    + peer.maxRingSize() + ", as the peer's HELLO and slot size allow)");
        }
        if (ringGeneration != 0 || generation <= newestGeneration) {
            throw new RdmaProtocolException("RING opening ring " + generation + (ringGeneration != 0
                    ? " while ring " + ringGeneration + " is open" : " after ring " + newestGeneration));
        }
        newestGeneration = generation;
        ringGeneration = generation;
        ringAddress = ring.address();
        ringKey = ring.key();
        credits.openRing(ring.size());
        counters.peerRingSize = ring.size();
        if (requestState == REQUEST_POSTED) {
            requestState = REQUEST_NONE;
        }
    }

    /**
     * Asks the peer for a ring, or for a larger one than the open ring, unless this side asked
     * already, the peer offers nothing larger, or it declined a moment ago.
     */
    private void wantRing() {
        if (requestState != REQUEST_NONE || peer.maxRingSize() <= credits.ringSize()
                || System.nanoTime() - requestNotBefore < 0) {
            return;
        }
        requestState = REQUEST_DUE;
    }

    /** Returns {@code true} while a {@code RING_RELEASED} or {@code RING_REQUEST} waits to be posted. */
    boolean ringMessagesOwed() {
        return releaseOwed != 0 || requestState == REQUEST_DUE;
    }

    /** Adds the {@code RING_RELEASED} and {@code RING_REQUEST} owed to the chain, as far as slots allow. */
    private void addOwedRingMessages() throws IOException {
        if (releaseOwed != 0 && addRingMessage(RdmaProtocol.TYPE_RING_RELEASED, releaseOwed, 0, 0, 0)) {
            releaseOwed = 0;
        }
        if (requestState == REQUEST_DUE
                && addRingMessage(RdmaProtocol.TYPE_RING_REQUEST, newestGeneration, 0, 0, 0)) {
            requestState = REQUEST_POSTED;
        }
    }

    /**
     * Posts the {@code RING_RELEASED} and {@code RING_REQUEST} owed, as far as slots allow.
     *
     * @return {@code false} if one is still owed
     */
    boolean sendOwedRingMessages() throws IOException {
        if (closed || credits == null) {
            return true;
        }
        addOwedRingMessages();
        post();
        return !ringMessagesOwed();
    }

    /**
     * Posts a {@code RING} that opens ring {@code generation} of {@code size} bytes at {@code address}
     * with window key {@code key}, or closes it if {@code size} is 0, if a slot allows.
     *
     * @return {@code true} if it was posted
     */
    boolean sendRing(int generation, int size, long address, int key) throws IOException {
        if (closed || !addRingMessage(RdmaProtocol.TYPE_RING, generation, size, address, key)) {
            return false;
        }
        post();
        return true;
    }

    /**
     * Adds a ring message to the chain if a slot, send space and a send queue entry are free; the last
     * slot only if the message returns slots ({@link SendCredits#canSendControl(boolean)}).
     */
    private boolean addRingMessage(int type, int generation, int size, long address, int key) throws IOException {
        int payload = type == RdmaProtocol.TYPE_RING ? RingMessage.RING_SIZE : RingMessage.GENERATION_SIZE;
        if (!credits.canSendControl(owed.owedSlots() > 0) || ledger.isFull()) {
            return false;
        }
        if (chain.isFull()) {
            post();
        }
        if (!place(HEADER_SIZE + payload, controlInline)) {
            return false;
        }
        placed.writerIndex(placedOffset);
        MessageHeader.encode(placed, type, owed.takeSlots(), owed.takeRingBytes(), payload);
        if (type == RdmaProtocol.TYPE_RING) {
            RingMessage.encodeRing(placed, generation, size, address, key);
        } else {
            RingMessage.encodeGeneration(placed, generation);
        }
        credits.consumeSlot();
        chain.addSend(ledger.next(), WorkRequests.OPCODE_SEND, inlineFlag(HEADER_SIZE + payload), placedAddress,
                HEADER_SIZE + payload, placedLkey, 0, 0, 0);
        mark();
        counters.controlMessages++;
        return true;
    }

    /** Accounts for the slots and ring bytes the peer returned in a header. */
    void creditsReturned(int slots, int ringBytes) throws RdmaProtocolException {
        credits.onReturned(slots, ringBytes);
    }

    /**
     * Stages and posts as much of {@code in} as credits, send space and the send queue allow. Nothing is
     * removed from {@code in} here: the bytes leave it when the work requests carrying them complete
     * ({@link #completed}), so a write's promise says the device delivered it.
     *
     * @return {@code false} if it did not flush: sent bytes are being removed, or it closed meanwhile
     */
    boolean flush(ChannelOutboundBuffer in) throws Exception {
        if (closed || flushed.isRemoving()) {
            return false;
        }
        stalledOnCredit = false;
        waitingForBlock = false;
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
                if (ringMessagesOwed()) {
                    // A request the last Write wished for goes out ahead of the Sends that carry it meanwhile.
                    addOwedRingMessages();
                }
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
                    // No staging room: a completion gives some back, or the pool a block (waitingForBlock).
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
        if (ringMessagesOwed()) {
            addOwedRingMessages();
        }
        post();
        return true;
    }

    /** Returns {@code true} if the last {@link #flush} left data behind because the peer had no slot left. */
    boolean stalledOnCredit() {
        return stalledOnCredit;
    }

    private boolean stageWrite() throws IOException {
        int readable = flushed.currentLength();
        if (readable <= maxSendPayload || readable < minWrite) {
            return false;
        }
        if (credits.ringSize() == 0) {
            // Sends carry it while the peer opens a ring, if it offers one.
            wantRing();
            return false;
        }
        int length = Math.min(readable, maxWrite());
        if (length < minWrite) {
            return false; // a ring too small for a Write that a slot could not take: Sends only
        }
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
        length = Math.min(length, maxCopiedWrite());
        if (length < minWrite) {
            return false;
        }
        if (!credits.canReserveRing(length)) {
            // Full: the pipeline holds much of it, or it is too small for the stream. Sends carry this.
            wantRing();
            return false;
        }
        if (!place(HEADER_SIZE + length, 0)) {
            return false;
        }
        // A file region may deliver fewer bytes than its units; the Write carries what was copied,
        // and what is too little for a Write goes as a Send, with its header in the room in front.
        int copied = flushed.copyCurrent(placed, placedOffset + HEADER_SIZE, length);
        blocks.giveBack(length - copied);
        if (copied < minWrite) {
            addDataSend(placedOffset, copied);
        } else {
            addWrite(placedAddress + HEADER_SIZE, copied, placedLkey, true);
        }
        return true;
    }

    /**
     * Adds an RDMA Write with immediate of {@code length} bytes into the peer's ring to the chain:
     * bytes {@code copied} into a staging block, or a registered buffer's, read where they are.
     */
    private void addWrite(long address, int length, int lkey, boolean copied) {
        counters.wrote(length, copied);
        long ringOffset = credits.reserveRing(length);
        flushed.posted();
        credits.consumeSlot();
        chain.addSend(ledger.next(), WorkRequests.OPCODE_RDMA_WRITE_WITH_IMM, 0, address, length, lkey,
                ringAddress + ringOffset, ringKey, (int) ringOffset);
        signalIfDue(length);
        mark();
    }

    /** Copies as much of the flushed bytes as fits into one Send. */
    private boolean stageSend() throws IOException {
        int room = maxSendPayload;
        // All that is left fits inline: the Send needs no staging block at all. A small Send that
        // stops in front of a large write is told only as it is copied, and goes through a block.
        boolean small = maxInline >= HEADER_SIZE && flushed.remainingAtMost(maxInline - HEADER_SIZE);
        if (small) {
            room = Math.min(room, maxInline - HEADER_SIZE);
        }
        if (!place(HEADER_SIZE + room, small ? maxInline : 0)) {
            return false;
        }
        int offset = placedOffset;
        int payload = 0;
        while (flushed.hasRemaining() && payload < room) {
            int readable = flushed.currentLength();
            // A large buffer goes by Write when the ring has room; stop coalescing in front of it.
            if (payload > 0 && readable > room && credits.ringSize() > 0) {
                break;
            }
            int length = Math.min(readable, room - payload);
            payload += flushed.copyCurrent(placed, offset + HEADER_SIZE + payload, length);
        }
        giveBackPlaced(room - payload);
        addDataSend(offset, payload);
        return true;
    }

    /**
     * Adds a {@code DATA} Send to the chain: its header goes at {@code offset} of the room the last
     * {@link #place} took, in front of the {@code payload} bytes copied there.
     */
    private void addDataSend(int offset, int payload) {
        counters.sent(payload);
        flushed.posted();
        placed.writerIndex(offset);
        MessageHeader.encode(placed, RdmaProtocol.TYPE_DATA, owed.takeSlots(), owed.takeRingBytes(), payload);
        credits.consumeSlot();
        chain.addSend(ledger.next(), WorkRequests.OPCODE_SEND, inlineFlag(HEADER_SIZE + payload),
                placedAddress, HEADER_SIZE + payload, placedLkey, 0, 0, 0);
        signalIfDue(payload);
        mark();
    }

    private void signalIfDue(int payload) {
        if (signals.added(payload)) {
            chain.signalLast(true);
        }
    }

    /**
     * Posts a message without payload ({@code CREDIT}, {@code SHUTDOWN_OUTPUT}, {@code CLOSE}) if a
     * slot, send space and a send queue entry are free; the last slot only if it returns slots or is
     * the {@code CLOSE} ({@link SendCredits#canSendControl(boolean)}).
     *
     * @return {@code true} if it was posted
     */
    boolean sendControl(int type) throws IOException {
        boolean mayTakeLastSlot = owed.owedSlots() > 0 || type == RdmaProtocol.TYPE_CLOSE;
        if (closed || !credits.canSendControl(mayTakeLastSlot) || ledger.isFull()
                || !place(HEADER_SIZE, controlInline)) {
            return false;
        }
        placed.writerIndex(placedOffset);
        MessageHeader.encode(placed, type, owed.takeSlots(), owed.takeRingBytes(), 0);
        credits.consumeSlot();
        chain.addSend(ledger.next(), WorkRequests.OPCODE_SEND, inlineFlag(HEADER_SIZE), placedAddress,
                HEADER_SIZE, placedLkey, 0, 0, 0);
        mark();
        post();
        counters.controlMessages++;
        return true;
    }

    /**
     * Probes the peer: an RDMA Write of no bytes, which the peer's device acknowledges without a
     * completion or a receive there. A peer that is gone never acknowledges it, and the queue pair's
     * retries end in a failed completion. A peer without a ring open to this side gets a
     * {@code CREDIT} message instead. The Write is posted inline: with no bytes to read, it needs
     * no staging and no key.
     *
     * @return {@code true} if a probe was posted
     */
    boolean probe() throws IOException {
        if (credits.ringSize() == 0) {
            return sendControl(RdmaProtocol.TYPE_CREDIT);
        }
        chain.addSend(ledger.next(), WorkRequests.OPCODE_RDMA_WRITE, WorkRequests.FLAG_INLINE, inlineAddress, 0, 0,
                ringAddress, ringKey, 0);
        mark();
        post();
        return true;
    }

    /** Returns the largest region a request may stage: what one RDMA Write of {@link #postWrite} carries at most. */
    int largestStagedRegion() {
        return blocks.largestRegion();
    }

    /**
     * Posts an RDMA Read of {@code length} bytes at {@code remoteAddress} ({@code rkey}) into
     * {@code localAddress} ({@code lkey}), signaled: its completion says the bytes are there.
     *
     * @return its sequence number, or -1 if the send queue has no room now
     */
    long postRead(long localAddress, int lkey, int length, long remoteAddress, int rkey) throws IOException {
        if (closed || ledger.isFull()) {
            return -1;
        }
        long sequence = ledger.next();
        chain.addSend(sequence, WorkRequests.OPCODE_RDMA_READ, 0, localAddress, length, lkey, remoteAddress, rkey, 0);
        mark();
        post();
        return sequence;
    }

    /**
     * Posts an atomic request ({@code opcode}) on the word at {@code remoteAddress} ({@code rkey}),
     * whose old value lands at {@code localAddress} ({@code lkey}), signaled.
     *
     * @return its sequence number, or -1 if the send queue has no room now
     */
    long postAtomic(int opcode, long localAddress, int lkey, long remoteAddress, int rkey, long compareAdd,
                    long swap) throws IOException {
        if (closed || ledger.isFull()) {
            return -1;
        }
        long sequence = ledger.next();
        chain.addAtomic(sequence, opcode, 0, localAddress, lkey, remoteAddress, rkey, compareAdd, swap);
        mark();
        post();
        return sequence;
    }

    /**
     * Copies {@code length} bytes of {@code source} from {@code index} into staging (or inline) and
     * posts them as an RDMA Write without immediate to {@code remoteAddress} ({@code rkey}),
     * signaled: the peer's CPU sees nothing of it.
     *
     * @return its sequence number, or -1 if the send queue or the staging blocks have no room now
     */
    long postWrite(ByteBuf source, int index, int length, long remoteAddress, int rkey) throws IOException {
        if (closed || ledger.isFull() || !place(length, maxInline)) {
            return -1;
        }
        placed.setBytes(placedOffset, source, index, length);
        long sequence = ledger.next();
        chain.addSend(sequence, WorkRequests.OPCODE_RDMA_WRITE, inlineFlag(length), placedAddress, length,
                placedLkey, remoteAddress, rkey, 0);
        mark();
        post();
        return sequence;
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
     * Takes room for the {@code length} bytes of a request: in the inline buffer if they are at most
     * {@code inlineLimit}, else in a staging block; {@code placed} and the fields after it say where.
     *
     * @return {@code false} if no staging block has room now
     */
    private boolean place(int length, int inlineLimit) {
        if (length <= inlineLimit) {
            waitingForBlock = false;
            placed = inline;
            placedOffset = inlineUsed;
            placedAddress = inlineAddress + inlineUsed;
            placedLkey = 0; // inline data is copied at the post, never read under a key
            inlineUsed += length;
            return true;
        }
        int offset = blocks.take(length);
        if (offset < 0) {
            waitingForBlock = blocks.starved();
            return false;
        }
        waitingForBlock = false;
        StagingBlock block = blocks.current();
        placed = block.memory();
        placedOffset = offset;
        placedAddress = block.address() + offset;
        placedLkey = block.lkey();
        return true;
    }

    /** Gives back the last {@code unused} bytes of the room the last {@link #place} took. */
    private void giveBackPlaced(int unused) {
        if (placed == inline) {
            inlineUsed -= unused;
        } else {
            blocks.giveBack(unused);
        }
    }

    /**
     * Returns {@code true} if the last staging found the pool without a free block: only a completion
     * of this connection's sends or a retry later gets one then, since other connections' blocks come
     * back without a word to this one.
     */
    boolean waitingForBlock() {
        return waitingForBlock;
    }

    /**
     * Returns the bytes of staging blocks held now: the registered memory of this side's sends in
     * flight, and the spare blocks for its next ones until {@link #trimStaging()} gives them back.
     */
    int stagingBytes() {
        return blocks.heldBytes();
    }

    /** Returns {@code true} if the sender keeps spare staging blocks with nothing in flight. */
    boolean holdsIdleStaging() {
        return blocks.holdsOnlySpares();
    }

    /**
     * Gives the spare staging blocks back if no send was staged since the last call.
     *
     * @return {@code true} if no staging memory is held any more
     */
    boolean trimStaging() {
        return blocks.trimIfUnused();
    }

    /**
     * Returns the flags for a request of {@code length} bytes just placed: inline if they are in the
     * inline buffer, or at most what the user asked for. Bytes staged in a block stay reserved until
     * the request completes all the same; only the device's read of them is saved.
     */
    private int inlineFlag(int length) {
        return placed == inline || length <= maxInline ? WorkRequests.FLAG_INLINE : 0;
    }

    /** Records where the staging blocks and the outbound bytes stand after the request just added. */
    private void mark() {
        ledger.add(blocks.mark(), flushed.mark());
    }

    /** Posts the chain, its last request signaled: a completion covers every request up to its own. */
    private void post() throws IOException {
        if (chain.count() == 0) {
            return;
        }
        chain.signalLast(true);
        signals.posted();
        try {
            chain.post(qp);
        } finally {
            // Posted, the device has the inline data; failed, the connection fails.
            inlineUsed = 0;
        }
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
        blocks.returnTo(ledger.stagingMark(sequence));
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
     * Stops sending and releases the buffers sent in place, the staging blocks and the chain: the
     * queue pair is gone, the device reads nothing any more. Requests stay outstanding until their
     * completions arrive, if they do.
     */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        ledger.releaseHeld();
        blocks.close();
        if (inline != null) {
            inline.release();
        }
        chain.close();
    }

    /** Returns the chain this posts with, for the loop to claim for the channel's registration. */
    WorkRequests chain() {
        return chain;
    }
}
