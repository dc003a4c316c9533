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

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** How many received slots the pipeline may hold before the reader copies, without a device. */
class SlotLoansTest {

    @Test
    void theLoansStopAtHalfThePeersShare() {
        assertTrue(SlotLoans.mayLend(31, 64));
        assertFalse(SlotLoans.mayLend(32, 64), "the other half keeps the peer sending");
        assertTrue(SlotLoans.mayLend(1, 4));
        assertFalse(SlotLoans.mayLend(2, 4), "the initial share of four lends two");
    }

    @Test
    void aShareOfOneSlotStillLendsOne() {
        assertTrue(SlotLoans.mayLend(0, 1));
        assertFalse(SlotLoans.mayLend(1, 1));
    }
}
