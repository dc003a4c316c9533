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
package org.nettyrdma.channel.rdma.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** When a peer's share of the shared receive queue grows and shrinks. */
class SlotShareTest {

    @Test
    void aPeerLeftHalfOfItsShareOrLessGrowsItFourfold() {
        SlotShare share = new SlotShare(4, 4, 64);
        assertEquals(0, share.onArrival(3), "three credits of four left: no growth");
        assertEquals(12, share.onArrival(2), "two credits of four left: the share grows fourfold");
        share.grew(12);
        assertEquals(16, share.share());
        assertEquals(0, share.onArrival(9));
        assertEquals(48, share.onArrival(8));
        share.grew(48);
        assertEquals(64, share.share());
        assertEquals(0, share.onArrival(0), "the share never passes its maximum");
    }

    @Test
    void growthStopsShortOfTheMaximum() {
        SlotShare share = new SlotShare(4, 4, 6);
        assertEquals(2, share.onArrival(0));
    }

    @Test
    void aPeerThatUsesLittleOfItsShareGivesHalfOfItBackOneReadAtATime() {
        SlotShare share = new SlotShare(4, 4, 64);
        share.grew(28);
        // A round of 32 messages read in which the peer never had more than 2 of its 32 slots in use.
        for (int i = 0; i < 32; i++) {
            assertEquals(0, share.onArrival(30));
            assertEquals(SlotShare.KEEP, share.onRead());
        }
        for (int i = 0; i < 16; i++) {
            assertEquals(SlotShare.SHRINK, share.onRead());
        }
        assertEquals(16, share.share());
        assertEquals(SlotShare.KEEP, share.onRead());
    }

    @Test
    void aPeerThatUsesMoreThanHalfKeepsItsShare() {
        SlotShare share = new SlotShare(4, 4, 64);
        share.grew(12);
        for (int i = 0; i < 40; i++) {
            share.onArrival(i % 16 == 0 ? 7 : 12);
            assertEquals(SlotShare.KEEP, share.onRead());
        }
        assertEquals(16, share.share());
    }

    @Test
    void theShareNeverShrinksBelowItsMinimum() {
        SlotShare share = new SlotShare(4, 4, 64);
        for (int i = 0; i < 100; i++) {
            share.onArrival(4);
            assertEquals(SlotShare.KEEP, share.onRead());
        }
        assertEquals(4, share.share());
    }

    @Test
    void growingCancelsAShrinkUnderWay() {
        SlotShare share = new SlotShare(4, 4, 64);
        share.grew(12);
        for (int i = 0; i < 16; i++) {
            share.onArrival(15);
            share.onRead();
        }
        assertEquals(SlotShare.SHRINK, share.onRead());
        assertEquals(15, share.share());
        assertEquals(45, share.onArrival(0));
        share.grew(45);
        assertEquals(SlotShare.KEEP, share.onRead());
        assertEquals(60, share.share());
    }

    @Test
    void sharesOutOfOrderAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new SlotShare(2, 4, 64));
        assertThrows(IllegalArgumentException.class, () -> new SlotShare(8, 4, 6));
        assertThrows(IllegalArgumentException.class, () -> new SlotShare(4, 0, 6));
    }
}
