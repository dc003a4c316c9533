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
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.nettyrdma.channel.rdma.connection.ConnectionCounters;

/** How the connection's counts become {@link RdmaChannelMetrics}: which bytes count as copied, and snapshots. */
class RdmaChannelMetricsTest {

    @Test
    void sendsAlwaysCopyAndWritesOnlyWhenTheBufferWasNotRegistered() {
        ConnectionCounters counters = new ConnectionCounters();
        counters.sent(100);
        counters.wrote(65536, false);
        counters.wrote(1000, true);
        RdmaChannelMetrics metrics = new RdmaChannelMetrics(counters, 4096, 1024, 128);

        assertEquals(1, metrics.sends());
        assertEquals(100, metrics.sendBytes());
        assertEquals(2, metrics.rdmaWrites());
        assertEquals(66536, metrics.rdmaWriteBytes());
        assertEquals(1100, metrics.copiedBytes(), "the Send's payload and the copied Write");
        assertEquals(4096, metrics.registeredBytes());
        assertEquals(1024, metrics.stagingBytes());
        assertEquals(128, metrics.maxInlineData());
    }

    @Test
    void aSnapshotDoesNotMoveWithTheCounters() {
        ConnectionCounters counters = new ConnectionCounters();
        counters.receivedSend(10);
        counters.receivedWrite(20);
        RdmaChannelMetrics before = new RdmaChannelMetrics(counters, 0, 0, 0);
        counters.receivedWrite(30);
        counters.creditStalls++;

        assertEquals(30, before.receivedBytes());
        assertEquals(1, before.receivedWrites());
        assertEquals(0, before.creditStalls());
        RdmaChannelMetrics after = new RdmaChannelMetrics(counters, 0, 0, 0);
        assertEquals(60, after.receivedBytes());
        assertTrue(after.toString().contains("credit stalls: 1"), after.toString());
    }

    @Test
    void aChannelNeverConnectedReportsZeros() {
        assertEquals(0, RdmaChannelMetrics.NONE.sends() + RdmaChannelMetrics.NONE.receivedBytes()
                + RdmaChannelMetrics.NONE.registeredBytes() + RdmaChannelMetrics.NONE.maxInlineData());
    }
}
