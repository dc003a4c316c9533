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

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Which send requests of a chain are signaled, without a device. */
class SendSignalsTest {

    @Test
    void signalsOnceTheIntervalWentUnsignaled() {
        SendSignals signals = new SendSignals(100);
        assertFalse(signals.added(40));
        assertFalse(signals.added(59));
        assertTrue(signals.added(1), "the request that reaches the interval is signaled");
        assertFalse(signals.added(99), "the count starts over after a signal");
        assertTrue(signals.added(1));
    }

    @Test
    void aLargeRequestIsSignaledAtOnce() {
        SendSignals signals = new SendSignals(100);
        assertTrue(signals.added(1_000));
        assertFalse(signals.added(0));
    }

    @Test
    void aPostStartsTheCountOver() {
        SendSignals signals = new SendSignals(100);
        assertFalse(signals.added(90));
        signals.posted();
        assertFalse(signals.added(90), "the last request of the posted chain was signaled");
        assertTrue(signals.added(10));
    }

    @Test
    void requestsWithoutPayloadAreNeverSignaledByTheInterval() {
        SendSignals signals = new SendSignals();
        for (int i = 0; i < 1_000; i++) {
            assertFalse(signals.added(0));
        }
        assertTrue(signals.added(SendSignals.INTERVAL_BYTES));
    }
}
