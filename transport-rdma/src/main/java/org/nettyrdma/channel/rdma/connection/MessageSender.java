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

import static org.nettyrdma.channel.rdma.protocol.RdmaProtocol.HEADER_SIZE;
import static org.nettyrdma.channel.rdma.protocol.RdmaProtocol.HELLO_SIZE;

import java.io.IOException;

import io.netty.buffer.ByteBuf;
import org.nettyrdma.channel.rdma.internal.WorkRequests;
import org.nettyrdma.channel.rdma.protocol.CreditReturn;
import org.nettyrdma.channel.rdma.protocol.HelloMessage;
import org.nettyrdma.channel.rdma.protocol.MessageHeader;
import org.nettyrdma.channel.rdma.protocol.RdmaProtocol;
import org.nettyrdma.channel.rdma.protocol.RingMessage;
import org.nettyrdma.channel.rdma.protocol.SendCredits;

/**
 * The Sends of one connection's messages into the peer's receive slots (docs/protocol.md): its
 * {@code HELLO}, the {@code DATA} its flushes stage, and the control messages ({@code CREDIT},
 * {@code SHUTDOWN_OUTPUT}, {@code CLOSE}, {@code RING_REQUEST}, {@code RING}, {@code RING_RELEASED}).
 * Every message but the {@code HELLO} goes one way, {@link #addMessage}: a header that returns the
 * credits this side owes the peer ({@link CreditReturn}) in front of its payload, in one of the
 * peer's slots.
 *
 * <p>Not thread-safe: used on the channel's event loop only.
 */
final class MessageSender {

    private final SendStaging staging;
    private final SendQueue queue;
    private final FlushedBytes flushed;
    private final CreditReturn owed;
    private final ConnectionCounters counters;
    /** The credits the peer's {@code HELLO} granted; null before it arrived. */
    private SendCredits credits;
    /** The largest {@code DATA} payload: the peer's slot, as far as this side's staging can take it. */
    private int maxPayload;

    /** Creates the sender of messages placed in {@code staging}, added to {@code queue}. */
    MessageSender(SendStaging staging, SendQueue queue, FlushedBytes flushed, CreditReturn owed,
                  ConnectionCounters counters) {
        this.staging = staging;
        this.queue = queue;
        this.flushed = flushed;
        this.owed = owed;
        this.counters = counters;
    }

    /**
     * Takes what the peer's {@code HELLO} allows: {@code credits}, shared with the ring's Writes, and
     * {@code DATA} Sends of up to {@code maxPayload} bytes.
     */
    void peerHello(SendCredits credits, int maxPayload) {
        this.credits = credits;
        this.maxPayload = maxPayload;
    }

    /**
     * Posts this side's {@code HELLO}: it has no header and takes no slot, the peer granted none yet.
     *
     * @return its sequence number
     */
    long sendHello(HelloMessage hello) throws IOException {
        if (!staging.place(HELLO_SIZE, staging.controlInline())) {
            throw new IOException("no registered memory to stage this side's HELLO in (" + HELLO_SIZE
                    + " bytes, more than the queue pair's inline data of " + staging.controlInline() + " bytes)");
        }
        hello.encode(staging.placedWriter(0));
        long sequence = addPlacedSend(HELLO_SIZE);
        queue.post();
        counters.controlMessages++;
        return sequence;
    }

    /** Copies as much of the flushed bytes as fits into one {@code DATA} Send and adds it to the chain. */
    boolean stageData() throws IOException {
        int room = maxPayload;
        int maxInline = staging.maxInline();
        // All that is left fits inline: the Send needs no staging block at all. A small Send that
        // stops in front of a large write is told only as it is copied, and goes through a block.
        boolean small = maxInline >= HEADER_SIZE && flushed.remainingAtMost(maxInline - HEADER_SIZE);
        if (small) {
            room = Math.min(room, maxInline - HEADER_SIZE);
        }
        if (!staging.place(HEADER_SIZE + room, small ? maxInline : 0)) {
            return false;
        }
        ByteBuf memory = staging.placedMemory();
        int start = staging.placedOffset() + HEADER_SIZE;
        int payload = 0;
        while (flushed.hasRemaining() && payload < room) {
            int readable = flushed.currentLength();
            // A large buffer goes by Write when the ring has room; stop coalescing in front of it.
            if (payload > 0 && readable > room && credits.ringSize() > 0) {
                break;
            }
            int length = Math.min(readable, room - payload);
            payload += flushed.copyCurrent(memory, start + payload, length);
        }
        staging.giveBack(room - payload);
        addData(payload);
        return true;
    }

    /** Adds a {@code DATA} Send of the {@code payload} bytes copied behind the header's room of the last placement. */
    void addData(int payload) {
        counters.sent(payload);
        flushed.posted();
        addMessage(RdmaProtocol.TYPE_DATA, payload);
        queue.signalIfDue(payload);
    }

    /**
     * Posts a message without payload ({@code CREDIT}, {@code SHUTDOWN_OUTPUT}, {@code CLOSE}) if a
     * slot, send space and a send queue entry are free; the last slot only if it returns slots or is
     * the {@code CLOSE} ({@link SendCredits#canSendControl(boolean)}).
     *
     * @return {@code true} if it was posted
     */
    boolean sendControl(int type) throws IOException {
        boolean mayTakeLastSlot = owed.owedSlots() > 0 || type == RdmaProtocol.TYPE_CLOSE;
        if (queue.isClosed() || !credits.canSendControl(mayTakeLastSlot) || queue.isFull() || !placeControl(0)) {
            return false;
        }
        addMessage(type, 0);
        queue.post();
        counters.controlMessages++;
        return true;
    }

    /**
     * Adds a ring message ({@code RING}, or with only its generation {@code RING_REQUEST} and
     * {@code RING_RELEASED}) to the chain if a slot, send space and a send queue entry are free; the
     * last slot only if the message returns slots ({@link SendCredits#canSendControl(boolean)}).
     *
     * @return {@code true} if it was added
     */
    boolean addRingMessage(int type, int generation, int size, long address, int key) throws IOException {
        int payload = type == RdmaProtocol.TYPE_RING ? RingMessage.RING_SIZE : RingMessage.GENERATION_SIZE;
        if (!credits.canSendControl(owed.owedSlots() > 0) || queue.isFull()) {
            return false;
        }
        queue.postIfChainFull();
        if (!placeControl(payload)) {
            return false;
        }
        ByteBuf out = staging.placedWriter(HEADER_SIZE);
        if (type == RdmaProtocol.TYPE_RING) {
            RingMessage.encodeRing(out, generation, size, address, key);
        } else {
            RingMessage.encodeGeneration(out, generation);
        }
        addMessage(type, payload);
        counters.controlMessages++;
        return true;
    }

    /** Places a control message of {@code payload} bytes behind its header: inline wherever the device allows. */
    private boolean placeControl(int payload) {
        return staging.place(HEADER_SIZE + payload, staging.controlInline());
    }

    /**
     * Adds the Send of one message at the last placement: writes the header of {@code type}, which
     * returns the credits owed to the peer, in front of the {@code payload} bytes written behind it,
     * and takes one of the peer's slots.
     */
    private void addMessage(int type, int payload) {
        MessageHeader.encode(staging.placedWriter(0), type, owed.takeSlots(), owed.takeRingBytes(), payload);
        credits.consumeSlot();
        addPlacedSend(HEADER_SIZE + payload);
    }

    /** Adds a Send of the {@code length} bytes of the last placement to the chain and returns its sequence number. */
    private long addPlacedSend(int length) {
        return queue.add(WorkRequests.OPCODE_SEND, staging.inlineFlag(length), staging.placedAddress(), length,
                staging.placedLkey(), 0, 0, 0);
    }
}
