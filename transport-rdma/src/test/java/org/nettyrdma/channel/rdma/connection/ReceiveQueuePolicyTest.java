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
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Whether shared receive queues may be used, and which queue a connection has, without a device. */
class ReceiveQueuePolicyTest {

    @Test
    void byDefaultSharedReceiveQueuesAreUsedWhereTheDeviceHasThem() {
        assertTrue(ReceiveQueuePolicy.allowed("auto"));
    }

    @Test
    void neverTurnsThemOffOnEveryDevice() {
        assertFalse(ReceiveQueuePolicy.allowed("never"));
        assertFalse(ReceiveQueuePolicy.allowed(" Never "), "case and blanks do not matter");
    }

    @Test
    void aDeviceWithoutThemUsesNoneWhateverTheProperty() {
        assertFalse(ReceiveQueuePolicy.sharedQueues(false, "auto"), "as erdma: every queue pair's own receive queue");
        assertFalse(ReceiveQueuePolicy.sharedQueues(false, "never"));
        assertFalse(ReceiveQueuePolicy.sharedQueues(true, "never"), "rxe under the property, as a device without");
        assertTrue(ReceiveQueuePolicy.sharedQueues(true, "auto"));
        assertThrows(IllegalArgumentException.class, () -> ReceiveQueuePolicy.sharedQueues(false, "sometimes"));
    }

    @Test
    void aConnectionThatAskedForTheLoopsQueueHasOneOfItsOwnWhenTheyAreOff() {
        ConnectionSettings asks = new ConnectionSettings(64, 8192, 128, 128, 1 << 20, 1 << 20, 2000, 0, false, true,
                false);
        String before = System.getProperty(ReceiveQueuePolicy.PROPERTY);
        try {
            System.clearProperty(ReceiveQueuePolicy.PROPERTY);
            assertFalse(asks.hasOwnReceiveQueue());
            System.setProperty(ReceiveQueuePolicy.PROPERTY, "never");
            assertTrue(asks.hasOwnReceiveQueue(), "admission counts the region of a queue of its own");
        } finally {
            if (before == null) {
                System.clearProperty(ReceiveQueuePolicy.PROPERTY);
            } else {
                System.setProperty(ReceiveQueuePolicy.PROPERTY, before);
            }
        }
    }

    @Test
    void anUnknownValueIsRefusedWithTheValuesAllowed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ReceiveQueuePolicy.allowed("sometimes"));
        assertTrue(e.getMessage().contains("-Dorg.nettyrdma.sharedReceiveQueue=sometimes (expected: auto or never)"),
                e.getMessage());
    }
}
