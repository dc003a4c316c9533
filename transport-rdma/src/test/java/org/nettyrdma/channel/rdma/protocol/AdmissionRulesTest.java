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
package org.nettyrdma.channel.rdma.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;
import org.nettyrdma.channel.rdma.RdmaProtocolException;
import org.nettyrdma.channel.rdma.internal.WorkCompletionStatus;
import org.nettyrdma.channel.rdma.memory.RegisteredMemoryBudget;

/**
 * The rules that bound a peer, without a device: the slots it may use, the reasons a server gives
 * when it refuses, the registered memory limit, and the names of failed work completions.
 */
class AdmissionRulesTest {

    @Test
    void aPeerThatUsesMoreSlotsThanItWasGrantedIsCaught() throws Exception {
        CreditReturn owed = new CreditReturn(4, new ReceiveRing(4096));
        for (int i = 0; i < 4; i++) {
            owed.onPeerUsedSlot();
        }
        // Posted again, but not credited to the peer yet: the fifth message had no slot of its own.
        owed.slotsReposted(4);
        RdmaProtocolException e = assertThrows(RdmaProtocolException.class, owed::onPeerUsedSlot);
        assertTrue(e.getMessage().contains("4 receive slots"), e.getMessage());
    }

    @Test
    void slotsCreditedInAHeaderMayBeUsedAgain() throws Exception {
        CreditReturn owed = new CreditReturn(4, new ReceiveRing(4096));
        for (int i = 0; i < 4; i++) {
            owed.onPeerUsedSlot();
        }
        owed.slotsReposted(2);
        assertEquals(2, owed.takeSlots());
        owed.onPeerUsedSlot();
        owed.onPeerUsedSlot();
        assertThrows(RdmaProtocolException.class, owed::onPeerUsedSlot);
    }

    @Test
    void beforeTheHelloIsAnsweredAPeerMayUseOnlyTheSlotReservedForIt() throws Exception {
        // An accepting side grants one slot, for the peer's HELLO, until it answers.
        CreditReturn owed = new CreditReturn(1, null);
        owed.onPeerUsedSlot();
        RdmaProtocolException e = assertThrows(RdmaProtocolException.class, owed::onPeerUsedSlot);
        assertTrue(e.getMessage().contains("1 receive slots"), e.getMessage());
    }

    @Test
    void theAnsweringHelloGrantsTheRestOfTheShare() throws Exception {
        CreditReturn owed = new CreditReturn(1, null);
        owed.onPeerUsedSlot();
        owed.slotsReposted(1);
        owed.grantInHello(4);
        assertEquals(4, owed.grantedSlots());
        assertEquals(3, owed.peerSlots(), "the HELLO's slot comes back in the first header");
        assertEquals(1, owed.takeSlots());
        for (int i = 0; i < 4; i++) {
            owed.onPeerUsedSlot();
        }
        assertThrows(RdmaProtocolException.class, owed::onPeerUsedSlot);
        assertThrows(IllegalArgumentException.class, () -> owed.grantInHello(2), "a grant never shrinks");
    }

    @Test
    void rejectReasonsRoundTripAndForeignDataIsNoReason() {
        ByteBuffer data = ByteBuffer.allocate(RejectReason.SIZE + 8);
        for (int reason = RejectReason.BACKLOG_FULL; reason <= RejectReason.SERVER_ERROR; reason++) {
            RejectReason.encode(data, reason);
            assertEquals(reason, RejectReason.decode(data, 0, RejectReason.SIZE));
            assertTrue(RejectReason.describe(reason).startsWith("the server") || RejectReason.describe(reason)
                    .startsWith("setting up"), RejectReason.describe(reason));
        }
        assertEquals(0, RejectReason.decode(data, 0, RejectReason.SIZE - 1), "too short");
        data.put(0, (byte) 'X');
        assertEquals(0, RejectReason.decode(data, 0, RejectReason.SIZE), "another program's private data");
        assertNull(RejectReason.describe(0));
        assertTrue(RejectReason.describe(RejectReason.BACKLOG_FULL).contains("backlog"));
        assertTrue(RejectReason.describe(RejectReason.REGISTERED_MEMORY_LIMIT).contains("registered memory"));
    }

    @Test
    void theBudgetRefusesWhatWouldPassTheLimitAndSaysWhy() {
        long free = RegisteredMemoryBudget.limit() - RegisteredMemoryBudget.used();
        long refused = RegisteredMemoryBudget.refused();
        assertFalse(RegisteredMemoryBudget.tryReserve(free + 1));
        assertEquals(refused + 1, RegisteredMemoryBudget.refused());
        assertTrue(RegisteredMemoryBudget.tryReserve(free));
        RegisteredMemoryBudget.release(free);
        String message = RegisteredMemoryBudget.refusal("a connection", 2 << 20).getMessage();
        assertTrue(message.contains("registered memory limit reached") && message.contains("2.00 MiB")
                && message.contains(RegisteredMemoryBudget.LIMIT_PROPERTY), message);
    }

    @Test
    void failedCompletionsAreNamed() {
        assertTrue(WorkCompletionStatus.describe(WorkCompletionStatus.REM_ACCESS_ERR)
                .startsWith("remote access error"));
        assertTrue(WorkCompletionStatus.describe(12).contains("IBV_WC_RETRY_EXC_ERR"));
        assertEquals("status 99", WorkCompletionStatus.name(99));
    }
}
