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
import java.util.concurrent.RejectedExecutionException;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.EventLoop;
import io.netty.channel.RecvByteBufAllocator;
import org.nettyrdma.channel.rdma.loop.SharedReceiveQueue;
import org.nettyrdma.channel.rdma.memory.RegionByteBuf;
import org.nettyrdma.channel.rdma.protocol.CreditReturn;
import org.nettyrdma.channel.rdma.protocol.RdmaProtocol;

/**
 * Hands the messages a connection received ({@link InboundQueue}, filled by {@link RdmaReceiver}) to
 * the read loop: data a piece at a time, as a stream transport reads, then the peer's end of input.
 * A Send's slot goes back to the share once all of its payload was read, or, lent to the pipeline,
 * once the buffer over it was released; a ring region's space goes back to the peer once all of it
 * was read and every piece handed up over it was released.
 *
 * <p>Used on the channel's event loop only, except the release of what was handed up in place, which
 * the pipeline may do on any thread and which comes back to the loop.
 */
final class InboundReader {

    private final InboundQueue inbound;
    private final ReceiveShare slots;
    private final SharedReceiveQueue srq;
    private final RingLifecycle rings;
    private final CreditReturn owed;
    private final EventLoop eventLoop;
    private final RdmaReceiver.Listener listener;
    /** Ring data goes up where it landed, still writable by the peer (RdmaChannelOption.RECEIVE_IN_PLACE). */
    private final boolean inPlace;
    private final PooledMemory pooled;
    private final ConnectionCounters counters;
    private final SlotLoans loans;
    /** Between the first piece taken and {@link #readComplete()}: slots given back are posted then. */
    private boolean reading;
    private boolean closed;

    /**
     * Creates the reader of {@code inbound}, whose slots are of {@code srq} and go back to
     * {@code slots}, and whose regions are in {@code rings}, their freed space owed to the peer in
     * {@code owed}.
     */
    InboundReader(InboundQueue inbound, ReceiveShare slots, SharedReceiveQueue srq, RingLifecycle rings,
                  CreditReturn owed, EventLoop eventLoop, RdmaReceiver.Listener listener, boolean inPlace,
                  PooledMemory pooled, ConnectionCounters counters) {
        this.inbound = inbound;
        this.slots = slots;
        this.srq = srq;
        this.rings = rings;
        this.owed = owed;
        this.eventLoop = eventLoop;
        this.listener = listener;
        this.inPlace = inPlace;
        this.pooled = pooled;
        this.counters = counters;
        this.loans = new SlotLoans(eventLoop, this::slotReturned);
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
     * Takes the peer's {@code SHUTDOWN_OUTPUT} or {@code CLOSE}, which is next
     * ({@link #endOfInputIsNext()}); its slot is posted again with the next {@link ReceiveShare#post()}.
     */
    EndOfInput takeEndOfInput() {
        InboundQueue.Message message = inbound.peek();
        if (message == null || message.type() == RdmaProtocol.TYPE_DATA) {
            throw new IllegalStateException("the end of input is not next");
        }
        EndOfInput end = EndOfInput.of(message.type());
        slots.giveBack(message.slot());
        inbound.recycle();
        return end;
    }

    /**
     * Takes the next piece of received data, which is next ({@link #hasInbound()} and not
     * {@link #endOfInputIsNext()}), at most {@code handle.guess()} bytes as a stream transport reads.
     * A Send's payload goes up in its slot while the loans allow ({@link SlotLoans}), a guess at a
     * time, the payloads of consecutive slots as one composite buffer; a ring region in place if the
     * channel asked for it, in a recycled buffer that holds the region until released. Anything else is copied into a
     * buffer from {@code handle}, and its slot posted again or its ring space returned once all of it
     * was read.
     */
    ByteBuf readInbound(RecvByteBufAllocator.Handle handle, ByteBufAllocator alloc) {
        InboundQueue.Message message = inbound.peek();
        if (message == null || message.type() != RdmaProtocol.TYPE_DATA) {
            throw new IllegalStateException("no data is next");
        }
        reading = true;
        OfferedRing ring = message.ring();
        if (ring != null && inPlace) {
            return readRegionInPlace(message, ring, handle, alloc);
        }
        // A slot partly handed up goes on in place; a new one while the loans allow.
        if (ring == null && (message.loan() != null || loans.mayLend(slots.share()))) {
            return lendSlots(message, handle, alloc);
        }
        return copyOut(message, ring, handle, alloc);
    }

    /** Hands up a piece of a ring region where it landed, still writable by the peer. */
    private ByteBuf readRegionInPlace(InboundQueue.Message message, OfferedRing ring,
                                      RecvByteBufAllocator.Handle handle, ByteBufAllocator alloc) {
        int length = Math.min(message.remaining(), Math.max(1, handle.guess()));
        ring.book().retain(message.token());
        ring.memory().retainMemory();
        ByteBuf piece = pooled.trackLeaks(RegionByteBuf.ofRegion(alloc, ring.memory().buffer(), message.readOffset(),
                length, ring, message.token()));
        handle.attemptedBytesRead(length);
        consumed(message, ring, length);
        return piece;
    }

    /**
     * Hands up, in their slots, at most {@code handle.guess()} bytes of {@code message} and, whole, of
     * the Sends after it while they fit the guess and the loans allow: one buffer, or a composite.
     */
    private ByteBuf lendSlots(InboundQueue.Message message, RecvByteBufAllocator.Handle handle,
                              ByteBufAllocator alloc) {
        int wanted = Math.max(1, handle.guess());
        ByteBuf first = lendPiece(message, Math.min(message.remaining(), wanted), alloc);
        int total = first.readableBytes();
        CompositeByteBuf pieces = null;
        for (InboundQueue.Message next = inbound.peek(); next != null && isSlotData(next) && next.loan() == null
                && total + next.remaining() <= wanted && loans.mayLend(slots.share()); next = inbound.peek()) {
            if (pieces == null) {
                pieces = alloc.compositeDirectBuffer(Integer.MAX_VALUE).addComponent(true, first);
            }
            total += next.remaining();
            pieces.addComponent(true, lendPiece(next, next.remaining(), alloc));
        }
        handle.attemptedBytesRead(total);
        return pieces != null ? pieces : first;
    }

    private static boolean isSlotData(InboundQueue.Message message) {
        return message.type() == RdmaProtocol.TYPE_DATA && message.ring() == null;
    }

    /**
     * Hands up the next {@code length} unread bytes of {@code message}, at the head of the queue, in its
     * slot: the slot is lent on its first piece, and comes back once all of it was read and every
     * piece released.
     */
    private ByteBuf lendPiece(InboundQueue.Message message, int length, ByteBufAllocator alloc) {
        SlotLoans.Loan loan = message.loan();
        if (loan == null) {
            int slot = message.slot();
            loan = loans.open(srq.regionOf(slot), slot);
            message.lent(loan);
        }
        ByteBuf piece = pooled.trackLeaks(loans.piece(loan, alloc, message.readOffset(), length));
        if (inbound.consume(message, length)) {
            loans.allRead(loan);
            inbound.recycle();
        }
        return piece;
    }

    /**
     * Copies the next piece into a buffer from {@code handle}, out of the slot or the ring, which the
     * peer may write again once the slot is posted or the space returned: the pipeline holds bytes
     * that never change.
     */
    private ByteBuf copyOut(InboundQueue.Message message, OfferedRing ring, RecvByteBufAllocator.Handle handle,
                            ByteBufAllocator alloc) {
        ByteBuf piece = handle.allocate(alloc);
        int length = Math.min(message.remaining(), piece.writableBytes());
        handle.attemptedBytesRead(piece.writableBytes());
        // With memory addresses on both sides that is one memory copy and no garbage, where
        // piece.writeBytes(view, ...) may make ByteBuffer views.
        ByteBuf source = ring != null ? ring.view() : srq.viewOf(message.slot());
        source.getBytes(message.readOffset(), piece, piece.writerIndex(), length);
        piece.writerIndex(piece.writerIndex() + length);
        counters.receiveCopiedBytes += length;
        consumed(message, ring, length);
        return piece;
    }

    /** Accounts for {@code length} bytes of {@code message} read, and gives its slot or region back if that was all. */
    private void consumed(InboundQueue.Message message, OfferedRing ring, int length) {
        if (inbound.consume(message, length)) {
            if (ring != null) {
                // The queue's own hold: the region returns once the pieces handed up are released too.
                // Credits go out in readComplete, after this read.
                regionRead(ring, message.token());
                ring.memory().releaseMemory();
            } else {
                slots.giveBack(message.slot());
            }
            inbound.recycle();
        }
    }

    /**
     * Takes back a slot the pipeline released. During a read it is posted with the others in
     * {@link #readComplete()}; after one, at once, and a {@code CREDIT} may be due. A slot released
     * after the connection closed goes back to its queue, uncredited.
     */
    private void slotReturned(int slot) {
        if (closed) {
            slots.discard(slot);
            return;
        }
        slots.giveBack(slot);
        if (!reading) {
            try {
                slots.post();
            } catch (IOException e) {
                listener.receiveFailed(e);
                return;
            }
            listener.creditsFreed();
        }
    }

    /** The read loop is done: the slots given back during it are posted by the caller. */
    void readComplete() {
        reading = false;
    }

    /**
     * Gives a ring region back, from any thread (the pipeline may release on another one): its memory
     * at once, its space to the peer on the loop.
     */
    void regionReleased(OfferedRing ring, long token) {
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
        listener.creditsFreed();
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
     * Hands up nothing more: the slots the queued messages are in go back to the shared queue, not
     * posted yet, and the regions let go of their rings' memory, which pieces handed up still hold.
     */
    void close() {
        closed = true;
        inbound.clear(slots::release, loans::allRead);
    }
}
