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
package org.nettyrdma.channel.rdma.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** The wake-up latency the default adaptive bound is made of: a time, handed on as it is measured. */
class WakeUpLatencyTest {

    @Test
    void theThirdQuickestHandOffIsHandedOnFromTheThirdOn() {
        List<Long> published = new ArrayList<>();
        long figure = WakeUpLatency.measure(5, TimeUnit.MILLISECONDS.toNanos(1), published::add);
        assertTrue(figure > 0 && figure < TimeUnit.SECONDS.toNanos(1), figure + " ns");
        // After hand-offs 3, 4 and 5; the third quickest can only fall as quicker ones come in.
        assertEquals(3, published.size(), published.toString());
        assertEquals(figure, published.get(2));
        assertTrue(published.get(0) >= published.get(1) && published.get(1) >= published.get(2), published.toString());
    }

    @Test
    void fewerThanThreeHandOffsGiveNoFigure() {
        List<Long> published = new ArrayList<>();
        assertEquals(-1, WakeUpLatency.measure(WakeUpLatency.RANK, TimeUnit.MILLISECONDS.toNanos(1), published::add));
        assertTrue(published.isEmpty(), published.toString());
    }

    @Test
    void theBackgroundMeasurementPublishesAFigure() throws InterruptedException {
        WakeUpLatency.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (WakeUpLatency.nanos() < 0 && System.nanoTime() - deadline < 0) {
            Thread.sleep(10);
        }
        assertTrue(WakeUpLatency.nanos() > 0, String.valueOf(WakeUpLatency.nanos()));
    }
}
