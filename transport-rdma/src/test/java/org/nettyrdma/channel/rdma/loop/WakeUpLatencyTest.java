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

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** The wake-up latency the default adaptive bound is made of: a time, published as it is measured. */
class WakeUpLatencyTest {

    @Test
    void theThirdQuickestHandOffIsPublished() {
        long figure = WakeUpLatency.measure(5, TimeUnit.MILLISECONDS.toNanos(1));
        assertTrue(figure > 0 && figure < TimeUnit.SECONDS.toNanos(1), figure + " ns");
        assertEquals(figure, WakeUpLatency.nanos());
    }

    @Test
    void fewerThanThreeHandOffsGiveNoFigure() {
        assertEquals(-1, WakeUpLatency.measure(WakeUpLatency.RANK, TimeUnit.MILLISECONDS.toNanos(1)));
    }
}
