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

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

/**
 * When {@link HelloNudge} nudges: not before its first delay, then at doubling intervals up to the
 * longest, and never once the peer answered or the nudging was cancelled. On an embedded loop whose
 * clock the test moves.
 */
class HelloNudgeTest {

    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final AtomicInteger nudges = new AtomicInteger();
    private final AtomicBoolean answered = new AtomicBoolean();
    private final HelloNudge nudge = new HelloNudge(channel.eventLoop(), 7, answered::get, nudges::incrementAndGet);

    private int after(long millis) {
        channel.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        return nudges.get();
    }

    @Test
    void nudgesAtDoublingIntervalsUpToTheLongest() {
        nudge.start();
        assertEquals(0, after(HelloNudge.FIRST_DELAY_MILLIS - 1), "a HELLO answered at once costs no nudge");
        assertEquals(1, after(1));
        assertEquals(2, after(200));
        assertEquals(3, after(400));
        assertEquals(4, after(800));
        assertEquals(4, after(HelloNudge.LONGEST_DELAY_MILLIS - 1), "no interval grows past the longest");
        assertEquals(5, after(1));
        assertEquals(6, after(HelloNudge.LONGEST_DELAY_MILLIS));
    }

    @Test
    void stopsOnceThePeerAnswered() {
        nudge.start();
        assertEquals(1, after(HelloNudge.FIRST_DELAY_MILLIS));
        answered.set(true);
        assertEquals(1, after(10 * HelloNudge.LONGEST_DELAY_MILLIS));
    }

    @Test
    void stopsWhenCancelled() {
        nudge.start();
        nudge.cancel();
        assertEquals(0, after(10 * HelloNudge.LONGEST_DELAY_MILLIS));
    }
}
