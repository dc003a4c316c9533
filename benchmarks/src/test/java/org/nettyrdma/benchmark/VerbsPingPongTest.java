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
import java.util.List;
import java.util.OptionalInt;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The raw-verbs floor of the round trip, of one Send per message and of Sends of a slot: its arguments,
 * deadline and send queue bounds anywhere, its ping-pong where an RDMA device is (the rxe VM sets
 * {@code RDMA_TEST_ADDRESS}). No figure is checked but that the steady state allocates nothing.
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

    @Test
    void aSendSlotNamesTheSendFloor() {
        InetAddress host = InetAddress.getLoopbackAddress();
        assertEquals(VerbsPingPong.SEND_BUSY_POLL, new VerbsPingPong(host, new int[] {64}, false, OptionalInt.of(8192),
                1, 1).name());
        assertEquals(VerbsPingPong.SEND_EVENTS, new VerbsPingPong(host, new int[] {64}, true, OptionalInt.of(8192), 1,
                1).name());
        assertEquals(VerbsPingPong.EVENTS, new VerbsPingPong(host, new int[] {64}, true, OptionalInt.empty(), 1,
                1).name());
    }

    @Test
    void aSendSlotOutsideTheTransportsSlotSizesIsRefused() {
        InetAddress host = InetAddress.getLoopbackAddress();
        for (int slot : new int[] {0, AbstractVerbsBenchmark.MIN_SEND_SLOT - 1,
            AbstractVerbsBenchmark.MAX_SEND_SLOT + 1}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> new VerbsPingPong(host, new int[] {64}, false, OptionalInt.of(slot), 1, 1));
            assertTrue(e.getMessage().startsWith("--send-slot: " + slot + " "), e.getMessage());
        }
    }

    @Test
    void aMessageOfMoreSendsThanAChainHoldsIsRefused() {
        InetAddress host = InetAddress.getLoopbackAddress();
        int largest = 256 * VerbsPeer.MAX_PARTS;
        new VerbsPingPong(host, new int[] {largest}, false, OptionalInt.of(256), 1, 1);
        assertThrows(IllegalArgumentException.class,
                () -> new VerbsPingPong(host, new int[] {largest + 1}, false, OptionalInt.of(256), 1, 1));
        // Without a send slot a message is one Send, whatever its size.
        new VerbsPingPong(host, new int[] {largest + 1}, false, OptionalInt.empty(), 1, 1);
    }

    @Test
    void aMessageGoesInSendsOfAtMostASlotWithRoomForTwoMessages() {
        assertEquals(1, VerbsPeer.parts(64, 8192));
        assertEquals(1, VerbsPeer.parts(8192, 8192));
        assertEquals(2, VerbsPeer.parts(8193, 8192));
        assertEquals(8, VerbsPeer.parts(65536, 8192));
        // One part: as without a send slot, 16 receives, one Send in 32 signaled, 64 in the send queue.
        assertEquals(VerbsPeer.RECEIVES, VerbsPeer.receives(1));
        assertEquals(32, VerbsPeer.signalInterval(1));
        assertEquals(64, VerbsPeer.sendQueueDepth(1));
        // 64 KiB in 8 KiB: every 4th message signaled, 32 Sends apart.
        assertEquals(4, VerbsPeer.signalInterval(8));
        for (int parts = 1; parts <= VerbsPeer.MAX_PARTS; parts++) {
            // The signaled message not yet polled and the messages since: never more than the queue holds.
            assertTrue((VerbsPeer.signalInterval(parts) + 1) * parts <= VerbsPeer.sendQueueDepth(parts),
                    String.valueOf(parts));
            assertTrue(VerbsPeer.receives(parts) >= 2 * parts, String.valueOf(parts));
        }
    }

    @Tag(VerbsTestDevice.TAG)
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void pingPongsEverySizeOverTheDevice(boolean waitForEvents) throws Exception {
        checkRoundTrips(VerbsTestDevice.run(VerbsPingPong::new, waitForEvents));
    }

    @Tag(VerbsTestDevice.TAG)
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void pingPongsEverySizeInSendsOfASlotOverTheDevice(boolean waitForEvents) throws Exception {
        // 64 KiB in 8 Sends of 8 KiB, 64 B in one.
        checkRoundTrips(VerbsTestDevice.run(VerbsPingPong::new, waitForEvents, OptionalInt.of(8192)));
    }

    private static void checkRoundTrips(List<Result> results) {
        for (Result result : results) {
            Result.RoundTrip roundTrip = result.roundTrip();
            assertNotNull(roundTrip);
            assertTrue(roundTrip.roundTrips() > 0 && roundTrip.p50Micros() > 0, roundTrip.toString());
            assertTrue(roundTrip.allocatedBytesPerRoundTrip() < 1, "steady state allocates: " + roundTrip);
        }
    }
}
