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
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The loop's tunables: defaults, validation, and the copy a factory takes. */
class RdmaIoHandlerConfigTest {

    @Test
    void defaultsDoNotBusyPoll() {
        RdmaIoHandlerConfig config = new RdmaIoHandlerConfig();
        assertEquals(RdmaIoHandlerConfig.DEFAULT_COMPLETION_QUEUE_ENTRIES, config.getCompletionQueueEntries());
        assertEquals(RdmaIoHandlerConfig.DEFAULT_POLL_BUDGET, config.getPollBudget());
        assertEquals(0, config.getBusyPollMicros());
    }

    @Test
    void theDefaultAdaptiveBoundFollowsTheMachinesWakeUpsWithinItsLimits() {
        RdmaIoHandlerConfig defaults = new RdmaIoHandlerConfig();
        assertTrue(defaults.followsWakeUps());
        int bound = defaults.getAdaptivePollMicros();
        assertTrue(bound >= RdmaIoHandlerConfig.DEFAULT_ADAPTIVE_POLL_MICROS
                && bound <= RdmaIoHandlerConfig.MAX_DEFAULT_ADAPTIVE_POLL_MICROS, String.valueOf(bound));
        // A bound that is set is kept, even below the default's least, and a copy keeps it.
        RdmaIoHandlerConfig set = new RdmaIoHandlerConfig().setAdaptivePollMicros(40);
        assertFalse(set.followsWakeUps());
        assertEquals(40, new RdmaIoHandlerConfig(set).getAdaptivePollMicros());
        assertEquals(0, set.setAdaptivePollMicros(0).getAdaptivePollMicros());
        assertTrue(new RdmaIoHandlerConfig().toString().contains("adaptivePollMicros: default"));
    }

    @Test
    void settersChainAndKeepTheirValues() {
        RdmaIoHandlerConfig config = new RdmaIoHandlerConfig();
        assertSame(config, config.setCompletionQueueEntries(4096).setPollBudget(64).setBusyPollMicros(500));
        assertEquals(4096, config.getCompletionQueueEntries());
        assertEquals(64, config.getPollBudget());
        assertEquals(500, config.getBusyPollMicros());
    }

    @Test
    void rejectsValuesOutOfRange() {
        RdmaIoHandlerConfig config = new RdmaIoHandlerConfig();
        assertThrows(IllegalArgumentException.class, () -> config.setCompletionQueueEntries(0));
        assertThrows(IllegalArgumentException.class, () -> config.setPollBudget(0));
        assertThrows(IllegalArgumentException.class, () -> config.setBusyPollMicros(-1));
        // A refused value leaves the old one.
        assertEquals(RdmaIoHandlerConfig.DEFAULT_POLL_BUDGET, config.getPollBudget());
    }

    @Test
    void aCopyDoesNotFollowTheOriginal() {
        RdmaIoHandlerConfig original = new RdmaIoHandlerConfig().setBusyPollMicros(100);
        RdmaIoHandlerConfig copy = new RdmaIoHandlerConfig(original);
        original.setBusyPollMicros(200).setPollBudget(32).setCompletionQueueEntries(1024);
        assertEquals(100, copy.getBusyPollMicros());
        assertEquals(RdmaIoHandlerConfig.DEFAULT_POLL_BUDGET, copy.getPollBudget());
        assertEquals(RdmaIoHandlerConfig.DEFAULT_COMPLETION_QUEUE_ENTRIES, copy.getCompletionQueueEntries());
    }
}
