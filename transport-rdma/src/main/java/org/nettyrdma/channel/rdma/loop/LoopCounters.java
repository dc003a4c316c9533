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

import org.nettyrdma.channel.rdma.RdmaFallbackCounts;
import org.nettyrdma.channel.rdma.RdmaFallbackReason;
import org.nettyrdma.channel.rdma.RdmaLoopMetrics;
import org.nettyrdma.channel.rdma.RdmaReceiveQueueMetrics;

/**
 * The counts behind {@link RdmaLoopMetrics}, kept by one event loop: plain fields, since only the
 * loop writes them; a reader on another thread may see a lagging snapshot.
 */
final class LoopCounters {

    long wakeUps;
    long completions;
    long arms;
    long busyPolls;
    long busyPollHits;
    long busyPollNanos;
    /** The loop's channels that fell back to TCP, by {@link RdmaFallbackReason#ordinal()}. */
    final long[] fallbacks = new long[RdmaFallbackReason.values().length];

    /** Returns the counts so far as an immutable snapshot, with the loop's shared receives as {@code receives}. */
    public RdmaLoopMetrics snapshot(RdmaReceiveQueueMetrics receives) {
        return new RdmaLoopMetrics(wakeUps, completions, arms, busyPolls, busyPollHits, busyPollNanos, receives,
                new RdmaFallbackCounts(fallbacks));
    }
}
