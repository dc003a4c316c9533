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

/** Whether a connection opens a ring to its peer, without a device. */
class RingPolicyTest {

    @Test
    void byDefaultARingOnlyWhereWindowsConfineThePeer() {
        assertTrue(RingPolicy.opensRing("auto", true));
        assertFalse(RingPolicy.opensRing("auto", false));
    }

    @Test
    void thePropertyOverridesTheDevice() {
        assertTrue(RingPolicy.opensRing("always", false));
        assertFalse(RingPolicy.opensRing("never", true));
        assertTrue(RingPolicy.opensRing(" Always ", false), "case and blanks do not matter");
    }

    @Test
    void aDeviceThatCannotCarryARingOpensNoneWhateverIsAsked() {
        // No type-2 windows, or no Writes with immediate (iWARP): the ring would need a verb it lacks.
        assertFalse(RingPolicy.opensRing("auto", true, false));
        assertFalse(RingPolicy.opensRing("always", false, false));
        assertFalse(RingPolicy.opensRing("always", true, false));
        assertTrue(RingPolicy.opensRing("always", false, true));
        assertTrue(RingPolicy.opensRing("auto", true, true));
    }

    @Test
    void anUnknownValueIsRefusedWithTheValuesAllowed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RingPolicy.opensRing("sometimes", true));
        assertTrue(e.getMessage().contains("-Dorg.nettyrdma.ring=sometimes (expected: auto, always or never)"),
                e.getMessage());
    }
}
