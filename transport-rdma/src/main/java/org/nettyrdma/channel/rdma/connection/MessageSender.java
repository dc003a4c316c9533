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
import org.nettyrdma.channel.rdma.memory.RdmaDevice;
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
 * <p>A {@code DATA} Send either copies the flushed bytes behind its header, coalescing small writes
 * into one slot, or, for at least {@link #IN_PLACE_MIN} bytes of a buffer in registered memory (from
 * {@code RdmaByteBufAllocator}), gathers its header and those bytes where they are: the device reads
 * the buffer, which is held until the Send completes (docs/decisions.md#sends-in-place).
 *
 * <p>Not thread-safe: used on the channel's event loop only.
 */
final class MessageSender {

    /**
     * The fewest bytes of a buffer a Send reads where they are (or the whole slot, if smaller): below
     * it, copying into a slot shared with the writes around it costs less than a slot of its own
     * (a Send per 1 KiB write would take eight of the peer's 8 KiB slots where one copied Send takes one).
     */
    static final int IN_PLACE_MIN = 4096;

    private final SendStaging staging;
    private final SendQueue queue;
    private final FlushedBytes flushed;
    private final CreditReturn owed;
    private final ConnectionCounters counters;
    /** The device that reads buffers in place; null where the queue pair cannot gather (one entry per Send). */
    private final RdmaDevice gatheringDevice;
    /**
     * The buffer the last Send in place read (compared by identity only, never read): the rest of it
     * goes in place too, however short, so that a registered buffer is never copied in part.
     */
    private Object sentInPlace;
    /** The credits the peer's {@code HELLO} granted; null before it arrived. */
    private SendCredits credits;
    /** The largest {@code DATA} payload: the peer's slot, as far as this side's staging can take it. */
    private int maxPayload;

    /**
     * Creates the sender of messages placed in {@code staging}, added to {@code queue}; registered
     * buffers are read in place by {@code gatheringDevice}, or copied if it is null.
     */
    MessageSender(SendStaging staging, SendQueue queue, FlushedBytes flushed, CreditReturn owed,
                  ConnectionCounters counters, RdmaDevice gatheringDevice) {
        this.gatheringDevice = gatheringDevice;
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

    /**
     * Adds one {@code DATA} Send of the flushed bytes to the chain: the next bytes of a registered
     * buffer read in place, or as much as fits copied.
     *
     * @return {@code false} if no staging block has room now
     */
    boolean stageData() throws IOException {
        long lkey = inPlaceKey(flushed.currentLength());
        if (lkey != -1) {
            return stageInPlace(lkey);
        }
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
            // A large buffer goes by Write when the ring has room, or by a Send that reads it in place;
            // stop coalescing in front of it.
            if (payload > 0 && (readable > room && credits.ringSize() > 0 || inPlaceKey(readable) != -1)) {
                break;
            }
            int length = Math.min(readable, room - payload);
            payload += flushed.copyCurrent(memory, start + payload, length);
        }
        staging.giveBack(room - payload);
        addData(payload);
        return true;
    }

    /**
     * Returns the local key under which the device reads the next bytes of the current message (of
     * which {@code readable} are left) where they are, or -1 if a Send copies them: too few, not in
     * registered memory, or a queue pair that cannot gather.
     */
    private long inPlaceKey(int readable) {
        int length = Math.min(readable, maxPayload);
        if (gatheringDevice == null || !flushed.currentIs(sentInPlace)
                && (length < Math.min(IN_PLACE_MIN, maxPayload) || length <= staging.maxInline())) {
            return -1;
        }
        return flushed.currentLkey(gatheringDevice, length);
    }

    /**
     * Adds a {@code DATA} Send that gathers its header, staged alone, and the next bytes of the current
     * buffer where they are ({@code lkey}); the buffer is held until the Send completes, even if the
     * channel closes first.
     */
    private boolean stageInPlace(long lkey) {
        int length = Math.min(flushed.currentLength(), maxPayload);
        long address = flushed.currentAddress();
        // A header inline would make the whole request inline, payload included: it goes in a block.
        if (!staging.place(HEADER_SIZE, 0)) {
            return false;
        }
        sentInPlace = flushed.current();
        queue.hold(flushed.retainCurrent());
        flushed.skipCurrent(length);
        flushed.posted();
        counters.sentInPlace(length);
        MessageHeader.encode(staging.placedWriter(0), RdmaProtocol.TYPE_DATA, owed.takeSlots(), owed.takeRingBytes(),
                length);
        credits.consumeSlot();
        queue.addGather(HEADER_SIZE, address, length, (int) lkey);
        queue.signalIfDue(length);
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
