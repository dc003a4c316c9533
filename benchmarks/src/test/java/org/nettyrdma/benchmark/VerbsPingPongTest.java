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
package org.nettyrdma.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The raw-verbs floor: its arguments and deadline anywhere, its ping-pong where an RDMA device is (the rxe
 * VM sets {@code RDMA_TEST_ADDRESS}). No figure is checked but that the steady state allocates nothing.
 */
class VerbsPingPongTest {

    @Test
    void theDeadlinesCoverEverySize() {
        VerbsPingPong pingPong = new VerbsPingPong(InetAddress.getLoopbackAddress(), new int[] {64, 4096, 65536},
                false, 2, 3);
        // Every warm-up round of every size; a settling second and the measured time of every size.
        assertTrue(pingPong.warmUpDeadlineSeconds() > 3 * JitWarmUp.MAX_ROUNDS * 2,
                String.valueOf(pingPong.warmUpDeadlineSeconds()));
        assertTrue(pingPong.roundDeadlineSeconds() > 3 * (1 + 3), String.valueOf(pingPong.roundDeadlineSeconds()));
        assertEquals("java-verbs", pingPong.name());
    }

    @Test
    void aSizeBelowOneByteIsRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> new VerbsPingPong(InetAddress.getLoopbackAddress(), new int[] {64, 0}, false, 1, 1));
    }

    @Tag(VerbsTestDevice.TAG)
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void pingPongsEverySizeOverTheDevice(boolean waitForEvents) throws Exception {
        for (Result result : VerbsTestDevice.run(VerbsPingPong::new, waitForEvents)) {
            Result.RoundTrip roundTrip = result.roundTrip();
            assertNotNull(roundTrip);
            assertTrue(roundTrip.roundTrips() > 0 && roundTrip.p50Micros() > 0, roundTrip.toString());
            assertTrue(roundTrip.allocatedBytesPerRoundTrip() < 1, "steady state allocates: " + roundTrip);
        }
    }
}
