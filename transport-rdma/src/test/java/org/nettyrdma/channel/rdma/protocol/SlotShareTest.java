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
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** When a peer's share of the shared receive queue grows. */
class SlotShareTest {

    @Test
    void aPeerLeftHalfOfItsShareOrLessGrowsItFourfold() {
        SlotShare share = new SlotShare(4, 64);
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
        SlotShare share = new SlotShare(4, 6);
        assertEquals(2, share.onArrival(0));
    }

    @Test
    void sharesOutOfOrderAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new SlotShare(8, 6));
        assertThrows(IllegalArgumentException.class, () -> new SlotShare(0, 6));
    }
}
