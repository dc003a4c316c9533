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
import static org.junit.jupiter.api.Assertions.assertNull;
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
 * The raw-verbs floors of the stream, by RDMA Write and by Send: their arguments, deadline and flow-control
 * bounds anywhere, their stream where an RDMA device is (the rxe VM sets {@code RDMA_TEST_ADDRESS}). No
 * figure is checked but that the steady state allocates nothing.
 */
class VerbsWriteStreamTest {

    @Test
    void theDeadlinesCoverEverySizeAndTheNamesAreTheFloors() {
        VerbsWriteStream stream = new VerbsWriteStream(InetAddress.getLoopbackAddress(), new int[] {64, 4096, 65536},
                false, 2, 3);
        assertTrue(stream.warmUpDeadlineSeconds() > 3 * JitWarmUp.MAX_ROUNDS * 2,
                String.valueOf(stream.warmUpDeadlineSeconds()));
        assertTrue(stream.roundDeadlineSeconds() > 3 * (1 + 3), String.valueOf(stream.roundDeadlineSeconds()));
        assertEquals(VerbsPingPong.BUSY_POLL, stream.name());
        assertEquals(VerbsPingPong.EVENTS, new VerbsWriteStream(InetAddress.getLoopbackAddress(), new int[] {64},
                true, 1, 1).name());
    }

    @Test
    void aSizeOutsideTheRingIsRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> new VerbsWriteStream(InetAddress.getLoopbackAddress(), new int[] {64, 0}, false, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new VerbsWriteStream(InetAddress.getLoopbackAddress(),
                new int[] {VerbsWriteSink.RING_BYTES + 1}, false, 1, 1));
    }

    @Test
    void theRingBoundsWhatIsInFlight() {
        // 64 KiB: 16 fit in the 1 MiB ring, every 4th signaled.
        assertEquals(16, VerbsWriteSink.window(65536));
        assertEquals(16, AbstractVerbsStreamer.maxInFlight(VerbsWriteSink.window(65536)));
        assertEquals(4, AbstractVerbsStreamer.signalInterval(16));
        // 64 B: the receives bound the credit, the send queue what is in flight.
        assertEquals(VerbsWriteSink.MAX_CREDIT, VerbsWriteSink.window(64));
        assertEquals(AbstractVerbsStreamer.SEND_QUEUE_DEPTH, AbstractVerbsStreamer.maxInFlight(
                VerbsWriteSink.window(64)));
        // The whole ring in one write: one in flight, each signaled.
        assertEquals(1, VerbsWriteSink.window(VerbsWriteSink.RING_BYTES));
        assertEquals(1, AbstractVerbsStreamer.signalInterval(1));
    }

    @Test
    void theSendFloorHasTheTransportsCreditAndNoRingBound() {
        InetAddress host = InetAddress.getLoopbackAddress();
        VerbsWriteStream stream = new VerbsWriteStream(host, new int[] {64, VerbsWriteSink.RING_BYTES + 1}, false,
                OptionalInt.of(8192), 1, 1);
        assertEquals(VerbsPingPong.SEND_BUSY_POLL, stream.name());
        assertEquals(VerbsPingPong.SEND_EVENTS, new VerbsWriteStream(host, new int[] {64}, true, OptionalInt.of(8192),
                1, 1).name());
        // 64 Sends in flight, the slots' credit, every 16th signaled.
        assertEquals(64, VerbsSendSink.CREDIT);
        assertEquals(64, AbstractVerbsStreamer.maxInFlight(VerbsSendSink.CREDIT));
        assertEquals(16, AbstractVerbsStreamer.signalInterval(64));
        for (int slot : new int[] {AbstractVerbsBenchmark.MIN_SEND_SLOT - 1,
            AbstractVerbsBenchmark.MAX_SEND_SLOT + 1}) {
            assertThrows(IllegalArgumentException.class, () -> new VerbsWriteStream(host, new int[] {64}, false,
                    OptionalInt.of(slot), 1, 1));
        }
    }

    @Tag(VerbsTestDevice.TAG)
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void streamsEverySizeOverTheDevice(boolean waitForEvents) throws Exception {
        checkStreams(VerbsTestDevice.run(VerbsWriteStream::new, waitForEvents));
    }

    @Tag(VerbsTestDevice.TAG)
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void streamsEverySizeBySendsOverTheDevice(boolean waitForEvents) throws Exception {
        // 64 KiB in Sends of 8 KiB, 64 B in Sends of 64 B, into slots of 8 KiB.
        checkStreams(VerbsTestDevice.run(VerbsWriteStream::new, waitForEvents, OptionalInt.of(8192)));
    }

    private static void checkStreams(List<Result> results) {
        for (Result result : results) {
            assertNull(result.roundTrip());
            Result.Stream figures = result.stream();
            assertNotNull(figures);
            assertTrue(figures.messages() > 0 && figures.mibPerSecond() > 0, figures.toString());
            assertTrue(figures.allocatedBytesPerMessage() < 1, "steady state allocates: " + figures);
        }
    }
}
