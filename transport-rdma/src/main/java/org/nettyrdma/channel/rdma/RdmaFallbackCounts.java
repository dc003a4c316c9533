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

import java.util.Arrays;

/**
 * How many channels fell back to TCP, by {@link RdmaFallbackReason}: those of one event loop
 * ({@link RdmaLoopMetrics#fallbacks()}) or of a whole event loop group
 * ({@link RdmaIoHandler#fallbacks(io.netty.channel.EventLoopGroup)}). A client's fallback counts on the
 * channel's own loop, an accepted TCP connection ({@link RdmaFallbackReason#PEER_USED_TCP}) on the loop
 * of the server channel that accepted it. An immutable snapshot: two can be subtracted for a rate.
 */
public final class RdmaFallbackCounts {

    private static final RdmaFallbackReason[] REASONS = RdmaFallbackReason.values();
    static final RdmaFallbackCounts NONE = new RdmaFallbackCounts(new long[REASONS.length]);

    /** By the reason's ordinal. */
    private final long[] counts;

    /**
     * Creates a snapshot of {@code countsByOrdinal}, copied: the count of each reason at its
     * {@link RdmaFallbackReason#ordinal()}. The transport takes them with {@link RdmaLoopMetrics#fallbacks()}.
     */
    public RdmaFallbackCounts(long[] countsByOrdinal) {
        if (countsByOrdinal.length != REASONS.length) {
            throw new IllegalArgumentException("counts: " + countsByOrdinal.length + " (expected: "
                    + REASONS.length + ", one per RdmaFallbackReason)");
        }
        counts = countsByOrdinal.clone();
    }

    /** Returns how many channels fell back to TCP for {@code reason}. */
    public long count(RdmaFallbackReason reason) {
        return counts[reason.ordinal()];
    }

    /** Returns how many channels fell back to TCP, for any reason. */
    public long total() {
        long total = 0;
        for (long count : counts) {
            total += count;
        }
        return total;
    }

    /** Returns these counts and {@code other}'s added, reason by reason. */
    public RdmaFallbackCounts plus(RdmaFallbackCounts other) {
        long[] sum = counts.clone();
        for (int i = 0; i < sum.length; i++) {
            sum[i] += other.counts[i];
        }
        return new RdmaFallbackCounts(sum);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RdmaFallbackCounts && Arrays.equals(counts, ((RdmaFallbackCounts) o).counts);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(counts);
    }

    /** Lists the reasons counted at least once, e.g. {@code RdmaFallbackCounts(NO_ROUTE: 2, PEER_USED_TCP: 5)}. */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("RdmaFallbackCounts(");
        String separator = "";
        for (RdmaFallbackReason reason : REASONS) {
            if (counts[reason.ordinal()] != 0) {
                text.append(separator).append(reason).append(": ").append(counts[reason.ordinal()]);
                separator = ", ";
            }
        }
        return text.append(')').toString();
    }
}
