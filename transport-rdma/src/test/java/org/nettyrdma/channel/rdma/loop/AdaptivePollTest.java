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

import org.junit.jupiter.api.Test;

/** The budget of {@link AdaptivePoll}: what it learns from wake-ups and from polls that hit or ran out. */
class AdaptivePollTest {

    private static final long MICROS = 1_000;
    private static final long MAX = 100 * MICROS;

    @Test
    void aLoopThatSawNoWorkDoesNotPoll() {
        assertEquals(0, new AdaptivePoll(MAX).budgetNanos());
    }

    @Test
    void aHotWakeUpBuysTheBoundEvenIfItsGapWasLonger() {
        AdaptivePoll poll = new AdaptivePoll(MAX);
        poll.sleeping(0);
        // 230 us: a round trip that paid two wake-ups, where polling would have taken 50.
        poll.woke(230 * MICROS, true);
        assertEquals(MAX, poll.budgetNanos());
        poll.polled(true, 40 * MICROS);
        assertEquals(MAX, poll.budgetNanos(), "a poll that found work keeps the whole bound");
    }

    @Test
    void aNewBoundIsWhatTheNextHitOrHotWakeUpBuys() {
        AdaptivePoll poll = new AdaptivePoll(MAX);
        poll.polled(true, 10 * MICROS);
        poll.bound(4 * MAX);
        assertEquals(MAX, poll.budgetNanos(), "what was bought stays");
        poll.polled(true, 10 * MICROS);
        assertEquals(4 * MAX, poll.budgetNanos());
        poll.polled(false, 4 * MAX);
        poll.sleeping(0);
        // Hot under the new bound (at most ten of them), not under the old one.
        poll.woke(AdaptivePoll.HOT_SLEEPS * MAX + 1, true);
        assertEquals(2 * MAX, poll.budgetNanos(), "one miss: half the new bound");
    }

    @Test
    void aLongSleepOrAWakeUpForSomethingElseBuysNothing() {
        AdaptivePoll poll = new AdaptivePoll(MAX);
        poll.sleeping(0);
        poll.woke(AdaptivePoll.HOT_SLEEPS * MAX + 1, true);
        assertEquals(0, poll.budgetNanos(), "idle: traffic that came back after a long sleep");
        poll.polled(true, 10 * MICROS);
        poll.sleeping(0);
        poll.woke(10 * MICROS, false);
        assertEquals(0, poll.budgetNanos(), "a task woke the loop: it runs that first");
        poll.woke(20 * MICROS, true);
        assertEquals(0, poll.budgetNanos(), "not asleep: nothing to learn");
    }

    @Test
    void missesHalveWhatAWakeUpBuysUntilItBuysNothing() {
        AdaptivePoll poll = new AdaptivePoll(MAX);
        long spent = 0;
        int polls = 0;
        while (true) {
            poll.sleeping(0);
            poll.woke(500 * MICROS, true); // traffic slower than the bound, hot all the same
            if (poll.budgetNanos() == 0) {
                break;
            }
            spent += poll.budgetNanos();
            polls++;
            poll.polled(false, poll.budgetNanos());
            assertEquals(0, poll.budgetNanos(), "a miss sleeps at once");
        }
        // Polls that find nothing add up to less than twice the bound before the loop stops polling.
        assertTrue(spent < 2 * MAX, "spent " + spent + " ns in " + polls + " empty polls");
        assertTrue(polls <= 7, polls + " empty polls before wake-ups buy nothing");
    }

    @Test
    void aLoopThatStoppedPollingLooksAgainNowAndThen() {
        AdaptivePoll poll = new AdaptivePoll(MAX);
        for (int i = 0; i < 8; i++) {
            poll.polled(false, MAX);
        }
        int withoutPoll = 0;
        while (true) {
            poll.sleeping(0);
            poll.woke(50 * MICROS, true);
            if (poll.budgetNanos() > 0) {
                break;
            }
            withoutPoll++;
        }
        assertEquals(AdaptivePoll.PROBE_INTERVAL - 1, withoutPoll, "hot wake-ups without a poll before a probe");
        assertEquals(MAX, poll.budgetNanos(), "the probe has the whole bound");
        poll.polled(true, 20 * MICROS);
        poll.sleeping(0);
        poll.woke(50 * MICROS, true);
        assertEquals(MAX, poll.budgetNanos(), "the probe paid: polling is back");
    }

    @Test
    void aBoundOfZeroNeverPolls() {
        AdaptivePoll poll = new AdaptivePoll(0);
        poll.sleeping(0);
        poll.woke(1, true);
        assertEquals(0, poll.budgetNanos());
        poll.polled(true, 1);
        assertEquals(0, poll.budgetNanos());
    }
}
