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

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.nettyrdma.channel.rdma.protocol.RdmaProtocol;

/** The queue of received messages: order, pieces, reuse and the end of input, without a device. */
class InboundQueueTest {

    /** A ring with no memory: the queue only carries it with its regions. */
    private static final OfferedRing RING = new OfferedRing(1, 4096, null, (ring, token) -> { });

    @Test
    void messagesAreReadInOrderAndInPieces() {
        InboundQueue queue = new InboundQueue();
        assertTrue(queue.isEmpty());
        assertNull(queue.peek());
        queue.addSlot(RdmaProtocol.TYPE_DATA, 3, 1000, 10);
        queue.addRegion(RING, 64, 100, 7);
        InboundQueue.Message send = queue.peek();
        assertEquals(3, send.slot());
        assertEquals(-1, send.token());
        assertFalse(queue.consume(send, 4));
        assertEquals(1004, send.readOffset());
        assertEquals(6, send.remaining());
        assertTrue(queue.consume(send, 6));
        queue.recycle();
        InboundQueue.Message write = queue.peek();
        assertEquals(-1, write.slot());
        assertEquals(7, write.token());
        assertSame(RING, write.ring());
        assertEquals(64, write.readOffset());
        assertTrue(queue.consume(write, 100));
        queue.recycle();
        assertTrue(queue.isEmpty());
    }

    @Test
    void recordsAreReusedAndStartClean() {
        InboundQueue queue = new InboundQueue();
        queue.addRegion(RING, 0, 50, 1);
        InboundQueue.Message first = queue.peek();
        queue.consume(first, 50);
        queue.recycle();
        queue.addSlot(RdmaProtocol.TYPE_DATA, 2, 200, 20);
        InboundQueue.Message again = queue.peek();
        assertSame(first, again);
        assertEquals(20, again.remaining());
        assertEquals(200, again.readOffset());
        assertEquals(-1, again.token());
        assertNull(again.ring(), "a recycled record keeps no ring");
        assertEquals(2, again.slot());
    }

    @Test
    void theEndOfInputIsSeenOnlyAtTheHead() {
        InboundQueue queue = new InboundQueue();
        assertFalse(queue.endOfInputIsNext());
        queue.addSlot(RdmaProtocol.TYPE_DATA, 0, 0, 1);
        queue.addSlot(RdmaProtocol.TYPE_SHUTDOWN_OUTPUT, 1, 0, 0);
        assertFalse(queue.endOfInputIsNext());
        queue.consume(queue.peek(), 1);
        queue.recycle();
        assertTrue(queue.endOfInputIsNext());
        assertEquals(RdmaProtocol.TYPE_SHUTDOWN_OUTPUT, queue.peek().type());
    }

    @Test
    void readingPastTheMessageIsRefused() {
        InboundQueue queue = new InboundQueue();
        queue.addSlot(RdmaProtocol.TYPE_DATA, 0, 0, 5);
        InboundQueue.Message message = queue.peek();
        assertThrows(IllegalArgumentException.class, () -> queue.consume(message, 6));
        assertThrows(IllegalArgumentException.class, () -> queue.consume(message, -1));
        assertEquals(5, message.remaining());
    }

    @Test
    void clearDropsEverything() {
        InboundQueue queue = new InboundQueue();
        queue.addRegion(RING, 0, 1, 0);
        queue.addSlot(RdmaProtocol.TYPE_CLOSE, 5, 0, 0);
        List<Integer> released = new ArrayList<>();
        queue.clear(released::add, loan -> { throw new AssertionError("no slot was lent"); });
        assertEquals(List.of(5), released, "the slot a message waited in is given back, a region is not");
        assertTrue(queue.isEmpty());
        assertFalse(queue.endOfInputIsNext());
    }
}
