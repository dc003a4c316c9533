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

/**
 * How long an event loop polls its completion queues, once it has run out of work, before it arms
 * them and sleeps (docs/decisions.md#adaptive-polling).
 *
 * <p>A completion that a poll finds costs nothing more; one that wakes the loop costs the completion
 * channel's event, the re-arm and a thread switch, which can take longer than the round trip that
 * brought it. So a loop with traffic polls for up to the bound: after a poll that found work, and
 * after a wake-up that brought work soon after the loop went to sleep ({@link #HOT_SLEEPS} bounds
 * or less: what a wake-up measures includes its own cost, so a gap longer than the bound may still
 * be one a poll would catch). Each poll that runs out empty halves what the next wake-up buys, down
 * to nothing after about seven: traffic that comes slower than the bound stops costing polls. Then
 * every {@link #PROBE_INTERVAL}th hot wake-up buys the whole bound once more, to learn whether the
 * traffic got faster. A wake-up after a longer sleep, or for something other than completions (a
 * task, a timer), buys nothing: an idle loop costs no CPU.
 *
 * <p>Not thread-safe: used on its loop's thread only.
 */
public final class AdaptivePoll {

    /** Below this a budget is not worth a poll: it is dropped to none. */
    static final long MIN_BUDGET_NANOS = 1_000;
    /** A wake-up with work after a sleep of at most this many bounds is hot: the traffic may be polled for. */
    static final int HOT_SLEEPS = 10;
    /** Hot wake-ups that buy nothing before one buys the whole bound again. */
    static final int PROBE_INTERVAL = 64;
    /** Past this many misses in a row, halving leaves nothing of any bound. */
    private static final int MAX_SHIFT = 62;

    private long maxNanos;
    private long budgetNanos;
    /** Polls in a row that ran out empty. */
    private int misses;
    /** Hot wake-ups since the last one that bought a poll. */
    private int wakeUpsWithoutPoll;
    /** When the loop last went to sleep with its queues armed; -1 while it is not sleeping. */
    private long sleptAt = -1;

    /** Creates the budget of a loop that polls for at most {@code maxNanos} at a time. */
    public AdaptivePoll(long maxNanos) {
        if (maxNanos < 0) {
            throw new IllegalArgumentException("maxNanos: " + maxNanos + " (expected: >= 0)");
        }
        this.maxNanos = maxNanos;
    }

    /**
     * Makes {@code maxNanos} the bound from now on; what the last poll or wake-up bought stays as it is.
     * Called while the default bound is still being learned ({@link WakeUpLatency}).
     */
    public void bound(long maxNanos) {
        if (maxNanos < 0) {
            throw new IllegalArgumentException("maxNanos: " + maxNanos + " (expected: >= 0)");
        }
        this.maxNanos = maxNanos;
    }

    /** Returns how long the next poll may run; 0 when the loop should sleep at once. */
    public long budgetNanos() {
        return budgetNanos;
    }

    /** A poll ran for {@code spentNanos} and found completions, or ran out ({@code found} false). */
    public void polled(boolean found, long spentNanos) {
        if (found) {
            misses = 0;
            budgetNanos = maxNanos >= MIN_BUDGET_NANOS ? maxNanos : 0;
        } else {
            misses = Math.min(MAX_SHIFT, misses + 1);
            // Sleep now; what the next wake-up buys has halved.
            budgetNanos = 0;
        }
    }

    /** The loop armed its queues and sleeps from {@code now} on. */
    public void sleeping(long now) {
        sleptAt = now;
    }

    /**
     * The loop woke at {@code now}: with completions ({@code withWork}) after the gap since it went to
     * sleep, or for something else (a task, another fd), which says nothing about the traffic.
     */
    public void woke(long now, boolean withWork) {
        if (sleptAt < 0) {
            return;
        }
        long slept = now - sleptAt;
        sleptAt = -1;
        if (!withWork || slept > HOT_SLEEPS * maxNanos) {
            // Idle, or woken for a task: a poll now would only delay what woke the loop.
            budgetNanos = 0;
            return;
        }
        long budget = maxNanos >> misses;
        if (budget < MIN_BUDGET_NANOS) {
            if (++wakeUpsWithoutPoll < PROBE_INTERVAL) {
                budgetNanos = 0;
                return;
            }
            // Look again whether polling pays: the traffic may have got faster.
            budget = maxNanos;
        }
        wakeUpsWithoutPoll = 0;
        budgetNanos = budget >= MIN_BUDGET_NANOS ? budget : 0;
    }
}
