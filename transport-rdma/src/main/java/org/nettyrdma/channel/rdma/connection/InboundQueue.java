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

import java.util.ArrayDeque;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

import org.nettyrdma.channel.rdma.protocol.RdmaProtocol;

/**
 * The received messages of a connection waiting for the pipeline, in arrival order, with how much of
 * the message at the head was read. A message is a Send's payload in its receive slot, a region of
 * the ring a Write landed in, or a {@code SHUTDOWN_OUTPUT} or {@code CLOSE}. Records are recycled, so
 * the steady state allocates nothing.
 *
 * <p>Not thread-safe: used on the channel's event loop only.
 */
final class InboundQueue {

    /** A received message waiting for the pipeline. */
    static final class Message {
        private int type;
        private int slot;
        private int payloadOffset;
        private int length;
        private int consumed;
        private long token;
        private OfferedRing ring;
        /** The slot's loan once a piece of it went up in place, else {@code null}. */
        private SlotLoans.Loan loan;

        /** Returns the slot's loan, once a piece of it went up in place; else {@code null}. */
        SlotLoans.Loan loan() {
            return loan;
        }

        /** Records that pieces of the slot go up in place under {@code loan}. */
        void lent(SlotLoans.Loan loan) {
            this.loan = loan;
        }

        /** Returns the message type ({@link RdmaProtocol#TYPE_DATA} or the end of input). */
        int type() {
            return type;
        }

        /** Returns the receive slot that holds it, or -1 for a ring region. */
        int slot() {
            return slot;
        }

        /** Returns the ring region's token, or -1 for a message in a slot. */
        long token() {
            return token;
        }

        /** Returns the ring the region is in, or {@code null} for a message in a slot. */
        OfferedRing ring() {
            return ring;
        }

        /** Returns where its unread bytes start, in the slots' or the ring's memory. */
        int readOffset() {
            return payloadOffset + consumed;
        }

        /** Returns the bytes not read yet. */
        int remaining() {
            return length - consumed;
        }
    }

    private final ArrayDeque<Message> queue = new ArrayDeque<>();
    private final ArrayDeque<Message> spare = new ArrayDeque<>();

    /** Queues a message received in {@code slot}: data, or an end of input with no payload. */
    void addSlot(int type, int slot, int payloadOffset, int length) {
        queue.add(fill(type, slot, payloadOffset, length, null, -1));
    }

    /**
     * Queues the data a Write put into the region of {@code token} of {@code ring}, which holds the
     * ring's memory until it is read or the queue cleared.
     */
    void addRegion(OfferedRing ring, int payloadOffset, int length, long token) {
        queue.add(fill(RdmaProtocol.TYPE_DATA, -1, payloadOffset, length, ring, token));
    }

    private Message fill(int type, int slot, int payloadOffset, int length, OfferedRing ring, long token) {
        Message message = spare.poll();
        if (message == null) {
            message = new Message();
        }
        message.type = type;
        message.slot = slot;
        message.payloadOffset = payloadOffset;
        message.length = length;
        message.consumed = 0;
        message.token = token;
        message.ring = ring;
        message.loan = null;
        return message;
    }

    /** Returns {@code true} if no message waits. */
    boolean isEmpty() {
        return queue.isEmpty();
    }

    /** Returns the message at the head, or {@code null}. */
    Message peek() {
        return queue.peek();
    }

    /** Returns {@code true} if the message at the head is the end of input. */
    boolean endOfInputIsNext() {
        Message message = queue.peek();
        return message != null && message.type != RdmaProtocol.TYPE_DATA;
    }

    /**
     * Accounts for {@code length} bytes of the head message read.
     *
     * @return {@code true} if that was all of it: the caller gives its slot or region back, then
     *         calls {@link #recycle}
     */
    boolean consume(Message message, int length) {
        if (length < 0 || length > message.remaining()) {
            throw new IllegalArgumentException("length: " + length + " (expected: 0-" + message.remaining() + ')');
        }
        message.consumed += length;
        return message.consumed == message.length;
    }

    /** Removes the head message, which the caller is done with, and keeps its record for reuse. */
    void recycle() {
        Message message = queue.poll();
        if (message != null) {
            message.ring = null;
            message.loan = null;
            spare.add(message);
        }
    }

    /**
     * Empties the queue, giving each slot a message still waits in to {@code slotReleaser} (a slot
     * partly lent to {@code lentSlots}, which waits for its pieces), and letting go of the memory of
     * each ring a region waits in.
     */
    void clear(IntConsumer slotReleaser, Consumer<SlotLoans.Loan> lentSlots) {
        for (Message message : queue) {
            if (message.loan != null) {
                lentSlots.accept(message.loan);
            } else if (message.slot >= 0) {
                slotReleaser.accept(message.slot);
            } else if (message.ring != null && message.ring.memory() != null) {
                message.ring.memory().releaseMemory();
            }
        }
        queue.clear();
    }
}
