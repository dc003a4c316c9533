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
package org.nettyrdma.channel.rdma.loop;

import java.io.IOException;
import java.util.Arrays;
import java.util.BitSet;

/**
 * The book of a shared receive queue's slots: each is posted (a receive the device may fill), held
 * (a completion took it, a connection has not given it back yet) or parked (registered, not posted),
 * and the slots come in chunks that are registered and deregistered whole
 * (docs/decisions.md#shared-receive-queue).
 *
 * <p>The queue keeps posted and held together at its target, the slots the connections reserved and
 * a sixteenth more, and no lower: every credit stands for a posted receive. A slot given back while
 * the queue holds more than its target is parked instead of posted, so a queue that a burst grew
 * shrinks as traffic cycles its receives: a receive once posted cannot be taken back, only consumed.
 * A chunk whose slots are all parked is deregistered, while another chunk's worth stays parked for
 * the next reservation. Posting prefers the lowest parked slot, so that the chunks at the top drain
 * and go.
 *
 * <p>Not thread-safe: used on the queue's event loop only.
 */
final class SharedSlots {

    /** What the book asks of its queue's memory and receives. */
    interface Chunks {
        /** Registers the memory of chunk {@code chunk}, whose slots are parked until posted. */
        void register(int chunk) throws IOException;

        /** Deregisters chunk {@code chunk}: none of its slots is posted or held. */
        void deregister(int chunk);

        /** Posts a receive into {@code slot} (with the next batch). */
        void post(int slot);
    }

    private final Chunks chunks;
    private final int chunkSlots;
    private final int capacity;
    /** Whether the queue keeps a sixteenth more than reserved; not for a queue with one connection. */
    private final boolean margin;
    private final BitSet parked = new BitSet();
    private final BitSet registered = new BitSet();
    private int[] parkedInChunk = new int[4];
    private int registeredSlots;
    private int parkedSlots;
    private int postedSlots;
    private int reserved;

    /**
     * Creates the book of a queue of at most {@code capacity} receives, in chunks of {@code chunkSlots},
     * shared by connections: it keeps a sixteenth more than reserved.
     */
    SharedSlots(Chunks chunks, int chunkSlots, int capacity) {
        this(chunks, chunkSlots, capacity, true);
    }

    /**
     * Creates the book of a queue as above; with {@code margin} false it keeps exactly the slots
     * reserved, for a queue that one connection has to itself: the margin shields the others'
     * credits from a peer that sends beyond its own, and there are no others.
     */
    SharedSlots(Chunks chunks, int chunkSlots, int capacity, boolean margin) {
        if (chunkSlots < 1 || capacity < chunkSlots) {
            throw new IllegalArgumentException("chunks of " + chunkSlots + " slots, capacity " + capacity);
        }
        this.chunks = chunks;
        this.chunkSlots = chunkSlots;
        this.capacity = capacity;
        this.margin = margin;
    }

    /** Returns the slots the connections reserved. */
    int reserved() {
        return reserved;
    }

    /** Returns the slots registered: posted, held and parked. */
    int registered() {
        return registeredSlots;
    }

    /** Returns the slots posted. */
    int posted() {
        return postedSlots;
    }

    /** Returns the slots parked: registered, not posted, not held. */
    int parked() {
        return parkedSlots;
    }

    /** Returns the slots completions took that no connection gave back yet. */
    int held() {
        return registeredSlots - postedSlots - parkedSlots;
    }

    /** Returns the slots the queue keeps posted or held now: what is reserved, and its margin if it has one. */
    int target() {
        return target(reserved);
    }

    /** Returns the slots the queue keeps posted or held for {@code reserved} reserved: a sixteenth more, with a margin. */
    private int target(int reserved) {
        return Math.min(capacity, margin ? reserved + reserved / 16 : reserved);
    }

    /** Returns {@code true} if {@code slots} more can be reserved within the capacity. */
    boolean hasRoom(int slots) {
        return reserved + slots <= capacity;
    }

    /** Returns the slots of the chunks {@link #reserve} of {@code slots} would register now. */
    int slotsToRegister(int slots) {
        int missing = target(reserved + slots) - registeredSlots;
        return missing <= 0 ? 0 : (missing + chunkSlots - 1) / chunkSlots * chunkSlots;
    }

    /**
     * Reserves {@code slots}, posting parked slots and then registering chunks until posted and held
     * reach the target; nothing is reserved if a registration fails.
     */
    void reserve(int slots) throws IOException {
        if (!hasRoom(slots)) {
            throw new IllegalStateException(slots + " more reserved, " + reserved + " of " + capacity);
        }
        int target = target(reserved + slots);
        while (registeredSlots - parkedSlots < target) {
            if (parkedSlots == 0) {
                addChunk();
            }
            int slot = parked.nextSetBit(0);
            unpark(slot);
            post(slot);
        }
        reserved += slots;
    }

    /** Gives back {@code slots} reserved; the slots beyond the target go as traffic gives them back. */
    void unreserve(int slots) {
        reserved -= slots;
    }

    /** A completion took a posted slot. */
    void taken() {
        postedSlots--;
    }

    /**
     * Gives back a held slot: parked if the queue holds more than its target, else posted again, or
     * a lower parked slot posted in its place, so that the slots in use gather in the lowest chunks
     * and the others empty.
     */
    void release(int slot) {
        if (registeredSlots - parkedSlots - 1 >= target(reserved)) {
            park(slot);
            return;
        }
        int lower = parked.nextSetBit(0);
        if (lower >= 0 && lower < slot) {
            unpark(lower);
            post(lower);
            park(slot);
        } else {
            post(slot);
        }
    }

    /**
     * Returns the low-water mark of the receives left in the device's queue: the sixteenth kept
     * beyond the reservations, at least one. While every peer keeps to its credits, completions
     * not yet polled and slots held take at most the reserved slots, so at least this many stay
     * posted in the queue; fewer means a peer sends beyond its credit.
     */
    int lowWaterMark() {
        return Math.max(1, reserved / 16);
    }

    /**
     * Posts every parked slot, beyond the target if need be but never beyond the capacity: a peer
     * took receives that others' credits stand for, and what is registered refills the queue until
     * its connection is closed. What goes beyond the target is parked again as traffic gives it back.
     *
     * @return the slots posted
     */
    int postParked() {
        int posted = 0;
        for (int slot = parked.nextSetBit(0); slot >= 0 && postedSlots < capacity; slot = parked.nextSetBit(slot + 1)) {
            unpark(slot);
            post(slot);
            posted++;
        }
        return posted;
    }

    /** Parks a held slot whatever the target: its receive completed in error and is not posted again. */
    void setAside(int slot) {
        park(slot);
    }

    private void post(int slot) {
        // The completion queue the receives complete into has an entry for each of capacity: one
        // more posted could overrun it (docs/decisions.md#completion-queue-bound).
        if (postedSlots == capacity) {
            throw new IllegalStateException("a receive posted beyond the capacity of " + capacity);
        }
        postedSlots++;
        chunks.post(slot);
    }

    private void addChunk() throws IOException {
        int chunk = registered.nextClearBit(0);
        chunks.register(chunk);
        registered.set(chunk);
        if (chunk >= parkedInChunk.length) {
            parkedInChunk = Arrays.copyOf(parkedInChunk, Math.max(chunk + 1, parkedInChunk.length * 2));
        }
        int first = chunk * chunkSlots;
        parked.set(first, first + chunkSlots);
        parkedInChunk[chunk] = chunkSlots;
        parkedSlots += chunkSlots;
        registeredSlots += chunkSlots;
    }

    private void unpark(int slot) {
        parked.clear(slot);
        parkedInChunk[slot / chunkSlots]--;
        parkedSlots--;
    }

    private void park(int slot) {
        parked.set(slot);
        int chunk = slot / chunkSlots;
        parkedSlots++;
        // Keeps a chunk's worth parked beside it, so that reservations coming and going do not
        // register and deregister a chunk each time.
        if (++parkedInChunk[chunk] == chunkSlots && parkedSlots - chunkSlots >= chunkSlots) {
            removeChunk(chunk);
        }
    }

    private void removeChunk(int chunk) {
        int first = chunk * chunkSlots;
        parked.clear(first, first + chunkSlots);
        registered.clear(chunk);
        parkedInChunk[chunk] = 0;
        parkedSlots -= chunkSlots;
        registeredSlots -= chunkSlots;
        chunks.deregister(chunk);
    }
}
