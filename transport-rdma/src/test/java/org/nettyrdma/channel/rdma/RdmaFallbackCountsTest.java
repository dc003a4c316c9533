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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.TimeUnit;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import org.junit.jupiter.api.Test;

class RdmaFallbackCountsTest {

    private static long[] counts(long noRoute, long peerUsedTcp) {
        long[] counts = new long[RdmaFallbackReason.values().length];
        counts[RdmaFallbackReason.NO_ROUTE.ordinal()] = noRoute;
        counts[RdmaFallbackReason.PEER_USED_TCP.ordinal()] = peerUsedTcp;
        return counts;
    }

    @Test
    void countsAddUpReasonByReason() {
        RdmaFallbackCounts sum = new RdmaFallbackCounts(counts(2, 0)).plus(new RdmaFallbackCounts(counts(1, 5)));
        assertEquals(3, sum.count(RdmaFallbackReason.NO_ROUTE));
        assertEquals(5, sum.count(RdmaFallbackReason.PEER_USED_TCP));
        assertEquals(0, sum.count(RdmaFallbackReason.NO_RDMA_LISTENER));
        assertEquals(8, sum.total());
        assertEquals(new RdmaFallbackCounts(counts(3, 5)), sum);
    }

    @Test
    void aSnapshotDoesNotFollowTheArrayItWasMadeOf() {
        long[] counts = counts(1, 0);
        RdmaFallbackCounts snapshot = new RdmaFallbackCounts(counts);
        counts[RdmaFallbackReason.NO_ROUTE.ordinal()]++;
        assertEquals(1, snapshot.count(RdmaFallbackReason.NO_ROUTE));
    }

    @Test
    void toStringNamesTheReasonsCounted() {
        assertEquals("RdmaFallbackCounts(NO_ROUTE: 2, PEER_USED_TCP: 5)", new RdmaFallbackCounts(counts(2, 5)).toString());
        assertEquals("RdmaFallbackCounts()", RdmaFallbackCounts.NONE.toString());
    }

    @Test
    void countsOfAnotherLengthAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new RdmaFallbackCounts(new long[1]));
        assertEquals("counts: 1 (expected: " + RdmaFallbackReason.values().length
                + ", one per RdmaFallbackReason)", e.getMessage());
    }

    @Test
    void aGroupOfOtherLoopsCountsNone() {
        EventLoopGroup nio = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            assertEquals(RdmaFallbackCounts.NONE, RdmaIoHandler.fallbacks(nio));
        } finally {
            nio.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
