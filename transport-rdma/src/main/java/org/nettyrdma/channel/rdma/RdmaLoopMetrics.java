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
package org.nettyrdma.channel.rdma;

/**
 * What an RDMA event loop did with its completion queues so far, for all of its channels together:
 * how often a completion channel woke it, how many completions it dispatched, how often it armed a
 * queue before waiting, and how its polling fared (adaptive or fixed: {@link RdmaIoHandlerConfig}). Taken by
 * {@link RdmaSocketChannel#loopMetrics()}; an immutable snapshot, so two can be subtracted for a rate.
 * Wake-ups per completion is the figure to watch for latency: each one is a thread switch and
 * system calls, which busy polling and the loop's lazy arming of its queues avoid. The loop's
 * channels that fell back to TCP are counted here too ({@link #fallbacks()}).
 */
public final class RdmaLoopMetrics {

    static final RdmaLoopMetrics NONE = new RdmaLoopMetrics(0, 0, 0, 0, 0, 0, RdmaReceiveQueueMetrics.NONE,
            RdmaFallbackCounts.NONE);

    private final long wakeUps;
    private final long completions;
    private final long arms;
    private final long busyPolls;
    private final long busyPollHits;
    private final long busyPollNanos;
    private final RdmaReceiveQueueMetrics receiveQueues;
    private final RdmaFallbackCounts fallbacks;

    /** Creates a snapshot of these counts; the transport takes them with {@link RdmaSocketChannel#loopMetrics()}. */
    public RdmaLoopMetrics(long wakeUps, long completions, long arms, long busyPolls, long busyPollHits,
                           long busyPollNanos, RdmaReceiveQueueMetrics receiveQueues, RdmaFallbackCounts fallbacks) {
        this.receiveQueues = receiveQueues;
        this.fallbacks = fallbacks;
        this.wakeUps = wakeUps;
        this.completions = completions;
        this.arms = arms;
        this.busyPolls = busyPolls;
        this.busyPollHits = busyPollHits;
        this.busyPollNanos = busyPollNanos;
    }

    /** Returns how often a completion channel's event woke the loop. */
    public long wakeUps() {
        return wakeUps;
    }

    /** Returns the work completions the loop dispatched, sends and receives, however they were found. */
    public long completions() {
        return completions;
    }

    /** Returns how often the loop armed a completion queue (asked for an event) before it waited. */
    public long arms() {
        return arms;
    }

    /** Returns how often the loop spun on its completion queues before waiting; 0 without polling. */
    public long busyPolls() {
        return busyPolls;
    }

    /** Returns how many of those spins found a completion before their time was up. */
    public long busyPollHits() {
        return busyPollHits;
    }

    /**
     * Returns the nanoseconds the loop spent in those spins: polling queues that had nothing for it
     * yet, the CPU its polling cost beyond the work it found.
     */
    public long busyPollNanos() {
        return busyPollNanos;
    }

    /**
     * Returns the receives of the loop's receive queues, its shared ones and its connections' own: a
     * snapshot taken on the loop is exact, one taken elsewhere may lag.
     */
    public RdmaReceiveQueueMetrics receiveQueues() {
        return receiveQueues;
    }

    /**
     * Returns the loop's channels that fell back to TCP, by reason: its clients', and the TCP
     * connections its server channels accepted.
     */
    public RdmaFallbackCounts fallbacks() {
        return fallbacks;
    }

    @Override
    public String toString() {
        return "RdmaLoopMetrics(wakeUps: " + wakeUps + ", completions: " + completions + ", arms: " + arms
                + ", busyPolls: " + busyPolls + ", busyPollHits: " + busyPollHits + ", busyPollNanos: "
                + busyPollNanos + ", " + receiveQueues + ", " + fallbacks + ')';
    }
}
