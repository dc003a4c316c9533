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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/** The book of posted send requests: outstanding counts, marks and held buffers, without a device. */
class SendLedgerTest {

    @Test
    void aCompletionCoversEveryRequestBeforeIt() {
        SendLedger ledger = new SendLedger(4);
        assertEquals(0, ledger.add(10, 100));
        assertEquals(1, ledger.add(20, 200));
        assertEquals(2, ledger.add(30, 300));
        assertEquals(3, ledger.outstanding());
        assertTrue(ledger.complete(1), "request 1 signaled, request 0 unsignaled before it");
        assertEquals(1, ledger.outstanding());
        assertTrue(ledger.isCompleted(0));
        assertTrue(ledger.isCompleted(1));
        assertFalse(ledger.isCompleted(2));
        assertEquals(20, ledger.stagingMark(1));
        assertEquals(200, ledger.outboundMark(1));
    }

    @Test
    void aCompletionIsAccountedForOnce() {
        SendLedger ledger = new SendLedger(4);
        ledger.add(0, 0);
        ledger.add(0, 0);
        assertTrue(ledger.complete(1));
        assertFalse(ledger.complete(0), "covered by the completion of 1");
        assertFalse(ledger.complete(1));
        assertFalse(ledger.complete(2), "never posted");
        assertEquals(0, ledger.outstanding());
    }

    @Test
    void theQueueIsFullAtItsDepth() {
        SendLedger ledger = new SendLedger(2);
        assertFalse(ledger.isFull());
        ledger.add(0, 0);
        ledger.add(0, 0);
        assertTrue(ledger.isFull());
        ledger.complete(0);
        assertFalse(ledger.isFull());
        assertEquals(2, ledger.next());
    }

    @Test
    void heldBuffersAreReleasedByTheCompletionThatCoversThem() {
        SendLedger ledger = new SendLedger(4);
        ByteBuf first = Unpooled.buffer(8);
        ByteBuf second = Unpooled.buffer(8);
        ledger.hold(first);
        ledger.add(0, 0);
        ledger.add(0, 0);
        ledger.hold(second);
        ledger.add(0, 0);
        assertTrue(ledger.complete(1));
        assertEquals(0, first.refCnt());
        assertEquals(1, second.refCnt());
        ledger.complete(2);
        assertEquals(0, second.refCnt());
    }

    @Test
    void releasingAtCloseLeavesTheRequestsOutstanding() {
        SendLedger ledger = new SendLedger(4);
        ByteBuf held = Unpooled.buffer(8);
        ledger.hold(held);
        ledger.add(0, 0);
        ledger.releaseHeld();
        assertEquals(0, held.refCnt());
        assertEquals(1, ledger.outstanding(), "the flush completion still arrives");
        assertTrue(ledger.complete(0), "and releases nothing twice");
        assertEquals(0, ledger.outstanding());
    }

    @Test
    void marksWrapAroundTheQueue() {
        SendLedger ledger = new SendLedger(2);
        for (long i = 0; i < 10; i++) {
            assertEquals(i, ledger.add(i * 10, i * 100));
            assertTrue(ledger.complete(i));
            assertEquals(i * 10, ledger.stagingMark(i));
            assertEquals(i * 100, ledger.outboundMark(i));
        }
    }
}
