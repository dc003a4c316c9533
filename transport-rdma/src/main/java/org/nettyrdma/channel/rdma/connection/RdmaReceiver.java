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
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoop;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.RdmaProtocolException;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.channel.rdma.loop.SharedReceiveQueue;
import org.nettyrdma.channel.rdma.memory.RegisteredBuffer;
import org.nettyrdma.channel.rdma.protocol.CreditReturn;
import org.nettyrdma.channel.rdma.protocol.HelloMessage;
import org.nettyrdma.channel.rdma.protocol.MessageHeader;
import org.nettyrdma.channel.rdma.protocol.RdmaProtocol;
import org.nettyrdma.channel.rdma.protocol.RingMessage;

/**
 * The receive side of one connection (docs/protocol.md): takes each receive completion and says what
 * it brought ({@link Received}). Its parts are the peer's share of the receive queue, a shared receive
 * queue of the connection's own or the loop's ({@link ReceiveShare}; "the shared queue" below is
 * either), the rings it opens to the peer on request ({@link RingLifecycle}), the queue of received
 * messages waiting for the pipeline, which {@link InboundReader} hands up, and the credits this side
 * owes the peer for slots reposted and ring space freed ({@link CreditReturn}).
 *
 * <p>A message's header (the credits it returns) is taken when it arrives, its payload when the
 * pipeline reads, so a reader that stops reading stops the sender without stopping credits for its
 * own writes. A slot is credited to the peer only once it is posted again: a Send that finds no
 * receive posted waits for the queue pair's RNR retry (docs/decisions.md#credit-posted-receives-only).
 *
 * <p>Used on the channel's event loop only, except the release of ring regions handed up, which may
 * happen on any thread and comes back to the loop ({@link InboundReader#regionReleased}).
 */
public final class RdmaReceiver {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RdmaReceiver.class);

    private static final int WC_RECV = 128;
    private static final int WC_RECV_RDMA_WITH_IMM = 129;
    /**
     * The share a connection starts with: a peer that never sends much holds no more (four 8 KiB
     * slots by default), and with the slot kept for credit messages it can still send two in a row.
     */
    public static final int INITIAL_SHARE = 4;

    /** What the receiver tells its connection outside a completion. */
    interface Listener {
        /** Ring space or a lent slot came back on the loop outside a read: a {@code CREDIT} may be due. */
        void creditsFreed();

        /** The peer wrote the open ring through often enough for a larger one: close it to reopen larger. */
        void ringGrowthDue();

        /** Posting receives failed: the connection is broken. */
        void receiveFailed(IOException cause);
    }

    private final Listener listener;
    private final ConnectionCounters counters;
    private final int qpNum;
    private final int slotSize;
    private final SharedReceiveQueue srq;
    private final ReceiveShare slots;
    /** The rings opened to the peer: which one takes its Writes, and which is credited. */
    private final RingLifecycle rings;
    private final CreditReturn owed;
    private final Received received = new Received();
    /** The messages received, which the receiver adds and the reader hands up. */
    private final InboundQueue inbound = new InboundQueue();
    private final InboundReader reader;
    /** This side answers the peer's {@code HELLO}: until then the peer may use only the slot reserved for it. */
    private final boolean answersHello;
    /** The peer's {@code HELLO} arrived: every later Send is a message with a header. */
    private boolean helloReceived;
    /** Set once the peer's {@code CLOSE} arrived, whether or not the pipeline has read up to it. */
    private boolean closeArrived;
    private boolean closed;

    /**
     * Creates the receive side of a connection whose peer may hold up to {@code maxShare} slots of
     * {@code srq}, {@link #INITIAL_SHARE} (or fewer, if that is the most) to begin with, and get rings
     * of up to {@code maxRingSize} bytes on request (0: none).
     */
    RdmaReceiver(Listener listener, MemoryAdmission memory, EventLoop eventLoop, QueuePairResources resources,
                 int maxShare,
                 int maxRingSize, boolean inPlace, boolean answersHello, ConnectionCounters counters,
                 PooledMemory pooled) {
        this.listener = listener;
        this.counters = counters;
        this.qpNum = resources.qpNum();
        this.srq = resources.sharedReceiveQueue();
        this.slotSize = srq.slotSize();
        int initial = Math.min(INITIAL_SHARE, maxShare);
        rings = new RingLifecycle(maxRingSize);
        this.answersHello = answersHello;
        owed = new CreditReturn(answersHello ? 1 : initial, null);
        slots = new ReceiveShare(resources, initial, maxShare, owed, listener, memory, counters);
        reader = new InboundReader(inbound, slots, srq, rings, owed, eventLoop, listener, inPlace, pooled,
                counters);
    }

    /**
     * Reserves slots of the shared queue for the peer, up to its initial share: before the
     * connection is established, so no Send from the peer can find no receive. An accepting side
     * reserves one now, for the peer's {@code HELLO}, and the rest when it answers
     * ({@link #reserveShare()}): a peer that connects and never speaks holds one slot of the queue.
     */
    void reserveForHello() throws IOException {
        slots.reserveUpTo(answersHello ? 1 : slots.share());
    }

    /**
     * Reserves what the peer's share still lacks and grants it: before this side's {@code HELLO}, which
     * announces the share ({@link CreditReturn#grantedSlots()}).
     */
    void reserveShare() throws IOException {
        slots.reserveUpTo(slots.share());
        owed.grantInHello(slots.share());
    }

    /** Returns the maximum share, which this side's {@code HELLO} announces. */
    int maxShare() {
        return slots.maximum();
    }

    /** Returns the registered bytes of the shared queue reserved for this connection, and of its rings. */
    long registeredBytes() {
        return slots.registeredBytes() + ringBytes(rings.open()) + ringBytes(rings.closing());
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
        OfferedRing ring = new OfferedRing(rings.nextGeneration(), memory.size(), memory, reader::regionReleased);
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

    /**
     * Gives back the slot of a receive that completed but is not taken: it failed, the connection
     * failed or is closed, or the message in it broke the protocol. The slot goes back to the shared
     * queue, uncredited: the peer's credit for it is gone with its connection.
     */
    void discard(long wrId) {
        slots.discard(SharedReceiveQueue.slotOf(wrId));
    }

    /**
     * Takes the successful receive completion of request {@code wrId}. Whatever happens to it, its
     * slot of the shared queue is accounted for: queued with the message, given back for credit, or,
     * if the message is refused, given back at once, here and nowhere else, so that a peer that breaks
     * the protocol costs the queue nothing.
     *
     * @return what it brought, valid until the next receive
     * @throws IOException if the peer broke the protocol, or reposting failed
     */
    Received onReceive(long wrId, int opcode, int byteLength, int immediate, int flags) throws IOException {
        int slot = slots.take(wrId);
        try {
            return take(slot, opcode, byteLength, immediate, flags);
        } catch (IOException | RuntimeException e) {
            slots.refuseInHand();
            throw e;
        }
    }

    private Received take(int slot, int opcode, int byteLength, int immediate, int flags) throws IOException {
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
        if (!helloReceived) {
            HelloMessage hello = HelloMessage.decode(view, base, byteLength);
            helloReceived = true;
            logger.debug("qp {}: the peer's HELLO arrived", qpNum);
            // Credited again as it was granted: the share's decisions start with the peer's data.
            repost(slot);
            return received.hello(hello);
        }
        MessageHeader header = received.header();
        header.decode(view, base, byteLength);
        if (header.type() == RdmaProtocol.TYPE_CREDIT) {
            repost(slot);
            return received.of(Received.Kind.CREDIT);
        }
        if (isRingMessage(header.type())) {
            if (header.type() == RdmaProtocol.TYPE_RING) {
                received.ringMessage().decodeRing(view, base + HEADER_SIZE);
            } else {
                received.ringGeneration(RingMessage.decodeGeneration(view, base + HEADER_SIZE));
            }
            repost(slot);
            return received.of(Received.Kind.RING_MESSAGE);
        }
        if (header.type() == RdmaProtocol.TYPE_DATA) {
            counters.receivedSend(header.payloadLength());
            // Only valid data makes the share grow, never before the HELLO.
            slots.growIfDue();
        }
        closeArrived |= header.type() == RdmaProtocol.TYPE_CLOSE;
        inbound.addSlot(header.type(), slot, base + HEADER_SIZE, header.payloadLength());
        slots.queued(slot);
        return received.of(Received.Kind.SEND);
    }

    /** Takes an RDMA Write with immediate into the open ring, which consumed a receive but left its slot untouched. */
    private Received takeWrite(int slot, int byteLength, int immediate) throws IOException {
        if (!helloReceived) {
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
        slots.growIfDue();
        if (rings.wrote(byteLength) == RingLifecycle.GROW) {
            // Closed now, a larger one opens when the peer released it; this Write is in it all the same.
            listener.ringGrowthDue();
        }
        counters.receivedWrite(byteLength);
        // The queue holds the region's memory until it was read: the ring may be released meanwhile.
        ring.memory().retainMemory();
        inbound.addRegion(ring, immediate, byteLength, token);
        // Posted again at once, for credit.
        repost(slot);
        return received.of(Received.Kind.WRITE);
    }

    /** Gives back the slot of a message taken at once, and posts it, for credit. */
    private void repost(int slot) throws IOException {
        slots.giveBack(slot);
        slots.post();
    }

    private static boolean isRingMessage(int type) {
        return type == RdmaProtocol.TYPE_RING_REQUEST || type == RdmaProtocol.TYPE_RING
                || type == RdmaProtocol.TYPE_RING_RELEASED;
    }

    /** Returns {@code true} if messages wait to be read. */
    boolean hasInbound() {
        return reader.hasInbound();
    }

    /**
     * Returns {@code true} once the peer's {@code CLOSE} arrived, even while data before it waits for
     * the pipeline: the peer sends nothing more and reads nothing more.
     */
    boolean peerSentClose() {
        return closeArrived;
    }

    /** Returns {@code true} if the next message is the peer's {@code SHUTDOWN_OUTPUT} or {@code CLOSE}. */
    boolean endOfInputIsNext() {
        return reader.endOfInputIsNext();
    }

    /** Takes the peer's {@code SHUTDOWN_OUTPUT} or {@code CLOSE}, which is next ({@link InboundReader#takeEndOfInput}). */
    EndOfInput takeEndOfInput() {
        return reader.takeEndOfInput();
    }

    /** Takes the next piece of received data, which is next ({@link InboundReader#readInbound}). */
    ByteBuf readInbound(RecvByteBufAllocator.Handle handle, ByteBufAllocator alloc) {
        return reader.readInbound(handle, alloc);
    }

    /** Posts the slots given back since the last post, and credits the peer's among them to the peer. */
    void postReceives() throws IOException {
        reader.readComplete();
        slots.post();
    }

    /**
     * Credits no slot any more: the queue pair is going to the error state, where only the receives
     * already posted come back, flushed, for the drain to count.
     */
    void stopPosting() {
        slots.stopCrediting();
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
        reader.close();
        // The queue pair is gone: the rings' registrations go, their memory with the last piece.
        freeIfOpen(rings.open());
        freeIfOpen(rings.closing());
        slots.close();
    }

    private void freeIfOpen(OfferedRing ring) {
        if (ring != null) {
            ring.memory().close();
        }
    }
}
