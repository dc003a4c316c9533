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

/**
 * How long an event loop polls its completion queues, once it has run out of work, before it arms
 * them and sleeps: a budget that follows the gaps the loop sees between its completions
 * (docs/decisions.md#adaptive-polling).
 *
 * <p>A completion that a poll finds costs nothing more; one that wakes the loop costs the completion
 * channel's event, the re-arm and a thread switch. So the budget covers twice the gap the loop last
 * saw, found by polling or waking up, as long as that gap is below the bound: traffic that comes
 * back sooner than the bound is met by polling. Each poll that runs out empty halves the budget, and
 * a sleep longer than the bound ends it: once traffic stops, or comes slower than the bound, the
 * loop stops polling after a few misses whose time adds up to about twice the budget, and a loop
 * woken later for a task or a timer does not poll first, so an idle loop costs nothing.
 *
 * <p>Not thread-safe: used on its loop's thread only.
 */
public final class AdaptivePoll {

    /** Below this a budget is not worth a poll: it is dropped to none. */
    static final long MIN_BUDGET_NANOS = 1_000;

    private final long maxNanos;
    private long budgetNanos;
    /** When the loop last went to sleep with its queues armed; -1 while it is not sleeping. */
    private long sleptAt = -1;

    /** Creates the budget of a loop that polls for at most {@code maxNanos} at a time. */
    public AdaptivePoll(long maxNanos) {
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
            gapSeen(spentNanos);
        } else {
            budgetNanos /= 2;
            if (budgetNanos < MIN_BUDGET_NANOS) {
                budgetNanos = 0;
            }
        }
    }

    /** The loop armed its queues and sleeps from {@code now} on. */
    public void sleeping(long now) {
        sleptAt = now;
    }

    /**
     * The loop woke at {@code now}: with completions ({@code withWork}) after the gap since it went to
     * sleep, or for something else (a task, another fd), which says nothing about the gaps.
     */
    public void woke(long now, boolean withWork) {
        if (sleptAt < 0) {
            return;
        }
        long gap = now - sleptAt;
        sleptAt = -1;
        if (gap > maxNanos) {
            // Asleep past the bound: the traffic the budget was for has stopped or slowed, and a poll
            // now would only delay what woke the loop.
            budgetNanos = 0;
        } else if (withWork) {
            gapSeen(gap);
        }
    }

    private void gapSeen(long gapNanos) {
        if (gapNanos > maxNanos) {
            return; // slower than polling pays for: a miss will shrink the budget
        }
        budgetNanos = Math.min(maxNanos, Math.max(budgetNanos, Math.max(MIN_BUDGET_NANOS, 2 * gapNanos)));
    }
}
