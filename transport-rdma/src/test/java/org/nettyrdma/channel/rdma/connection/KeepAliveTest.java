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

/** The keep-alive's idle check, without a device. */
class KeepAliveTest {

    @Test
    void aConnectionIsIdleWhenNothingCompletedSinceTheLastLook() {
        KeepAlive keepAlive = new KeepAlive();
        assertTrue(keepAlive.idleSinceLastLook());
        keepAlive.completed();
        assertFalse(keepAlive.idleSinceLastLook());
        assertTrue(keepAlive.idleSinceLastLook());
    }

    @Test
    void theProbesOwnCompletionIsNoActivity() {
        KeepAlive keepAlive = new KeepAlive();
        assertTrue(keepAlive.idleSinceLastLook());
        keepAlive.probed();
        keepAlive.completed(); // the probe's
        assertTrue(keepAlive.idleSinceLastLook(), "only the probe completed: still idle");
    }

    @Test
    void activityBesideTheProbeCounts() {
        KeepAlive keepAlive = new KeepAlive();
        keepAlive.idleSinceLastLook();
        keepAlive.probed();
        keepAlive.completed(); // the probe's
        keepAlive.completed(); // the peer's
        assertFalse(keepAlive.idleSinceLastLook());
    }
}
