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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * A chain closed with its connection has freed its memory: appending to it or signalling in it
 * throws instead of writing there, posting it posts nothing, and closing it again does nothing.
 */
class WorkRequestsCloseTest {

    @Test
    void aClosedChainTakesNoRequest() throws Exception {
        WorkRequests sends = WorkRequests.sends(4);
        sends.addSend(1, WorkRequests.OPCODE_SEND, 0, 0, 0, 0, 0, 0, 0);
        sends.close();
        assertEquals(0, sends.count(), "requests left in a closed chain");
        assertThrows(IllegalStateException.class,
                () -> sends.addSend(2, WorkRequests.OPCODE_SEND, 0, 0, 0, 0, 0, 0, 0));
        assertThrows(IllegalStateException.class, () -> sends.signalLast(true));
        sends.post(0);
        sends.close();

        WorkRequests receives = WorkRequests.receives(4);
        receives.close();
        assertThrows(IllegalStateException.class, () -> receives.addReceive(1, 0, 64, 0));
    }
}
