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

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The raw-verbs floor of the stream: its arguments, deadline and flow-control bounds anywhere, its stream
 * where an RDMA device is (the rxe VM sets {@code RDMA_TEST_ADDRESS}). No figure is checked but that the
 * steady state allocates nothing.
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
        assertEquals(16, VerbsWriter.maxInFlight(VerbsWriteSink.window(65536)));
        assertEquals(4, VerbsWriter.signalInterval(16));
        // 64 B: the receives bound the credit, the send queue what is in flight.
        assertEquals(VerbsWriteSink.MAX_CREDIT, VerbsWriteSink.window(64));
        assertEquals(VerbsWriter.SEND_QUEUE_DEPTH, VerbsWriter.maxInFlight(VerbsWriteSink.window(64)));
        // The whole ring in one write: one in flight, each signaled.
        assertEquals(1, VerbsWriteSink.window(VerbsWriteSink.RING_BYTES));
        assertEquals(1, VerbsWriter.signalInterval(1));
    }

    @Tag(VerbsTestDevice.TAG)
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void streamsEverySizeOverTheDevice(boolean waitForEvents) throws Exception {
        for (Result result : VerbsTestDevice.run(VerbsWriteStream::new, waitForEvents)) {
            assertNull(result.roundTrip());
            Result.Stream figures = result.stream();
            assertNotNull(figures);
            assertTrue(figures.messages() > 0 && figures.mibPerSecond() > 0, figures.toString());
            assertTrue(figures.allocatedBytesPerMessage() < 1, "steady state allocates: " + figures);
        }
    }
}
