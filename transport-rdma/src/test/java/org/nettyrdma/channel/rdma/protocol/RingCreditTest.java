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
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Ring bytes are returned a quarter of the ring at a time, even when the reader holds nothing: less
 * owed than that never keeps a Write (at most a quarter of the ring) out of the ring.
 */
class RingCreditTest {

    @ParameterizedTest(name = "ring of {0} B")
    @ValueSource(ints = {1000, 4096, 1 << 20, (1 << 20) + 3})
    void aReaderThatReleasesAtOnceNeverLeavesTheWriterWithoutRoom(int ringSize) throws Exception {
        SendCredits writer = new SendCredits(64, 64, ringSize);
        ReceiveRing ring = new ReceiveRing(ringSize);
        CreditReturn reader = new CreditReturn(64, ring);
        SplittableRandom random = new SplittableRandom(ringSize);
        int maxWrite = ringSize / 4;
        int creditMessages = 0;
        for (int i = 0; i < 20_000; i++) {
            // Mostly the largest Write, which wraps the ring at the most positions; some of any size.
            int length = random.nextInt(4) == 0 ? 1 + random.nextInt(maxWrite) : maxWrite;
            long offset = writer.reserveRing(length);
            assertTrue(offset >= 0, () -> "no room for " + length + " B with " + reader.owedRingBytes()
                    + " B owed and nothing held");
            reader.ringFreed(ring.release(ring.accept((int) offset, length)));
            assertEquals(0, ring.used());
            if (reader.creditMessageDue()) {
                writer.onReturned(0, reader.takeRingBytes());
                creditMessages++;
            }
            assertTrue(reader.owedRingBytes() < maxWrite, "a quarter of the ring owed, and no CREDIT due");
        }
        assertTrue(creditMessages > 0);
    }

    @ParameterizedTest(name = "ring of {0} B")
    @ValueSource(ints = {1000, 1 << 20})
    void lessThanAQuarterOwedWaitsForAHeaderEvenWithNothingHeld(int ringSize) throws Exception {
        ReceiveRing ring = new ReceiveRing(ringSize);
        CreditReturn reader = new CreditReturn(64, ring);
        int quarter = ringSize / 4;
        reader.ringFreed(ring.release(ring.accept(0, quarter - 1)));
        assertEquals(0, ring.used());
        assertFalse(reader.creditMessageDue(), "one byte short of a quarter");
        reader.ringFreed(ring.release(ring.accept(quarter - 1, 1)));
        assertTrue(reader.creditMessageDue(), "a quarter owed");
        assertEquals(quarter, reader.takeRingBytes());
        assertFalse(reader.creditMessageDue());
    }
}
