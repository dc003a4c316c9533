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

import java.io.IOException;
import java.util.concurrent.RejectedExecutionException;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoop;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.internal.CreditReturn;
import org.nettyrdma.channel.rdma.internal.HelloMessage;
import org.nettyrdma.channel.rdma.internal.MessageHeader;
import org.nettyrdma.channel.rdma.internal.OfferedRing;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.channel.rdma.internal.RdmaProtocol;
import org.nettyrdma.channel.rdma.internal.RegionByteBuf;
import org.nettyrdma.channel.rdma.internal.RegisteredBuffer;
import org.nettyrdma.channel.rdma.internal.RegisteredMemoryBudget;
import org.nettyrdma.channel.rdma.internal.RingLifecycle;
import org.nettyrdma.channel.rdma.internal.RingMessage;
import org.nettyrdma.channel.rdma.internal.SendBlocks;
import org.nettyrdma.channel.rdma.internal.SharedReceiveQueue;
import org.nettyrdma.channel.rdma.internal.SlotShare;

/**
 * The receive side of one connection (docs/protocol.md): its share of its receive queue, a shared
 * receive queue of the connection's own or the loop's ({@link SlotShare}; "the shared queue" below
 * is either), the rings it opens to the peer on request ({@link RingLifecycle}), the
 * queue of received messages waiting for the pipeline, and the credits this side owes the peer for
 * slots reposted and ring space freed ({@link CreditReturn}).
 *
 * <p>A message's header (the credits it returns) is taken when it arrives, its payload when the
 * pipeline reads, so a reader that stops reading stops the sender without stopping credits for its
 * own writes. A Send's payload is copied out of its slot, and the slot goes back to the shared queue
 * once all of it was read. A region of the ring is copied out too, and its space returned once all of it was read,
 * so that no byte the pipeline holds can be written by the peer again; with
 * {@link RdmaChannelOption#RECEIVE_IN_PLACE} it is handed up where the Write put it instead, in a
 * buffer that holds the region until released. A slot is credited to the peer only once it is posted
 * again: a Send that finds no receive posted waits for the queue pair's RNR retry
 * (docs/decisions.md#credit-posted-receives-only).
 *
 * <p>Used on the channel's event loop only, except the release of ring regions handed up, which may
 * happen on any thread and comes back to the loop.
 */
final class RdmaReceiver {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RdmaReceiver.class);

    private static final int WC_RECV = 128;
    private static final int WC_RECV_RDMA_WITH_IMM = 129;
    /**
     * The share a connection starts with: a peer that never sends much holds no more (four 8 KiB
     * slots by default), and with the slot kept for credit messages it can still send two in a row.
     */
    static final int INITIAL_SHARE = 4;

    /** {@link #onReceive} result: the peer's {@code HELLO}, in {@link #peerHello()}. */
    static final int RECEIVED_HELLO = 0;
    /** {@link #onReceive} result: a Write's data, queued for the pipeline. */
    static final int RECEIVED_WRITE = 1;
    /** {@link #onReceive} result: a Send queued for the pipeline; its header in {@link #header()}. */
    static final int RECEIVED_SEND = 2;
    /** {@link #onReceive} result: a {@code CREDIT}, nothing queued; its header in {@link #header()}. */
    static final int RECEIVED_CREDIT = 3;
    /**
     * {@link #onReceive} result: a {@code RING_REQUEST}, {@code RING} or {@code RING_RELEASED}, nothing
     * queued; its header in {@link #header()}, its payload in {@link #ringMessage()} or
     * {@link #ringGeneration()}.
     */
    static final int RECEIVED_RING_MESSAGE = 4;

    /** What the receiver tells its connection outside a completion. */
    interface Listener {
        /** Ring space came back on the loop: a {@code CREDIT} may be due. */
        void ringSpaceFreed();

        /** The peer wrote the open ring through often enough for a larger one: close it to reopen larger. */
        void ringGrowthDue();

        /** Posting receives failed: the connection is broken. */
        void receiveFailed(IOException cause);

        /**
         * Asks whether the connection may hold {@code bytes} more registered memory (its source
         * address's cap on a server); if so they count as held from now on.
         */
        boolean mayHoldMore(long bytes);

        /** The connection holds {@code bytes} less registered memory. */
        void heldLess(long bytes);
    }

    private final Listener listener;
    private final ConnectionCounters counters;
    private final EventLoop eventLoop;
    private final int qpNum;
    private final int slotSize;
    private final SharedReceiveQueue srq;
    private final SlotShare share;
    /** Slots of the shared queue reserved for this connection's peer. */
    private int reserved;
    /** The rings opened to the peer: which one takes its Writes, and which is credited. */
    private final RingLifecycle rings;
    private final CreditReturn owed;
    private final MessageHeader header = new MessageHeader();
    private final RingMessage ringMessage = new RingMessage();
    /** The generation the last {@code RING_REQUEST} or {@code RING_RELEASED} named. */
    private int ringGeneration;
    private final InboundQueue inbound = new InboundQueue();
    /** Ring data goes up where it landed, still writable by the peer (RdmaChannelOption.RECEIVE_IN_PLACE). */
    private final boolean inPlace;
    /** This side answers the peer's {@code HELLO}: until then the peer may use only the slot reserved for it. */
    private final boolean answersHello;
    private HelloMessage peer;
    /** Slots of the peer's released to the shared queue, not posted yet, so not credited yet. */
    private int unpostedReturns;
    /** No slot of the shared queue is in hand ({@link #slotInHand}). */
    private static final int NO_SLOT = -1;
    /**
     * The slot of the receive {@link #onReceive} is taking, until it is queued with its message or
     * given back for credit: if the message is refused meanwhile, this is the slot to give back.
     */
    private int slotInHand = NO_SLOT;
    /** The queue pair is in the error state: no slot is credited any more. */
    private boolean flushing;
    private boolean closed;

    /**
     * Creates the receive side of a connection whose peer may hold up to {@code maxShare} slots of
     * {@code srq}, {@link #INITIAL_SHARE} (or fewer, if that is the most) to begin with, and get rings
     * of up to {@code maxRingSize} bytes on request (0: none).
     */
    RdmaReceiver(Listener listener, EventLoop eventLoop, QueuePairResources resources, int maxShare,
                 int maxRingSize, boolean inPlace, boolean answersHello, ConnectionCounters counters) {
        this.inPlace = inPlace;
        this.listener = listener;
        this.counters = counters;
        this.eventLoop = eventLoop;
        this.qpNum = resources.qpNum();
        this.srq = resources.sharedReceiveQueue();
        this.slotSize = srq.slotSize();
        int initial = Math.min(INITIAL_SHARE, maxShare);
        share = new SlotShare(initial, maxShare);
        rings = new RingLifecycle(maxRingSize);
        this.answersHello = answersHello;
        owed = new CreditReturn(answersHello ? 1 : initial, null);
    }

    /**
     * Reserves slots of the shared queue for the peer, up to its initial share: before the
     * connection is established, so no Send from the peer can find no receive. An accepting side
     * reserves one now, for the peer's {@code HELLO}, and the rest when it answers
     * ({@link #reserveShare()}): a peer that connects and never speaks holds one slot of the queue.
     */
    void reserveForHello() throws IOException {
        reserveMore(answersHello ? 1 : share.share());
    }

    /**
     * Reserves what the peer's share still lacks and grants it: before this side's {@code HELLO}, which
     * announces the share ({@link CreditReturn#grantedSlots()}).
     */
    void reserveShare() throws IOException {
        reserveMore(share.share() - reserved);
        owed.grantInHello(share.share());
    }

    private void reserveMore(int slots) throws IOException {
        if (slots <= 0) {
            return;
        }
        srq.reserve(slots);
        reserved += slots;
    }

    /** Returns the maximum share, which this side's {@code HELLO} announces. */
    int maxShare() {
        return share.maximum();
    }

    /** Returns the registered bytes of the shared queue reserved for this connection, and of its rings. */
    long registeredBytes() {
        // A queue of its own registers whole regions, more than the share before the HELLO.
        long slots = srq.isOwn() ? srq.registeredBytes() : (long) reserved * slotSize;
        return slots + ringBytes(rings.open()) + ringBytes(rings.closing());
    }

    private static long ringBytes(OfferedRing ring) {
        return ring != null ? ring.size() : 0;
    }

    /** Returns the credits this side owes the peer, which the sender's headers carry. */
    CreditReturn owed() {
        return owed;
    }

    /** Returns {@code true} if {@code wrId} is a receive request's. */
    static boolean isReceive(long wrId) {
        return (wrId & SharedReceiveQueue.RECEIVE_TAG) != 0;
    }

    /** Returns the largest ring this side opens to the peer, which its {@code HELLO} announces; 0 for none. */
    int maxRingSize() {
        return rings.maxSize();
    }

    /** Returns the rings opened to the peer, for the connection's decisions about them. */
    RingLifecycle rings() {
        return rings;
    }

    /**
     * Takes {@code memory}, registered for a ring, into use as the next ring: open to the peer from
     * now on, its freed bytes owed to the peer.
     */
    OfferedRing openRing(RegisteredBuffer memory) {
        OfferedRing ring = new OfferedRing(rings.nextGeneration(), memory.size(), memory, this::regionReleased);
        rings.opened(ring);
        owed.ringOpened(ring.size());
        counters.ringsOpened++;
        return ring;
    }

    /**
     * Closes the open ring to the peer: its freed bytes are owed no more, and it takes only the Writes
     * the peer posted before it learns of the close.
     */
    OfferedRing closeRing() {
        OfferedRing ring = rings.close();
        owed.ringClosed();
        return ring;
    }

    /**
     * Takes the peer's {@code RING_RELEASED}: no Write into that ring follows.
     *
     * @return the ring, whose window the caller revokes before it deregisters its memory
     *         ({@link #freeRing})
     */
    OfferedRing ringReleased(int generation) throws RdmaProtocolException {
        return rings.onReleased(generation);
    }

    /**
     * Deregisters a ring the peer can no longer write: its memory stays as long as regions of it wait
     * in the inbound queue or are held by the pipeline.
     */
    void freeRing(OfferedRing ring) {
        ring.memory().close();
        counters.ringsClosed++;
    }

    /** Returns the peer's {@code HELLO}, once {@link #onReceive} returned {@link #RECEIVED_HELLO}. */
    HelloMessage peerHello() {
        return peer;
    }

    /** Returns the header of the last Send received. */
    MessageHeader header() {
        return header;
    }

    /** Returns the last {@code RING} received. */
    RingMessage ringMessage() {
        return ringMessage;
    }

    /** Returns the generation the last {@code RING_REQUEST} or {@code RING_RELEASED} named. */
    int ringGeneration() {
        return ringGeneration;
    }

    /**
     * Gives back the slot of a receive that completed but is not taken: it failed, the connection
     * failed or is closed, or the message in it broke the protocol. The slot goes back to the shared
     * queue, uncredited: the peer's credit for it is gone with its connection.
     */
    void discard(long wrId) {
        srq.release(SharedReceiveQueue.slotOf(wrId));
        try {
            srq.post();
        } catch (IOException e) {
            listener.receiveFailed(e);
        }
    }

    /**
     * Takes the successful receive completion of request {@code wrId}. Whatever happens to it, its
     * slot of the shared queue is accounted for: queued with the message, given back for credit, or,
     * if the message is refused, given back at once ({@link #discard}), so that a peer that breaks the
     * protocol costs the queue nothing.
     *
     * @return what it brought: {@link #RECEIVED_HELLO}, {@link #RECEIVED_WRITE}, {@link #RECEIVED_SEND},
     *         {@link #RECEIVED_CREDIT} or {@link #RECEIVED_RING_MESSAGE}
     * @throws IOException if the peer broke the protocol, or reposting failed
     */
    int onReceive(long wrId, int opcode, int byteLength, int immediate, int flags) throws IOException {
        slotInHand = SharedReceiveQueue.slotOf(wrId);
        try {
            return take(slotInHand, opcode, byteLength, immediate, flags);
        } catch (IOException | RuntimeException e) {
            if (slotInHand != NO_SLOT) {
                discard(wrId);
            }
            throw e;
        } finally {
            slotInHand = NO_SLOT;
        }
    }

    private int take(int slot, int opcode, int byteLength, int immediate, int flags) throws IOException {
        if ((flags & RdmaNative.WC_WITH_INV) != 0) {
            // The device already invalidated the key the peer named; no message of the protocol does that.
            throw new RdmaProtocolException("the peer sent a Send with Invalidate, which the protocol never "
                    + "uses (its device invalidated an rkey of this side)");
        }
        // Before this side's HELLO the peer was granted only the slot reserved for its own HELLO.
        owed.onPeerUsedSlot();
        if (opcode == WC_RECV_RDMA_WITH_IMM) {
            return takeWrite(slot, byteLength, immediate);
        }
        if (opcode != WC_RECV) {
            throw new RdmaProtocolException("unexpected receive opcode " + opcode);
        }
        ByteBuf view = srq.viewOf(slot);
        int base = srq.offsetOf(slot);
        if (peer == null) {
            peer = HelloMessage.decode(view, base, byteLength);
            logger.debug("qp {}: the peer's HELLO arrived", qpNum);
            // Credited again as it was granted: the share's decisions start with the peer's data.
            returnSlot(slot);
            postReceives();
            return RECEIVED_HELLO;
        }
        header.decode(view, base, byteLength);
        if (header.type() == RdmaProtocol.TYPE_CREDIT) {
            returnSlot(slot);
            postReceives();
            return RECEIVED_CREDIT;
        }
        if (isRingMessage(header.type())) {
            if (header.type() == RdmaProtocol.TYPE_RING) {
                ringMessage.decodeRing(view, base + HEADER_SIZE);
            } else {
                ringGeneration = RingMessage.decodeGeneration(view, base + HEADER_SIZE);
            }
            returnSlot(slot);
            postReceives();
            return RECEIVED_RING_MESSAGE;
        }
        if (header.type() == RdmaProtocol.TYPE_DATA) {
            counters.receivedSend(header.payloadLength());
            // Only valid data makes the share grow, never before the HELLO.
            growIfDue();
        }
        inbound.addSlot(header.type(), slot, base + HEADER_SIZE, header.payloadLength());
        slotInHand = NO_SLOT;
        return RECEIVED_SEND;
    }

    /** Takes an RDMA Write with immediate into the open ring, which consumed a receive but left its slot untouched. */
    private int takeWrite(int slot, int byteLength, int immediate) throws IOException {
        if (peer == null) {
            throw new RdmaProtocolException("RDMA Write before HELLO");
        }
        OfferedRing ring = rings.writable();
        if (ring == null) {
            // Only a Write of 0 bytes, which needs no key, can get here: no window of this side is bound.
            throw new RdmaProtocolException("RDMA Write with immediate of " + byteLength
                    + " bytes, but this side has no ring open to the peer");
        }
        if (byteLength < RdmaProtocol.minWriteLength(slotSize)) {
            throw new RdmaProtocolException("RDMA Write with immediate of " + byteLength + " bytes, which "
                    + "fit a receive slot of " + slotSize + " bytes: the protocol sends those");
        }
        long token = ring.book().accept(immediate, byteLength);
        growIfDue();
        if (rings.wrote(byteLength) == RingLifecycle.GROW) {
            // Closed now, a larger one opens when the peer released it; this Write is in it all the same.
            listener.ringGrowthDue();
        }
        counters.receivedWrite(byteLength);
        // The queue holds the region's memory until it was read: the ring may be released meanwhile.
        ring.memory().retainMemory();
        inbound.addRegion(ring, immediate, byteLength, token);
        // Posted again at once, for credit.
        returnSlot(slot);
        postReceives();
        return RECEIVED_WRITE;
    }

    private static boolean isRingMessage(int type) {
        return type == RdmaProtocol.TYPE_RING_REQUEST || type == RdmaProtocol.TYPE_RING
                || type == RdmaProtocol.TYPE_RING_RELEASED;
    }

    /** Returns {@code true} if messages wait to be read. */
    boolean hasInbound() {
        return !inbound.isEmpty();
    }

    /** Returns {@code true} if the next message is the peer's {@code SHUTDOWN_OUTPUT} or {@code CLOSE}. */
    boolean endOfInputIsNext() {
        return inbound.endOfInputIsNext();
    }

    /**
     * Takes the next piece of received data, at most {@code handle.guess()} bytes as a stream
     * transport reads (a Send's payload or a ring region is copied into a buffer from {@code handle},
     * and its slot posted again or its ring space returned once all of it was read; in place, a piece
     * of a ring region is handed up where it landed, in a recycled buffer that holds the region until
     * released), or an {@code Integer} with the type of a {@code SHUTDOWN_OUTPUT} or {@code CLOSE}, or
     * {@code null}.
     */
    Object readInbound(RecvByteBufAllocator.Handle handle, ByteBufAllocator alloc) {
        InboundQueue.Message message = inbound.peek();
        if (message == null) {
            return null;
        }
        if (message.type() != RdmaProtocol.TYPE_DATA) {
            int type = message.type();
            returnSlot(message.slot());
            inbound.recycle();
            return type;
        }
        int remaining = message.remaining();
        int offset = message.readOffset();
        ByteBuf piece;
        int length;
        OfferedRing ring = message.ring();
        if (ring != null && inPlace) {
            length = Math.min(remaining, Math.max(1, handle.guess()));
            ring.book().retain(message.token());
            ring.memory().retainMemory();
            piece = RdmaByteBufAllocator.trackLeaks(RegionByteBuf.ofRegion(alloc, ring.memory().buffer(), offset,
                    length, ring, message.token()));
            handle.attemptedBytesRead(length);
        } else {
            piece = handle.allocate(alloc);
            length = Math.min(remaining, piece.writableBytes());
            handle.attemptedBytesRead(piece.writableBytes());
            // Copied out of the slot or the ring, which the peer may write again: the pipeline holds bytes
            // that never change. With memory addresses on both sides that is one memory copy and no
            // garbage, where piece.writeBytes(view, ...) may make ByteBuffer views.
            ByteBuf source = ring != null ? ring.view() : srq.viewOf(message.slot());
            source.getBytes(offset, piece, piece.writerIndex(), length);
            piece.writerIndex(piece.writerIndex() + length);
        }
        if (inbound.consume(message, length)) {
            if (ring != null) {
                // The queue's own hold: the region returns once the pieces handed up are released too.
                // Credits go out in readComplete, after this read.
                regionRead(ring, message.token());
                ring.memory().releaseMemory();
            } else {
                returnSlot(message.slot());
            }
            inbound.recycle();
        }
        return piece;
    }

    /**
     * Gives a ring region back, from any thread (the pipeline may release on another one): its memory
     * at once, its space to the peer on the loop.
     */
    private void regionReleased(OfferedRing ring, long token) {
        ring.memory().releaseMemory();
        if (eventLoop.inEventLoop()) {
            regionReleasedOnLoop(ring, token);
        } else {
            try {
                eventLoop.execute(() -> regionReleasedOnLoop(ring, token));
            } catch (RejectedExecutionException e) {
                // The loop is gone, and the connection with it: no peer is owed the space any more.
            }
        }
    }

    private void regionReleasedOnLoop(OfferedRing ring, long token) {
        if (closed) {
            return;
        }
        regionRead(ring, token);
        listener.ringSpaceFreed();
    }

    /**
     * Releases one hold on a region of {@code ring}; the space it frees is owed to the peer if the
     * ring is still open to it. The space of a closed ring is not: the peer forgot it.
     */
    private void regionRead(OfferedRing ring, long token) {
        int freed = ring.book().release(token);
        if (ring == rings.open()) {
            owed.ringFreed(freed);
        }
    }

    /**
     * Gives a slot the peer used back to the shared queue, to be credited to the peer again once it
     * is posted (docs/decisions.md#credit-posted-receives-only).
     */
    private void returnSlot(int slot) {
        if (slot == slotInHand) {
            slotInHand = NO_SLOT;
        }
        srq.release(slot);
        if (!flushing) {
            unpostedReturns++;
        }
    }

    /**
     * Grows the peer's share if its data (a {@code DATA} Send or a Write) left it half its credits or
     * less, and the queue and the connection's limits allow: the new slots are posted at once, and owed
     * to the peer ({@link CreditReturn#creditMessageDue()}). Only data counts: control messages never
     * need more than the slots they were granted, and a {@code CLOSE} would grow the share of every
     * idle connection that closes, registering receive memory just before the share goes back.
     */
    private void growIfDue() {
        int slots = share.onArrival(owed.peerSlots());
        if (slots == 0) {
            return;
        }
        // What the connection comes to hold: a queue of its own registers whole regions.
        long bytes = srq.isOwn() ? srq.registrationNeeded(slots) : (long) slots * slotSize;
        // Receiving more must not cost the ability to answer: the process's limit keeps room for a
        // staging block beside the new slots, as it did when the connection was admitted.
        if (!srq.hasRoom(slots)
                || !RegisteredMemoryBudget.hasRoom(srq.registrationNeeded(slots) + SendBlocks.BLOCK_SIZE)
                || !listener.mayHoldMore(bytes)) {
            return;
        }
        try {
            srq.reserve(slots);
        } catch (IOException e) {
            // The registered memory limit: the peer goes on with the share it has.
            listener.heldLess(bytes);
            logger.debug("qp {}: the peer's share stays at {} slots: {}", qpNum, share.share(), e.getMessage());
            return;
        }
        reserved += slots;
        share.grew(slots);
        owed.grow(slots);
        counters.shareGrowths++;
    }

    /** Posts the slots released since the last post, and credits the peer's among them to the peer. */
    void postReceives() throws IOException {
        if (flushing) {
            return;
        }
        srq.post();
        owed.slotsReposted(unpostedReturns);
        unpostedReturns = 0;
    }

    /**
     * Posts no receive any more: the queue pair is going to the error state, where only the receives
     * already posted come back, flushed, for the drain to count.
     */
    void stopPosting() {
        flushing = true;
        try {
            srq.post();
        } catch (IOException e) {
            logger.debug("qp {}: posting to the shared receive queue failed", qpNum, e);
        }
    }

    /**
     * Stops handing up and crediting: the slots the queued messages are in and the share go back to
     * the shared queue, for the other connections.
     */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        flushing = true;
        // The slots messages wait in go back to the shared queue, and so does the share; the regions
        // let go of their rings' memory, which pieces handed up still hold.
        inbound.clear(srq::release);
        // The queue pair is gone: the rings' registrations go, their memory with the last piece.
        freeIfOpen(rings.open());
        freeIfOpen(rings.closing());
        try {
            srq.post();
        } catch (IOException e) {
            logger.debug("qp {}: posting to the shared receive queue failed", qpNum, e);
        }
        srq.unreserve(reserved);
        reserved = 0;
    }

    private void freeIfOpen(OfferedRing ring) {
        if (ring != null) {
            ring.memory().close();
        }
    }
}
