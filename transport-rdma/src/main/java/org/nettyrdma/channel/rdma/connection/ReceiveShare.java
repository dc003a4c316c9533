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

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.loop.SharedReceiveQueue;
import org.nettyrdma.channel.rdma.memory.RegisteredMemoryBudget;
import org.nettyrdma.channel.rdma.memory.SendBlocks;
import org.nettyrdma.channel.rdma.protocol.CreditReturn;
import org.nettyrdma.channel.rdma.protocol.SlotShare;

/**
 * One connection's share of its shared receive queue: the slots reserved for the peer, the slot a
 * receive is taking, and the slots the peer used, given back to the queue and credited to the peer
 * only once they are posted again (docs/decisions.md#credit-posted-receives-only). The share grows
 * with the peer's data as {@link SlotShare} decides, and goes back to the queue when the connection
 * closes.
 *
 * <p>A slot a receive took is in hand until its message is queued or the slot is given back; if the
 * message is refused meanwhile, {@link #refuseInHand()} gives it back, uncredited, so that a peer
 * that breaks the protocol costs the queue nothing.
 *
 * <p>Used on the channel's event loop only.
 */
final class ReceiveShare {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(ReceiveShare.class);

    /** No slot is in hand ({@link #slotInHand}). */
    private static final int NO_SLOT = -1;

    private final RdmaReceiver.Listener listener;
    private final MemoryAdmission memory;
    private final ConnectionCounters counters;
    private final SharedReceiveQueue srq;
    private final int qpNum;
    private final int slotSize;
    private final SlotShare share;
    private final CreditReturn owed;
    /** Slots of the shared queue reserved for this connection's peer. */
    private int reserved;
    /** Slots of the peer's released to the shared queue, not posted yet, so not credited yet. */
    private int unpostedReturns;
    /** The slot of the receive being taken, until its message is queued or the slot given back. */
    private int slotInHand = NO_SLOT;
    /** The queue pair is in the error state or closed: no slot is credited any more. */
    private boolean flushing;

    /**
     * Creates the share of a connection whose peer starts with {@code initial} slots of
     * {@code resources}' shared queue and may hold up to {@code maximum}; the slots it is credited
     * go to {@code owed}.
     */
    ReceiveShare(QueuePairResources resources, int initial, int maximum, CreditReturn owed,
                 RdmaReceiver.Listener listener, MemoryAdmission memory, ConnectionCounters counters) {
        this.listener = listener;
        this.memory = memory;
        this.counters = counters;
        this.srq = resources.sharedReceiveQueue();
        this.qpNum = resources.qpNum();
        this.slotSize = srq.slotSize();
        this.share = new SlotShare(initial, maximum);
        this.owed = owed;
    }

    /** Returns the slots of the share now. */
    int share() {
        return share.share();
    }

    /** Returns the most slots the share may grow to. */
    int maximum() {
        return share.maximum();
    }

    /**
     * Returns the registered bytes of the receive slots held for the peer: those reserved in a shared
     * queue, or all a queue of its own registered, whole regions, more than the share before the HELLO.
     */
    long registeredBytes() {
        return srq.isOwn() ? srq.registeredBytes() : (long) reserved * slotSize;
    }

    /** Reserves slots of the shared queue for the peer until {@code slots} are reserved in all. */
    void reserveUpTo(int slots) throws IOException {
        int more = slots - reserved;
        if (more <= 0) {
            return;
        }
        srq.reserve(more);
        reserved += more;
    }

    /** Takes the slot of receive request {@code wrId} in hand, and returns it. */
    int take(long wrId) {
        slotInHand = SharedReceiveQueue.slotOf(wrId);
        return slotInHand;
    }

    /** The message in {@code slot} is queued: it is given back once read ({@link #giveBack}). */
    void queued(int slot) {
        if (slot == slotInHand) {
            slotInHand = NO_SLOT;
        }
    }

    /**
     * Gives a slot the peer used back to the shared queue, to be credited to the peer again once it
     * is posted ({@link #post()}).
     */
    void giveBack(int slot) {
        queued(slot);
        srq.release(slot);
        if (!flushing) {
            unpostedReturns++;
        }
    }

    /** The message of the slot in hand, if any still is, was refused: the slot goes back uncredited. */
    void refuseInHand() {
        if (slotInHand != NO_SLOT) {
            int slot = slotInHand;
            slotInHand = NO_SLOT;
            discard(slot);
        }
    }

    /**
     * Gives back the slot of a receive that completed but is not taken: it failed, the connection
     * failed or is closed, or the message in it broke the protocol. The slot goes back to the shared
     * queue, uncredited: the peer's credit for it is gone with its connection.
     */
    void discard(int slot) {
        srq.release(slot);
        try {
            srq.post();
        } catch (IOException e) {
            listener.receiveFailed(e);
        }
    }

    /** Gives back a slot whose message was never read, uncredited and not posted yet: the connection closes. */
    void release(int slot) {
        srq.release(slot);
    }

    /**
     * Grows the peer's share if its data (a {@code DATA} Send or a Write) left it half its credits or
     * less, and the queue and the connection's limits allow: the new slots are posted at once, and owed
     * to the peer ({@link CreditReturn#creditMessageDue()}). Only data counts: control messages never
     * need more than the slots they were granted, and a {@code CLOSE} would grow the share of every
     * idle connection that closes, registering receive memory just before the share goes back.
     */
    void growIfDue() {
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
                || !memory.mayHoldMore(bytes)) {
            return;
        }
        try {
            srq.reserve(slots);
        } catch (IOException e) {
            // The registered memory limit: the peer goes on with the share it has.
            memory.heldLess(bytes);
            logger.debug("qp {}: the peer's share stays at {} slots: {}", qpNum, share.share(), e.getMessage());
            return;
        }
        reserved += slots;
        share.grew(slots);
        owed.grow(slots);
        counters.shareGrowths++;
    }

    /** Posts the slots given back since the last post, and credits the peer's among them to the peer. */
    void post() throws IOException {
        if (flushing) {
            return;
        }
        srq.post();
        owed.slotsReposted(unpostedReturns);
        unpostedReturns = 0;
    }

    /**
     * Credits no slot any more: the queue pair is going to the error state, where only the receives
     * already posted come back, flushed, for the drain to count. The slots given back are posted for
     * the other connections of the queue.
     */
    void stopCrediting() {
        flushing = true;
        try {
            srq.post();
        } catch (IOException e) {
            logger.debug("qp {}: posting to the shared receive queue failed", qpNum, e);
        }
    }

    /** Gives the share back to the shared queue, for the other connections: the connection closed. */
    void close() {
        stopCrediting();
        srq.unreserve(reserved);
        reserved = 0;
    }
}
