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
package org.nettyrdma.channel.rdma.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The budget of {@link AdaptivePoll}: what it learns from gaps, wake-ups and polls that ran out. */
class AdaptivePollTest {

    private static final long MICROS = 1_000;
    private static final long MAX = 100 * MICROS;

    @Test
    void aLoopThatSawNoWorkDoesNotPoll() {
        assertEquals(0, new AdaptivePoll(MAX).budgetNanos());
    }

    @Test
    void aWakeUpSoonerThanTheBoundBuysTwiceItsGap() {
        AdaptivePoll poll = new AdaptivePoll(MAX);
        poll.sleeping(0);
        poll.woke(30 * MICROS, true);
        assertEquals(60 * MICROS, poll.budgetNanos());
        // A poll that found work after 40 us: the budget covers twice that.
        poll.polled(true, 40 * MICROS);
        assertEquals(80 * MICROS, poll.budgetNanos());
        // Never beyond the bound.
        poll.polled(true, 90 * MICROS);
        assertEquals(MAX, poll.budgetNanos());
    }

    @Test
    void gapsLongerThanTheBoundAndWakeUpsForOtherThingsTeachNothing() {
        AdaptivePoll poll = new AdaptivePoll(MAX);
        poll.sleeping(0);
        poll.woke(MAX + 1, true);
        assertEquals(0, poll.budgetNanos(), "traffic slower than the bound");
        poll.sleeping(0);
        poll.woke(10 * MICROS, false);
        assertEquals(0, poll.budgetNanos(), "a task woke the loop");
        poll.woke(20 * MICROS, true);
        assertEquals(0, poll.budgetNanos(), "not asleep: no gap to measure");
    }

    @Test
    void aSleepPastTheBoundEndsTheBudget() {
        AdaptivePoll poll = new AdaptivePoll(MAX);
        poll.polled(true, 40 * MICROS);
        poll.sleeping(0);
        poll.woke(MAX + 1, false);
        assertEquals(0, poll.budgetNanos(), "woken for a task long after the traffic stopped");
        poll.polled(true, 40 * MICROS);
        poll.sleeping(0);
        poll.woke(10 * MICROS, false);
        assertEquals(80 * MICROS, poll.budgetNanos(), "woken for a task soon: the budget stays");
    }

    @Test
    void pollsThatRunOutHalveTheBudgetToNothing() {
        AdaptivePoll poll = new AdaptivePoll(MAX);
        poll.polled(true, MAX);
        long spent = 0;
        int misses = 0;
        while (poll.budgetNanos() > 0) {
            spent += poll.budgetNanos();
            poll.polled(false, poll.budgetNanos());
            misses++;
        }
        // Once traffic stops, the polls that find nothing add up to less than twice the bound.
        assertTrue(spent < 2 * MAX, "spent " + spent + " ns in " + misses + " empty polls");
        assertTrue(misses <= 7, misses + " empty polls before the loop sleeps at once");
    }

    @Test
    void aGapOfNothingStillBuysTheSmallestBudget() {
        AdaptivePoll poll = new AdaptivePoll(MAX);
        poll.polled(true, 0);
        assertEquals(AdaptivePoll.MIN_BUDGET_NANOS, poll.budgetNanos());
    }

    @Test
    void aBoundOfZeroNeverPolls() {
        AdaptivePoll poll = new AdaptivePoll(0);
        poll.sleeping(0);
        poll.woke(1, true);
        poll.polled(true, 1);
        assertEquals(0, poll.budgetNanos());
    }
}
