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
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The clock of a write's wait for the peer's credit, without a device. */
class CreditWaitTest {

    private static final long BOUND = 1000;

    @Test
    void theWaitStartsAtTheFirstStallAndLaterStallsDoNotRestartIt() {
        CreditWait wait = new CreditWait();
        assertFalse(wait.isWaiting());
        assertEquals(Long.MAX_VALUE, wait.nanosLeft(5, BOUND));
        wait.stalled(100);
        wait.stalled(600); // the application wrote more, still without credit
        assertTrue(wait.isWaiting());
        assertEquals(500, wait.waitedNanos(600));
        assertEquals(BOUND - 800, wait.nanosLeft(900, BOUND));
        assertEquals(0, wait.nanosLeft(1100, BOUND), "due exactly at the bound");
    }

    @Test
    void creditReturnedEndsTheWaitAndTheNextStallStartsAnew() {
        CreditWait wait = new CreditWait();
        wait.stalled(100);
        wait.ended();
        assertFalse(wait.isWaiting());
        assertEquals(0, wait.waitedNanos(5000));
        wait.stalled(5000);
        assertEquals(BOUND - 100, wait.nanosLeft(5100, BOUND),
                "a slow reader that returns credit now and then is measured from its last return");
    }
}
