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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.BitSet;
import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * The book of a shared receive queue's slots, against a queue that consumes its receives in the order
 * they were posted, as a device does: what is posted, parked and registered as connections reserve,
 * traffic flows and a burst ends.
 */
class SharedSlotsTest {

    private static final int CHUNK = 32;

    /** The queue's side: chunks registered, receives posted in order, consumed from the head. */
    private static final class FifoQueue implements SharedSlots.Chunks {
        final BitSet chunks = new BitSet();
        final ArrayDeque<Integer> receives = new ArrayDeque<>();
        int registrations;
        int deregistrations;
        boolean refuse;

        @Override
        public void register(int chunk) throws IOException {
            if (refuse) {
                throw new IOException("refused");
            }
            assertTrue(!chunks.get(chunk), "chunk " + chunk + " registered twice");
            chunks.set(chunk);
            registrations++;
        }

        @Override
        public void deregister(int chunk) {
            assertTrue(chunks.get(chunk));
            receives.forEach(slot -> assertTrue(slot / CHUNK != chunk, "slot " + slot + " posted in a chunk going"));
            chunks.clear(chunk);
            deregistrations++;
        }

        @Override
        public void post(int slot) {
            assertTrue(chunks.get(slot / CHUNK), "slot " + slot + " posted outside the registered chunks");
            assertTrue(!receives.contains(slot), "slot " + slot + " posted twice");
            receives.add(slot);
        }

        /** A Send lands in the oldest receive. */
        int consume(SharedSlots book) {
            int slot = receives.remove();
            book.taken();
            return slot;
        }
    }

    private final FifoQueue queue = new FifoQueue();
    private final SharedSlots book = new SharedSlots(queue, CHUNK, 1 << 16);

    @Test
    void aReservationPostsItsTargetAndParksTheRestOfTheChunk() throws IOException {
        book.reserve(4);
        assertEquals(4, book.posted());
        assertEquals(CHUNK - 4, book.parked());
        assertEquals(CHUNK, book.registered());
        book.reserve(64);
        assertEquals(68 + 68 / 16, book.posted(), "a sixteenth more than reserved");
        assertEquals(3 * CHUNK, book.registered());
        assertEquals(queue.receives.size(), book.posted());
    }

    @Test
    void whatAReservationWouldRegisterIsWhatItRegisters() throws IOException {
        book.reserve(10);
        assertEquals(0, book.slotsToRegister(10), "20 reserved, 21 kept: one chunk holds them");
        assertEquals(CHUNK, book.slotsToRegister(30));
        book.reserve(30);
        assertEquals(2 * CHUNK, book.registered());
    }

    /**
     * A connection's own queue, in chunks of one slot and with no margin: what it registers is what
     * its peer's share reserves, 1 slot before the {@code HELLO}, 4 after, and up to 64 as it grows,
     * which is what admission counts.
     */
    @Test
    void aQueueOfOneConnectionRegistersExactlyWhatItReserves() throws IOException {
        int[] regions = new int[1];
        SharedSlots own = new SharedSlots(new SharedSlots.Chunks() {
            @Override
            public void register(int chunk) {
                regions[0]++;
            }

            @Override
            public void deregister(int chunk) {
                regions[0]--;
            }

            @Override
            public void post(int slot) {
            }
        }, 1, 64 + 64 / 16 + 1, false);
        int reserved = 0;
        for (int share : new int[] {1, 4, 16, 64}) {
            assertEquals(share - reserved, own.slotsToRegister(share - reserved), "before a share of " + share);
            own.reserve(share - reserved);
            reserved = share;
            assertEquals(share, own.registered(), "registered for a share of " + share);
            assertEquals(share, own.posted(), "posted for a share of " + share);
            assertEquals(share, regions[0], "one region a slot");
        }
    }

    @Test
    void aSlotGivenBackWithinTheTargetIsPostedAgain() throws IOException {
        book.reserve(4);
        int slot = queue.consume(book);
        assertEquals(1, book.held());
        book.release(slot);
        assertEquals(4, book.posted());
        assertEquals(0, book.held());
    }

    @Test
    void theSlotsABurstGrewGoAsTrafficCyclesThemAndTheQueueShrinksToItsTarget() throws IOException {
        // A connection that stays, and eight that stream and close.
        book.reserve(4);
        for (int i = 0; i < 8; i++) {
            book.reserve(64);
        }
        assertEquals(548 / CHUNK + 1, book.registered() / CHUNK);
        book.unreserve(8 * 64);
        assertEquals(book.registered() - book.parked(), book.posted(), "nothing held");
        // The connection that stays ping-pongs: each Send takes the oldest receive, its slot comes back.
        for (int i = 0; i < 2 * 548; i++) {
            book.release(queue.consume(book));
            assertTrue(book.posted() + book.held() >= 4, "every credit stands for a posted receive");
        }
        assertEquals(4, book.posted(), "posted: the target again");
        assertTrue(book.registered() <= 2 * CHUNK, "registered " + book.registered() + ": the chunk in use and at"
                + " most one parked beside it");
        queue.receives.forEach(slot -> assertTrue(slot < CHUNK, "the slots in use gathered in the lowest chunk"));
        assertEquals(queue.registrations - queue.deregistrations, book.registered() / CHUNK);
    }

    @Test
    void parkedSlotsArePostedBeforeAChunkIsRegistered() throws IOException {
        book.reserve(200);
        book.unreserve(200);
        for (int i = 0; i < 212; i++) {
            book.release(queue.consume(book));
        }
        int registrations = queue.registrations;
        int registered = book.registered();
        book.reserve(4);
        assertEquals(registrations, queue.registrations, "the parked slots serve the reservation");
        assertEquals(registered, book.registered());
        assertEquals(4, book.posted());
    }

    @Test
    void aChunkDeregisteredIsTheFirstRegisteredAgain() throws IOException {
        book.reserve(4);
        book.reserve(100);
        book.unreserve(100);
        for (int i = 0; i < 2 * 110; i++) {
            book.release(queue.consume(book));
        }
        assertTrue(queue.deregistrations > 0);
        int lowestHole = queue.chunks.nextClearBit(0);
        book.reserve(200);
        assertTrue(queue.chunks.get(lowestHole), "the lowest index free is taken again");
        assertEquals(queue.chunks.cardinality() * CHUNK, book.registered());
    }

    @Test
    void underRandomTrafficEveryReservedSlotStaysPostedOrHeld() throws IOException {
        Random random = new Random(42);
        ArrayDeque<Integer> held = new ArrayDeque<>();
        int reserved = 0;
        for (int step = 0; step < 50_000; step++) {
            int action = random.nextInt(10);
            if (action < 4 && !queue.receives.isEmpty() && held.size() < book.reserved()) {
                held.add(queue.consume(book));
            } else if (action < 8 && !held.isEmpty()) {
                book.release(held.remove());
            } else if (action == 8 && reserved < 4000) {
                int slots = 1 + random.nextInt(64);
                book.reserve(slots);
                reserved += slots;
            } else if (action == 9 && reserved > 0) {
                int slots = 1 + random.nextInt(Math.min(64, reserved));
                book.unreserve(slots);
                reserved -= slots;
            }
            assertTrue(book.posted() + book.held() >= book.reserved(), "step " + step);
            assertEquals(queue.receives.size(), book.posted(), "step " + step);
            assertEquals(held.size(), book.held(), "step " + step);
            assertEquals(queue.chunks.cardinality() * CHUNK, book.registered(), "step " + step);
        }
    }

    @Test
    void aRefusedRegistrationReservesNothing() {
        queue.refuse = true;
        assertThrows(IOException.class, () -> book.reserve(4));
        assertEquals(0, book.reserved());
        assertEquals(0, book.registered());
    }

    @Test
    void aFlushedSlotIsSetAsideWhateverTheTarget() throws IOException {
        book.reserve(4);
        int slot = queue.consume(book);
        book.setAside(slot);
        assertEquals(3, book.posted());
        assertEquals(CHUNK - 3, book.parked());
    }

    /**
     * The bound a shared queue's completion queue is sized by (docs/decisions.md#completion-queue-bound):
     * whatever the peers send, reservations, limit events and flushes included, no more receives are
     * posted (in the queue, or completed and not yet polled) than the capacity.
     */
    @Test
    void underHostileTrafficNoMoreArePostedThanTheCapacity() throws IOException {
        int capacity = 4 * CHUNK;
        SharedSlots small = new SharedSlots(queue, CHUNK, capacity);
        Random random = new Random(35);
        ArrayDeque<Integer> held = new ArrayDeque<>();
        int maxPosted = 0;
        for (int step = 0; step < 50_000; step++) {
            int action = random.nextInt(12);
            if (action < 5 && !queue.receives.isEmpty()) {
                // Peers beyond their credits: a receive is consumed whenever one is posted.
                held.add(queue.consume(small));
            } else if (action < 8 && !held.isEmpty()) {
                small.release(held.remove());
            } else if (action == 8) {
                int slots = 1 + random.nextInt(16);
                if (small.hasRoom(slots)) {
                    small.reserve(slots);
                }
            } else if (action == 9 && small.reserved() > 0) {
                small.unreserve(1 + random.nextInt(Math.min(16, small.reserved())));
            } else if (action == 10) {
                small.postParked();
            } else if (action == 11 && !queue.receives.isEmpty()) {
                small.taken();
                small.setAside(queue.receives.remove());
            }
            assertTrue(small.posted() <= capacity, "step " + step + ": " + small.posted() + " posted");
            assertTrue(small.registered() <= capacity, "step " + step + ": " + small.registered() + " registered");
            assertEquals(queue.receives.size(), small.posted(), "step " + step);
            maxPosted = Math.max(maxPosted, small.posted());
        }
        assertTrue(maxPosted > capacity / 2, "the traffic pressed the bound: at most " + maxPosted + " posted");
    }

    @Test
    void aLimitEventPostsTheParkedSlotsAndNoMore() throws IOException {
        SharedSlots small = new SharedSlots(queue, CHUNK, 2 * CHUNK);
        small.reserve(4);
        assertEquals(CHUNK - 4, small.parked());
        assertEquals(CHUNK - 4, small.postParked());
        assertEquals(CHUNK, small.posted());
        assertEquals(0, small.parked());
        assertEquals(0, small.postParked(), "nothing is registered for a limit event");
        // Given back beyond the target, they are parked again.
        for (int i = 0; i < CHUNK; i++) {
            small.release(queue.consume(small));
        }
        assertEquals(4, small.posted());
    }

    @Test
    void theLowWaterMarkIsTheSixteenthKeptBeyondTheReservations() throws IOException {
        assertEquals(1, book.lowWaterMark(), "at least one");
        book.reserve(15);
        assertEquals(1, book.lowWaterMark());
        book.reserve(145);
        assertEquals(10, book.lowWaterMark());
    }

    @Test
    void aConnectionsOwnQueueHoldsItsLargestShareAndNoMore() throws Exception {
        // All of its receives complete into its connection's completion queue, which reserves this many.
        assertEquals(64, SharedReceiveQueue.ownCapacity(64));
        for (int slots : new int[] {1, 3, 4, 6, 16, 64, 4096}) {
            int capacity = SharedReceiveQueue.ownCapacity(slots);
            SharedSlots own = new SharedSlots(new FifoQueue(), SharedReceiveQueue.ownRegionSlots(capacity), capacity,
                    false);
            own.reserve(slots);
            assertEquals(slots, own.posted(), "slots " + slots);
            assertFalse(own.hasRoom(1), "slots " + slots);
        }
    }

    @Test
    void aConnectionsOwnQueuePostsOnlyWhatItsPeerIsCreditedFromItsFirstRegion() throws Exception {
        int capacity = SharedReceiveQueue.ownCapacity(64);
        SharedSlots own = new SharedSlots(new FifoQueue(), SharedReceiveQueue.ownRegionSlots(capacity), capacity, false);
        own.reserve(1); // before the HELLO: the one slot for the peer's HELLO
        assertEquals(4, own.registered(), "one region of a first share");
        assertEquals(1, own.posted(), "no more posted than credited");
        own.reserve(3); // the first share
        assertEquals(4, own.registered());
        assertEquals(4, own.posted());
    }

    @Test
    void aReservationPastTheCapacityIsABug() {
        SharedSlots small = new SharedSlots(queue, CHUNK, 2 * CHUNK);
        assertThrows(IllegalStateException.class, () -> small.reserve(2 * CHUNK + 1));
    }
}
