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
package org.nettyrdma.channel.rdma.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.nettyrdma.channel.rdma.RdmaProtocolException;

/** The sender's and the receiver's books of one ring agree, and a peer that strays is caught. */
class RingAccountingTest {

    @Test
    void writesWrapBySkippingTheTailOnBothSides() throws Exception {
        SendCredits sender = new SendCredits(8, 8, 1000);
        ReceiveRing receiver = new ReceiveRing(1000);
        assertEquals(0, sender.reserveRing(400));
        long first = receiver.accept(0, 400);
        assertEquals(400, sender.reserveRing(400));
        long second = receiver.accept(400, 400);
        // 300 do not fit in the last 200: no room until the first 400 return.
        assertEquals(SendCredits.NO_ROOM, sender.reserveRing(300));
        assertEquals(400, receiver.release(first));
        sender.onReturned(0, 400);
        assertEquals(0, sender.reserveRing(300));
        long third = receiver.accept(0, 300);
        assertEquals(400 + 200 + 300, receiver.used(), "the 200 skipped bytes count as used");
        assertEquals(100, sender.ringFree());
        // The skipped tail comes back with the region in front of it.
        assertEquals(600, receiver.release(second));
        assertEquals(300, receiver.release(third));
        assertEquals(0, receiver.used());
    }

    @Test
    void releasedRegionsBehindAHeldOneWait() throws Exception {
        ReceiveRing ring = new ReceiveRing(4096);
        long a = ring.accept(0, 100);
        long b = ring.accept(100, 100);
        long c = ring.accept(200, 100);
        assertEquals(0, ring.release(c));
        assertEquals(0, ring.release(b));
        assertEquals(300, ring.release(a));
        assertEquals(0, ring.outstandingRegions());
    }

    @Test
    void theBookGrowsWithoutLosingRegions() throws Exception {
        ReceiveRing ring = new ReceiveRing(1 << 20);
        long[] tokens = new long[100];
        for (int i = 0; i < tokens.length; i++) {
            tokens[i] = ring.accept(i * 10, 10);
        }
        int freed = 0;
        for (int i = tokens.length - 1; i >= 0; i--) {
            freed += ring.release(tokens[i]);
        }
        assertEquals(1000, freed);
    }

    @Test
    void aWriteAnywhereElseIsAViolation() throws Exception {
        ReceiveRing ring = new ReceiveRing(1000);
        ring.accept(0, 100);
        assertViolation(ring, 50, 10, "expected: at 100");
        assertViolation(ring, 0, 10, "expected: at 100");
        assertViolation(ring, 100, 0, "1..1000");
        assertViolation(ring, 100, 2000, "1..1000");
        ring.accept(100, 800);
        assertViolation(ring, 900, 150, "expected: at 900");
        // At 0 the write would fit after skipping 100, but only 0 bytes are free: an overrun.
        assertViolation(ring, 0, 150, "overruns");
    }

    @Test
    void aRegionReturnsWithItsLastHold() throws Exception {
        ReceiveRing ring = new ReceiveRing(1000);
        long token = ring.accept(0, 300);
        // Two pieces handed up, then the inbound queue lets go of it: the pieces still hold it.
        ring.retain(token);
        ring.retain(token);
        assertEquals(0, ring.release(token));
        assertEquals(0, ring.release(token));
        assertEquals(1, ring.outstandingRegions());
        assertEquals(300, ring.release(token));
        assertEquals(0, ring.used());
        assertThrows(IllegalStateException.class, () -> ring.retain(token));
    }

    @Test
    void releasingTwiceOrAnUnknownRegionIsABug() throws Exception {
        ReceiveRing ring = new ReceiveRing(1000);
        long token = ring.accept(0, 10);
        ring.release(token);
        assertThrows(IllegalStateException.class, () -> ring.release(token));
        assertThrows(IllegalStateException.class, () -> ring.release(token + 5));
    }

    @Test
    void returnedCreditsAreBoundedByWhatWasUsed() throws Exception {
        SendCredits credits = new SendCredits(4, 4, 4096);
        credits.consumeSlot();
        credits.consumeSlot();
        credits.reserveRing(1000);
        credits.onReturned(1, 500);
        assertEquals(3, credits.slots());
        RdmaProtocolException slots = assertThrows(RdmaProtocolException.class, () -> credits.onReturned(2, 0));
        assertTrue(slots.getMessage().contains("returned 2 slots"), slots.getMessage());
        RdmaProtocolException bytes = assertThrows(RdmaProtocolException.class, () -> credits.onReturned(0, 501));
        assertTrue(bytes.getMessage().contains("returned 501 ring bytes"), bytes.getMessage());
    }

    @Test
    void aRingOpensEmptyAndTakesItsUnreturnedBytesWhenItCloses() throws Exception {
        SendCredits credits = new SendCredits(4, 4);
        assertEquals(0, credits.ringSize());
        assertFalse(credits.canReserveRing(1), "no ring before the peer opens one");
        RdmaProtocolException none = assertThrows(RdmaProtocolException.class, () -> credits.onReturned(0, 1));
        assertTrue(none.getMessage().contains("returned 1 ring bytes"), none.getMessage());
        credits.openRing(4096);
        assertEquals(1000, credits.reserveRing(1000) + 1000);
        credits.closeRing();
        assertEquals(0, credits.ringFree());
        assertFalse(credits.canReserveRing(1));
        credits.openRing(8192);
        assertEquals(8192, credits.ringFree(), "a new ring starts empty, whatever the old one held");
        assertEquals(0, credits.reserveRing(100), "and is written from its start");
    }

    @Test
    void aClosedRingIsOwedNothing() {
        CreditReturn owed = new CreditReturn(4, null);
        owed.ringOpened(4096);
        owed.ringFreed(1024);
        assertTrue(owed.creditMessageDue(), "a quarter of the ring is owed");
        owed.ringClosed();
        assertEquals(0, owed.owedRingBytes());
        assertFalse(owed.creditMessageDue());
    }

    @Test
    void dataKeepsTheLastSlotForCredits() {
        SendCredits credits = new SendCredits(3, 3, 0);
        credits.consumeSlot();
        assertTrue(credits.canSendData());
        credits.consumeSlot();
        assertFalse(credits.canSendData());
        // The last slot: only for a message that returns slots, or the CLOSE.
        assertTrue(credits.canSendControl(true));
        assertFalse(credits.canSendControl(false));
        credits.consumeSlot();
        assertFalse(credits.canSendControl(true));
        assertThrows(IllegalStateException.class, credits::consumeSlot);
    }

    private static void assertViolation(ReceiveRing ring, int offset, int length, String expected) {
        RdmaProtocolException e = assertThrows(RdmaProtocolException.class, () -> ring.accept(offset, length));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
