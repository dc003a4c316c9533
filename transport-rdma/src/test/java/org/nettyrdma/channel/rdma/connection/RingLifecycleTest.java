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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.nettyrdma.channel.rdma.RdmaProtocolException;

/**
 * The receiving side's decisions about rings on demand, without a device: none until asked, one at a
 * time, growth by a close and a larger reopen, idle closes, and requests or releases a peer has no
 * business sending.
 */
class RingLifecycleTest {

    private static final int MAX = 1 << 20;

    @Test
    void aRequestOpensTheFirstRingAtItsInitialSize() throws Exception {
        RingLifecycle rings = new RingLifecycle(MAX);
        assertNull(rings.writable(), "no ring before the peer asks");
        assertEquals(RingLifecycle.OPEN, rings.onRequest(0));
        assertEquals(RingLifecycle.INITIAL_SIZE, rings.nextSize());
        OfferedRing ring = open(rings);
        assertEquals(1, ring.generation());
        assertSame(ring, rings.writable());
        assertSame(ring, rings.open());
    }

    @Test
    void aSmallMaximumIsTheFirstSize() throws Exception {
        RingLifecycle rings = new RingLifecycle(64 * 1024);
        assertEquals(RingLifecycle.OPEN, rings.onRequest(0));
        assertEquals(64 * 1024, rings.nextSize());
    }

    @Test
    void aRequestNamingTheOpenRingGrowsItUntilTheMaximum() throws Exception {
        RingLifecycle rings = new RingLifecycle(MAX);
        rings.onRequest(0);
        OfferedRing first = open(rings);
        assertEquals(RingLifecycle.GROW, rings.onRequest(first.generation()));
        assertSame(first, rings.close());
        assertNull(rings.open());
        assertSame(first, rings.writable(), "the closing ring takes the Writes posted before the peer heard");
        assertFalse(rings.openDue(), "not before the peer released it");
        assertSame(first, rings.onReleased(first.generation()));
        assertTrue(rings.openDue());
        assertEquals(2 * RingLifecycle.INITIAL_SIZE, rings.nextSize());
        OfferedRing second = open(rings);
        assertEquals(2, second.generation());
        assertEquals(RingLifecycle.GROW, rings.onRequest(2));
        rings.close();
        rings.onReleased(2);
        OfferedRing third = open(rings);
        assertEquals(MAX, third.size());
        assertEquals(RingLifecycle.KEEP, rings.onRequest(3), "as large as it gets");
    }

    @Test
    void aRingWrittenThroughSeveralTimesGrows() throws Exception {
        RingLifecycle rings = new RingLifecycle(MAX);
        rings.onRequest(0);
        OfferedRing ring = open(rings);
        int quarter = ring.size() / 4;
        for (int i = 1; i < 4 * RingLifecycle.GROWTH_TURNS; i++) {
            assertEquals(RingLifecycle.KEEP, rings.wrote(quarter), "after " + i + " quarters");
        }
        assertEquals(RingLifecycle.GROW, rings.wrote(quarter));
        rings.close();
        rings.onReleased(ring.generation());
        assertTrue(rings.openDue());
        assertEquals(2 * ring.size(), rings.nextSize());
        OfferedRing larger = open(rings);
        assertEquals(RingLifecycle.KEEP, rings.wrote(quarter), "the count starts again with the new ring");
        rings.close();
        assertEquals(RingLifecycle.KEEP, rings.wrote(larger.size()), "a closing ring does not grow");
    }

    @Test
    void aRingAsLargeAsItGetsDoesNotGrow() throws Exception {
        RingLifecycle rings = new RingLifecycle(RingLifecycle.INITIAL_SIZE);
        rings.onRequest(0);
        OfferedRing ring = open(rings);
        for (int i = 0; i < 2 * RingLifecycle.GROWTH_TURNS; i++) {
            assertEquals(RingLifecycle.KEEP, rings.wrote(ring.size()));
        }
    }

    @Test
    void aRequestSentBeforeThePeerLearntOfTheOpenRingIsIgnored() throws Exception {
        RingLifecycle rings = new RingLifecycle(MAX);
        rings.onRequest(0);
        open(rings);
        assertEquals(RingLifecycle.KEEP, rings.onRequest(0));
    }

    @Test
    void aRequestWhileARingClosesReopensItOnceReleased() throws Exception {
        RingLifecycle rings = new RingLifecycle(MAX);
        rings.onRequest(0);
        OfferedRing ring = open(rings);
        rings.close();
        assertEquals(RingLifecycle.KEEP, rings.onRequest(ring.generation()));
        rings.onReleased(ring.generation());
        assertTrue(rings.openDue());
        assertEquals(ring.size(), rings.nextSize(), "as large as the one it replaces");
    }

    @Test
    void noRingOpensWhileTheReleasedOneHasRegionsUnread() throws Exception {
        RingLifecycle rings = new RingLifecycle(MAX);
        rings.onRequest(0);
        assertTrue(rings.openDue());
        OfferedRing ring = open(rings);
        long token = ring.book().accept(0, 4096);
        rings.close();
        rings.onReleased(ring.generation());
        assertEquals(RingLifecycle.OPEN, rings.onRequest(ring.generation()), "wanted");
        assertFalse(rings.openDue(), "not while a region of the released ring waits to be read");
        ring.book().release(token);
        assertTrue(rings.openDue(), "once the reader let go of it");
    }

    @Test
    void anIdleRingIsFoundAfterAWholeLookWithoutWrites() throws Exception {
        RingLifecycle rings = new RingLifecycle(MAX);
        assertFalse(rings.idleSinceLastLook(), "no ring, nothing to close");
        rings.onRequest(0);
        open(rings);
        assertFalse(rings.idleSinceLastLook(), "just opened");
        rings.wrote(1);
        assertFalse(rings.idleSinceLastLook());
        assertTrue(rings.idleSinceLastLook());
        rings.close();
        assertFalse(rings.idleSinceLastLook(), "closing already");
    }

    @Test
    void aDeclinedOpenIsForgotten() throws Exception {
        RingLifecycle rings = new RingLifecycle(MAX);
        rings.onRequest(0);
        OfferedRing ring = open(rings);
        rings.onRequest(ring.generation());
        rings.close();
        rings.onReleased(ring.generation());
        rings.declined();
        assertFalse(rings.openDue());
        assertEquals(RingLifecycle.OPEN, rings.onRequest(ring.generation()), "the peer asks again");
        assertEquals(RingLifecycle.INITIAL_SIZE, rings.nextSize());
    }

    @Test
    void whatAPeerHasNoBusinessSendingIsRefused() throws Exception {
        RdmaProtocolException none = assertThrows(RdmaProtocolException.class, () -> new RingLifecycle(0).onRequest(0));
        assertTrue(none.getMessage().contains("offered no ring"), none.getMessage());

        RingLifecycle rings = new RingLifecycle(MAX);
        RdmaProtocolException future = assertThrows(RdmaProtocolException.class, () -> rings.onRequest(1));
        assertTrue(future.getMessage().contains("naming ring 1"), future.getMessage());
        RdmaProtocolException released = assertThrows(RdmaProtocolException.class, () -> rings.onReleased(1));
        assertTrue(released.getMessage().contains("no ring was closed"), released.getMessage());

        rings.onRequest(0);
        OfferedRing ring = open(rings);
        assertThrows(RdmaProtocolException.class, () -> rings.onReleased(ring.generation()), "released while open");
        rings.close();
        RdmaProtocolException wrong = assertThrows(RdmaProtocolException.class, () -> rings.onReleased(7));
        assertTrue(wrong.getMessage().contains("expected: ring 1"), wrong.getMessage());
    }

    @Test
    void onlyOneRingTakesWritesAtATime() throws Exception {
        RingLifecycle rings = new RingLifecycle(MAX);
        rings.onRequest(0);
        OfferedRing ring = open(rings);
        assertThrows(IllegalStateException.class, () -> open(rings));
        rings.close();
        assertThrows(IllegalStateException.class, () -> open(rings), "not before the closing one is released");
        rings.onReleased(ring.generation());
        open(rings);
    }

    private static OfferedRing open(RingLifecycle rings) {
        int size = rings.nextSize() > 0 ? rings.nextSize() : RingLifecycle.INITIAL_SIZE;
        OfferedRing ring = new OfferedRing(rings.nextGeneration(), size, null, (r, token) -> { });
        rings.opened(ring);
        return ring;
    }
}
