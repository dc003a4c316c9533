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

import static org.nettyrdma.channel.rdma.protocol.RdmaProtocol.HEADER_SIZE;

import java.io.IOException;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelOutboundBuffer;
import org.nettyrdma.channel.rdma.RdmaProtocolException;
import org.nettyrdma.channel.rdma.internal.WorkRequests;
import org.nettyrdma.channel.rdma.memory.RdmaDevice;
import org.nettyrdma.channel.rdma.memory.SendBlocks;
import org.nettyrdma.channel.rdma.protocol.CreditReturn;
import org.nettyrdma.channel.rdma.protocol.HelloMessage;
import org.nettyrdma.channel.rdma.protocol.RdmaProtocol;
import org.nettyrdma.channel.rdma.protocol.RingMessage;
import org.nettyrdma.channel.rdma.protocol.SendCredits;

/**
 * The send side of one connection (docs/protocol.md): turns the flushed bytes of the channel's
 * outbound buffer into work requests within the peer's credits, and takes them out of the outbound
 * buffer when the requests that carry them complete, so a write's promise means the peer's device has
 * the bytes.
 *
 * <p>Its parts, one role each: writes up to the peer's slot size travel as Sends into the peer's
 * receive slots ({@link MessageSender}), all that fit of one flush in one Send, with every control
 * message and the credits this side owes the peer ({@link CreditReturn}) in their headers; larger
 * ones as RDMA Writes with immediate into the ring the peer opened to this side ({@link RingWriter}).
 * Their bytes are placed inline or in registered staging blocks ({@link SendStaging},
 * docs/decisions.md#send-staging-blocks). One flush is one post of a chain of the {@link SendQueue},
 * which completes the requests. This class holds the parts, the handshake's state, and the flush
 * that drives them; the connection, its rings and its one-sided requests reach the send queue and
 * the staging through it.
 *
 * <p>Not thread-safe: used on the channel's event loop only.
 */
final class RdmaSender {

    /** Where this side's {@code HELLO} stands. */
    private enum OwnHello {
        /** Not posted yet: the connection is not established. */
        NOT_POSTED,
        /** Posted as request {@link #helloSequence}; delivered once that completed. */
        POSTED
    }

    private final ConnectionCounters counters;
    private final FlushedBytes flushed = new FlushedBytes();
    private final SendStaging staging;
    private final SendQueue queue;
    private final MessageSender messages;
    private final RingWriter ring;
    private OwnHello ownHello = OwnHello.NOT_POSTED;
    private long helloSequence;
    /** The credits the peer's {@code HELLO} granted; null before it arrived. */
    private SendCredits credits;
    /** The last flush stopped with data left for want of the peer's slots. */
    private boolean stalledOnCredit;

    /**
     * Creates the send side of queue pair {@code qp}: a send queue of {@code sendDepth} requests,
     * inline data up to {@code maxInline} bytes ({@code controlInline} for control messages), Sends
     * that read registered buffers in place if it {@code gathers}, staging blocks from {@code source}
     * up to {@code sendBufferSize} bytes, headers that return {@code owed}.
     */
    RdmaSender(RdmaDevice device, long qp, int maxInline, int controlInline, boolean gathers, int sendDepth,
               int sendBufferSize, CreditReturn owed, ConnectionCounters counters, SendBlocks.Source source) {
        this.counters = counters;
        staging = new SendStaging(maxInline, controlInline, SendQueue.CHAIN, source, sendBufferSize);
        try {
            queue = new SendQueue(qp, sendDepth, staging, flushed);
        } catch (RuntimeException e) {
            staging.close();
            throw e;
        }
        messages = new MessageSender(staging, queue, flushed, owed, counters, gathers ? device : null);
        ring = new RingWriter(device, queue, staging, flushed, messages, counters);
    }

    /** Posts this side's {@code HELLO} ({@link MessageSender#sendHello}). */
    void sendHello(HelloMessage hello) throws IOException {
        helloSequence = messages.sendHello(hello);
        ownHello = OwnHello.POSTED;
    }

    /** Returns {@code true} once this side's {@code HELLO} is posted. */
    boolean helloSent() {
        return ownHello == OwnHello.POSTED;
    }

    /** Returns {@code true} once this side's {@code HELLO} completed: the peer's device has it. */
    boolean helloDelivered() {
        return helloSent() && queue.isCompleted(helloSequence);
    }

    /** Returns {@code true} once the peer's {@code HELLO} arrived. */
    boolean hasPeer() {
        return credits != null;
    }

    /** Takes the peer's {@code HELLO}: the credits it grants, and the sizes they allow. */
    void peerHello(HelloMessage hello) {
        credits = new SendCredits(hello.slots(), hello.maxSlots());
        credits.consumeSlot(); // this side's own HELLO
        // A Send or a copied Write must fit the staging limit with room for others in flight, whatever
        // slot or ring the peer announces.
        int maxSendPayload = Math.min(hello.slotSize(), staging.largestRegion()) - HEADER_SIZE;
        messages.peerHello(credits, maxSendPayload);
        ring.peerHello(credits, hello.maxRingSize(), maxSendPayload, RdmaProtocol.minWriteLength(hello.slotSize()));
    }

    /** Accounts for the slots and ring bytes the peer returned in a header. */
    void creditsReturned(int slots, int ringBytes) throws RdmaProtocolException {
        credits.onReturned(slots, ringBytes);
    }

    /**
     * Takes the peer's {@code RING} ({@link RingWriter#onRing}).
     *
     * @throws RdmaProtocolException if the peer opens a ring it never offered, a second one, or one of
     *         an old generation
     */
    void onRing(RingMessage message) throws RdmaProtocolException {
        ring.onRing(message);
    }

    /**
     * Stages and posts as much of {@code in} as credits, send space and the send queue allow. Nothing is
     * removed from {@code in} here: the bytes leave it when the work requests carrying them complete
     * ({@link #completed}), so a write's promise says the device delivered it.
     *
     * @return {@code false} if it did not flush: sent bytes are being removed, or it closed meanwhile
     */
    boolean flush(ChannelOutboundBuffer in) throws Exception {
        if (queue.isClosed() || flushed.isRemoving()) {
            return false;
        }
        stalledOnCredit = false;
        staging.clearWaitingForBlock();
        if (!flushed.hasInFlight()) {
            // Empty writes at the head wait for nothing: complete them now.
            flushed.removeSent(in, 0);
            if (queue.isClosed()) {
                return false;
            }
        }
        flushed.load(in);
        try {
            while (flushed.hasRemaining()) {
                if (ring.messagesOwed()) {
                    // A request the last Write wished for goes out ahead of the Sends that carry it meanwhile.
                    ring.addOwedMessages();
                }
                if (queue.isFull()) {
                    break;
                }
                queue.postIfChainFull();
                if (!credits.canSendData()) {
                    counters.creditStalls++;
                    stalledOnCredit = true;
                    break;
                }
                if (!(ring.stageWrite() || messages.stageData())) {
                    // No staging room: a completion gives some back, or the pool a block (waitingForBlock).
                    break;
                }
            }
        } catch (Exception e) {
            // A file region failed: what was staged before it still goes out, then the channel closes.
            try {
                queue.post();
            } catch (IOException postFailure) {
                e.addSuppressed(postFailure);
            }
            throw e;
        } finally {
            flushed.clear();
        }
        if (ring.messagesOwed()) {
            ring.addOwedMessages();
        }
        queue.post();
        return true;
    }

    /** Returns {@code true} if the last {@link #flush} left data behind because the peer had no slot left. */
    boolean stalledOnCredit() {
        return stalledOnCredit;
    }

    /**
     * Posts a message without payload ({@code CREDIT}, {@code SHUTDOWN_OUTPUT}, {@code CLOSE}) if a
     * slot, send space and a send queue entry are free ({@link MessageSender#sendControl}).
     *
     * @return {@code true} if it was posted
     */
    boolean sendControl(int type) throws IOException {
        return messages.sendControl(type);
    }

    /** Returns {@code true} while a {@code RING_RELEASED} or {@code RING_REQUEST} waits to be posted. */
    boolean ringMessagesOwed() {
        return ring.messagesOwed();
    }

    /**
     * Posts the {@code RING_RELEASED} and {@code RING_REQUEST} owed, as far as slots allow.
     *
     * @return {@code false} if one is still owed
     */
    boolean sendOwedRingMessages() throws IOException {
        if (queue.isClosed() || credits == null) {
            return true;
        }
        ring.addOwedMessages();
        queue.post();
        return !ring.messagesOwed();
    }

    /**
     * Posts a {@code RING} that opens ring {@code generation} of {@code size} bytes at {@code address}
     * with window key {@code key}, or closes it if {@code size} is 0, if a slot allows.
     *
     * @return {@code true} if it was posted
     */
    boolean sendRing(int generation, int size, long address, int key) throws IOException {
        if (queue.isClosed() || !messages.addRingMessage(RdmaProtocol.TYPE_RING, generation, size, address, key)) {
            return false;
        }
        queue.post();
        return true;
    }

    /**
     * Probes the peer ({@link RingWriter#probe()}): an RDMA Write of no bytes, or a {@code CREDIT}
     * while no ring is open.
     *
     * @return {@code true} if a probe was posted
     */
    boolean probe() throws IOException {
        return ring.probe();
    }

    // What the connection, its rings and its one-sided requests ask of the send queue and the staging.

    /** Returns the chain this posts with, for the loop to claim for the channel's registration. */
    WorkRequests chain() {
        return queue.chain();
    }

    /** Returns the sequence number, the {@code wr_id}, that the next send request gets. */
    long nextSequence() {
        return queue.nextSequence();
    }

    /** Returns {@code true} if a request may be posted outside the chain now ({@link SendQueue#hasRoomOutsideChain()}). */
    boolean hasRoomOutsideChain() {
        return queue.hasRoomOutsideChain();
    }

    /** Accounts for a request posted with {@link #nextSequence()} outside the chain (the window's bind). */
    void postedOutsideChain() {
        queue.postedOutsideChain();
    }

    /** Returns the largest region a request may stage: what one RDMA Write of {@link #postWrite} carries at most. */
    int largestStagedRegion() {
        return staging.largestRegion();
    }

    /** Posts an RDMA Read ({@link SendQueue#postRead}); returns its sequence number, or -1 if there is no room now. */
    long postRead(long localAddress, int lkey, int length, long remoteAddress, int rkey) throws IOException {
        return queue.postRead(localAddress, lkey, length, remoteAddress, rkey);
    }

    /** Posts an atomic ({@link SendQueue#postAtomic}); returns its sequence number, or -1 if there is no room now. */
    long postAtomic(int opcode, long localAddress, int lkey, long remoteAddress, int rkey, long compareAdd,
                    long swap) throws IOException {
        return queue.postAtomic(opcode, localAddress, lkey, remoteAddress, rkey, compareAdd, swap);
    }

    /** Posts an RDMA Write without immediate ({@link SendQueue#postWrite}); returns its sequence number, or -1. */
    long postWrite(ByteBuf source, int index, int length, long remoteAddress, int rkey) throws IOException {
        return queue.postWrite(source, index, length, remoteAddress, rkey);
    }

    /** Posts a flush marker on a queue pair in the error state ({@link SendQueue#postFlushMarker()}). */
    void postFlushMarker() throws IOException {
        queue.postFlushMarker();
    }

    /** Returns {@code true} if the last staging found the pool without a free block ({@link SendStaging#waitingForBlock()}). */
    boolean waitingForBlock() {
        return staging.waitingForBlock();
    }

    /** Returns the bytes of staging blocks held now, spares included. */
    int stagingBytes() {
        return staging.heldBytes();
    }

    /** Returns {@code true} if the sender keeps spare staging blocks with nothing in flight. */
    boolean holdsIdleStaging() {
        return staging.holdsOnlySpares();
    }

    /**
     * Gives the spare staging blocks back if no send was staged since the last call.
     *
     * @return {@code true} if no staging memory is held any more
     */
    boolean trimStaging() {
        return staging.trimIfUnused();
    }

    /** Returns the send requests posted whose completion has not arrived. */
    int outstanding() {
        return queue.outstanding();
    }

    /** Accounts for the successful completion of request {@code sequence} ({@link SendQueue#completed}). */
    void completed(long sequence, ChannelOutboundBuffer in) {
        queue.completed(sequence, in);
    }

    /**
     * Accounts for request {@code sequence} completed in error ({@link SendQueue#failed}).
     *
     * @return {@code true} if that completed requests not accounted for before
     */
    boolean failed(long sequence) {
        return queue.failed(sequence);
    }

    /**
     * Stops sending and releases the buffers sent in place, the chain and the staging: the queue pair
     * is gone, the device reads nothing any more. Requests stay outstanding until their completions
     * arrive, if they do.
     */
    void close() {
        if (queue.isClosed()) {
            return;
        }
        queue.close();
        staging.close();
    }
}
