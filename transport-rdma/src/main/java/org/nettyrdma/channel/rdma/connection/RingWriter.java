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
import java.util.concurrent.TimeUnit;

import org.nettyrdma.channel.rdma.RdmaProtocolException;
import org.nettyrdma.channel.rdma.internal.WorkRequests;
import org.nettyrdma.channel.rdma.memory.RdmaDevice;
import org.nettyrdma.channel.rdma.protocol.RdmaProtocol;
import org.nettyrdma.channel.rdma.protocol.RingMessage;
import org.nettyrdma.channel.rdma.protocol.SendCredits;

/**
 * The writing side of the ring the peer opens to this side (docs/protocol.md): which ring is open,
 * the RDMA Writes with immediate into it, and the {@code RING_REQUEST} and {@code RING_RELEASED}
 * this side owes the peer about it, which go as Sends ({@link MessageSender}). A flushed buffer
 * too large for a Send goes by Write: read where it is if it lies in registered memory
 * ({@code RdmaByteBufAllocator}), copied into a staging block otherwise
 * (docs/decisions.md#send-or-write). The peer opens a ring when asked ({@code RING_REQUEST}), which
 * such a buffer does, and closes it when the Writes stop; until one is open, or while it is full,
 * Sends carry those buffers too.
 *
 * <p>Not thread-safe: used on the channel's event loop only.
 */
final class RingWriter {

    /** How long a peer that declined a ring is not asked again. */
    private static final long REQUEST_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** Where this side's request for a ring stands. */
    private enum Request {
        /** No {@code RING_REQUEST} outstanding. */
        NONE,
        /** A {@code RING_REQUEST} is to be posted. */
        DUE,
        /** A {@code RING_REQUEST} was posted; the peer's next {@code RING} answers it. */
        POSTED
    }

    private final RdmaDevice device;
    private final SendQueue queue;
    private final SendStaging staging;
    private final FlushedBytes flushed;
    private final MessageSender messages;
    private final ConnectionCounters counters;
    /** The credits the peer's {@code HELLO} granted; null before it arrived. */
    private SendCredits credits;
    /** The largest ring the peer offers. */
    private int maxRingSize;
    /** The largest Send payload: a buffer larger than that goes by Write when the ring takes it. */
    private int maxSendPayload;
    /**
     * The smallest Write with immediate: one byte more than a Send into the peer's slot carries. The
     * peer refuses smaller ones (docs/protocol.md), which would cost it a ring region for a few bytes.
     */
    private int minWrite;
    /** The generation of the ring the peer has open to this side; 0 while none is. */
    private int generation;
    private long address;
    private int key;
    /** The newest ring generation the peer named in a {@code RING}. */
    private int newestGeneration;
    private Request request = Request.NONE;
    /** After the peer declined a ring, no request before this {@link System#nanoTime()}. */
    private long requestNotBefore;
    /** The generation of a ring the peer closed whose {@code RING_RELEASED} is still to be posted; 0 for none. */
    private int releaseOwed;

    /**
     * Creates the writer that adds its Writes to {@code queue}, carrying {@code flushed} bytes, and
     * its messages to the peer through {@code messages}.
     */
    RingWriter(RdmaDevice device, SendQueue queue, SendStaging staging, FlushedBytes flushed, MessageSender messages,
               ConnectionCounters counters) {
        this.device = device;
        this.queue = queue;
        this.staging = staging;
        this.flushed = flushed;
        this.messages = messages;
        this.counters = counters;
    }

    /**
     * Takes what the peer's {@code HELLO} allows: {@code credits}, shared with the Sends, rings of up
     * to {@code maxRingSize} bytes, Writes of at least {@code minWrite} bytes, and only of buffers
     * larger than a Send's {@code maxSendPayload}.
     */
    void peerHello(SendCredits credits, int maxRingSize, int maxSendPayload, int minWrite) {
        this.credits = credits;
        // A device without Writes with immediate (iWARP) never asks for the ring a peer offers.
        this.maxRingSize = device.capabilities().hasWriteWithImmediate() ? maxRingSize : 0;
        this.maxSendPayload = maxSendPayload;
        this.minWrite = minWrite;
    }

    /** Returns {@code true} while the peer has a ring open to this side. */
    private boolean isOpen() {
        return credits.ringSize() > 0;
    }

    /** The largest payload of one Write: a quarter of the peer's ring, so returns always unblock it. */
    private int maxWrite() {
        return credits.ringSize() / 4;
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
        int named = ring.generation();
        if (ring.size() == 0) {
            if (named == generation && generation != 0) {
                credits.closeRing();
                counters.peerRingSize = 0;
                generation = 0;
                releaseOwed = named;
                // A request posted before the close is answered by the peer's next ring, if any.
            } else if (named > newestGeneration) {
                throw new RdmaProtocolException("RING closing ring " + named + ", which was never opened (newest: "
                        + newestGeneration + ')');
            } else if (request == Request.POSTED) {
                // Declined: the peer has no room for a ring now; ask again later.
                request = Request.NONE;
                requestNotBefore = System.nanoTime() + REQUEST_RETRY_NANOS;
            }
            return;
        }
        if (ring.size() > maxRingSize || ring.size() < 4 * minWrite) {
            throw new RdmaProtocolException("RING of " + ring.size() + " bytes (expected: " + 4 * minWrite + ".."
                    + maxRingSize + ", as the peer's HELLO and slot size allow)");
        }
        if (generation != 0 || named <= newestGeneration) {
            throw new RdmaProtocolException("RING opening ring " + named + (generation != 0
                    ? " while ring " + generation + " is open" : " after ring " + newestGeneration));
        }
        newestGeneration = named;
        generation = named;
        address = ring.address();
        key = ring.key();
        credits.openRing(ring.size());
        counters.peerRingSize = ring.size();
        if (request == Request.POSTED) {
            request = Request.NONE;
        }
    }

    /**
     * Asks the peer for a ring, or for a larger one than the open ring, unless this side asked
     * already, the peer offers nothing larger, or it declined a moment ago.
     */
    private void want() {
        if (request != Request.NONE || maxRingSize <= credits.ringSize()
                || System.nanoTime() - requestNotBefore < 0) {
            return;
        }
        request = Request.DUE;
    }

    /** Returns {@code true} while a {@code RING_RELEASED} or {@code RING_REQUEST} waits to be posted. */
    boolean messagesOwed() {
        return releaseOwed != 0 || request == Request.DUE;
    }

    /**
     * Adds the {@code RING_RELEASED} and {@code RING_REQUEST} owed to the chain, as far as the peer's
     * slots allow.
     */
    void addOwedMessages() throws IOException {
        if (releaseOwed != 0 && messages.addRingMessage(RdmaProtocol.TYPE_RING_RELEASED, releaseOwed, 0, 0, 0)) {
            releaseOwed = 0;
        }
        if (request == Request.DUE
                && messages.addRingMessage(RdmaProtocol.TYPE_RING_REQUEST, newestGeneration, 0, 0, 0)) {
            request = Request.POSTED;
        }
    }

    /**
     * Adds a Write of the current flushed buffer if it is too large for a Send and the ring takes it,
     * or asks for a ring where none is open or the open one is full.
     *
     * @return {@code false} if Sends are to carry the buffer, or nothing can be staged now
     */
    boolean stageWrite() throws IOException {
        int readable = flushed.currentLength();
        if (readable <= maxSendPayload || readable < minWrite) {
            return false;
        }
        if (!isOpen()) {
            // Sends carry it while the peer opens a ring, if it offers one.
            want();
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
            queue.hold(flushed.retainCurrent());
            flushed.skipCurrent(length);
            addWrite(address, length, (int) lkey, false);
            return true;
        }
        // The largest Write copied: what a staging region takes with room for a header in front, in
        // case a file region copies too few bytes for a Write.
        length = Math.min(length, staging.largestRegion() - HEADER_SIZE);
        if (length < minWrite) {
            return false;
        }
        if (!credits.canReserveRing(length)) {
            // Full: the pipeline holds much of it, or it is too small for the stream. Sends carry this.
            want();
            return false;
        }
        if (!staging.place(HEADER_SIZE + length, 0)) {
            return false;
        }
        // A file region may deliver fewer bytes than its units; the Write carries what was copied,
        // and what is too little for a Write goes as a Send, with its header in the room in front.
        int copied = flushed.copyCurrent(staging.placedMemory(), staging.placedOffset() + HEADER_SIZE, length);
        staging.giveBack(length - copied);
        if (copied < minWrite) {
            messages.addData(copied);
        } else {
            addWrite(staging.placedAddress() + HEADER_SIZE, copied, staging.placedLkey(), true);
        }
        return true;
    }

    /**
     * Adds an RDMA Write with immediate of {@code length} bytes into the peer's ring to the chain:
     * bytes {@code copied} into a staging block, or a registered buffer's, read where they are. The
     * caller made sure the ring has room ({@link SendCredits#canReserveRing}).
     */
    private void addWrite(long localAddress, int length, int lkey, boolean copied) {
        counters.wrote(length, copied);
        long ringOffset = credits.reserveRing(length);
        flushed.posted();
        credits.consumeSlot();
        queue.add(WorkRequests.OPCODE_RDMA_WRITE_WITH_IMM, 0, localAddress, length, lkey,
                address + ringOffset, key, (int) ringOffset);
        queue.signalIfDue(length);
    }

    /**
     * Probes the peer: an RDMA Write of no bytes into the open ring, which the peer's device
     * acknowledges without a completion or a receive there. A peer that is gone never acknowledges
     * it, and the queue pair's retries end in a failed completion. A peer without a ring open to this
     * side gets a {@code CREDIT} message instead. The Write is posted inline: with no bytes to read,
     * it needs no staging and no key.
     *
     * @return {@code true} if a probe was posted
     */
    boolean probe() throws IOException {
        if (!isOpen()) {
            return messages.sendControl(RdmaProtocol.TYPE_CREDIT);
        }
        queue.add(WorkRequests.OPCODE_RDMA_WRITE, WorkRequests.FLAG_INLINE, staging.emptyInlineAddress(), 0, 0,
                address, key, 0);
        queue.post();
        return true;
    }
}
