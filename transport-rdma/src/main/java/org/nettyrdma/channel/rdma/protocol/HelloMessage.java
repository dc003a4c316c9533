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

import static org.nettyrdma.channel.rdma.protocol.RdmaProtocol.HELLO_SIZE;
import static org.nettyrdma.channel.rdma.protocol.RdmaProtocol.MAX_RING_SIZE;
import static org.nettyrdma.channel.rdma.protocol.RdmaProtocol.MAX_SLOTS;
import static org.nettyrdma.channel.rdma.protocol.RdmaProtocol.MAX_SLOT_SIZE;
import static org.nettyrdma.channel.rdma.protocol.RdmaProtocol.MIN_RING_SIZE;
import static org.nettyrdma.channel.rdma.protocol.RdmaProtocol.MIN_SLOTS;
import static org.nettyrdma.channel.rdma.protocol.RdmaProtocol.MIN_SLOT_SIZE;
import static org.nettyrdma.channel.rdma.protocol.RdmaProtocol.TYPE_HELLO;
import static org.nettyrdma.channel.rdma.protocol.RdmaProtocol.VERSION;

import io.netty.buffer.ByteBuf;
import org.nettyrdma.channel.rdma.RdmaProtocolException;

/**
 * The {@code HELLO} message (docs/protocol.md): the receive slots one side grants the other, and the
 * largest ring it would open to the other on request ({@code RING_REQUEST}); no ring is open yet.
 * Immutable; made once per connection and direction.
 */
public final class HelloMessage {

    private final int slots;
    private final int maxSlots;
    private final int slotSize;
    private final int maxRingSize;

    private HelloMessage(int slots, int maxSlots, int slotSize, int maxRingSize) {
        this.slots = slots;
        this.maxSlots = maxSlots;
        this.slotSize = slotSize;
        this.maxRingSize = maxRingSize;
    }

    /**
     * Returns a {@code HELLO} to send that grants {@code slots} receive slots, never more; the values
     * are checked exactly as the peer will check them, so this side never sends what it would itself
     * refuse.
     *
     * @throws IllegalArgumentException naming the first value a peer would refuse
     */
    public static HelloMessage of(int slots, int slotSize, int maxRingSize) {
        return of(slots, slots, slotSize, maxRingSize);
    }

    /**
     * Returns the {@code HELLO} that grants {@code slots} receive slots now, and up to
     * {@code maxSlots} as the sender's share grows, and offers rings of up to {@code maxRingSize}
     * bytes (0: none, the peer sends everything by Send).
     *
     * @throws IllegalArgumentException if a field is out of its range
     */
    public static HelloMessage of(int slots, int maxSlots, int slotSize, int maxRingSize) {
        HelloMessage hello = new HelloMessage(slots, maxSlots, slotSize, maxRingSize);
        String problem = hello.problem();
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        return hello;
    }

    /** Receive slots granted to the peer. */
    public int slots() {
        return slots;
    }

    /** Returns the most receive slots the sender may ever grant: the peer never holds more credits. */
    public int maxSlots() {
        return maxSlots;
    }

    /** Size of each receive slot: the largest Send the peer may post. */
    public int slotSize() {
        return slotSize;
    }

    /**
     * The largest ring the sender opens to the peer when asked; 0 if it opens none, and the peer may
     * then write nowhere.
     */
    public int maxRingSize() {
        return maxRingSize;
    }

    /** Writes the message at the writer index. */
    public void encode(ByteBuf out) {
        out.writeByte(TYPE_HELLO)
                .writeByte(VERSION)
                .writeShort(0)
                .writeInt(slots)
                .writeInt(slotSize)
                .writeInt(maxRingSize)
                .writeLong(0)
                .writeInt(0)
                .writeInt(maxSlots);
    }

    /**
     * Reads and checks a {@code HELLO} of {@code length} bytes at {@code index}.
     *
     * @throws RdmaProtocolException naming the first field that is not acceptable
     */
    public static HelloMessage decode(ByteBuf in, int index, int length) throws RdmaProtocolException {
        if (length < HELLO_SIZE) {
            throw new RdmaProtocolException("HELLO too short: " + length + " bytes (expected: " + HELLO_SIZE + ')');
        }
        int type = in.getUnsignedByte(index);
        if (type != TYPE_HELLO) {
            throw new RdmaProtocolException("first message is " + RdmaProtocol.typeName(type)
                    + " (expected: HELLO)");
        }
        int version = in.getUnsignedByte(index + 1);
        if (version != VERSION) {
            throw new RdmaProtocolException("peer speaks protocol version " + version + ", this side "
                    + VERSION);
        }
        int flags = in.getUnsignedShort(index + 2);
        if (flags != 0) {
            throw new RdmaProtocolException("HELLO flags: 0x" + Integer.toHexString(flags) + " (expected: 0)");
        }
        if (in.getLong(index + 16) != 0 || in.getInt(index + 24) != 0) {
            throw new RdmaProtocolException("HELLO reserved bytes 16..27 are not 0: a ring is opened on request, "
                    + "never in the HELLO");
        }
        HelloMessage hello = new HelloMessage(in.getInt(index + 4), in.getInt(index + 28), in.getInt(index + 8),
                in.getInt(index + 12));
        String problem = hello.problem();
        if (problem != null) {
            throw new RdmaProtocolException("HELLO " + problem);
        }
        return hello;
    }

    private String problem() {
        if (slots < MIN_SLOTS || slots > MAX_SLOTS) {
            return "slots: " + slots + " (expected: " + MIN_SLOTS + ".." + MAX_SLOTS + ')';
        }
        if (maxSlots < slots || maxSlots > MAX_SLOTS) {
            return "most slots: " + maxSlots + " (expected: " + slots + ".." + MAX_SLOTS + ')';
        }
        if (slotSize < MIN_SLOT_SIZE || slotSize > MAX_SLOT_SIZE) {
            return "slot size: " + slotSize + " (expected: " + MIN_SLOT_SIZE + ".." + MAX_SLOT_SIZE + ')';
        }
        if (maxRingSize != 0 && (maxRingSize < MIN_RING_SIZE || maxRingSize > MAX_RING_SIZE)) {
            return "largest ring: " + maxRingSize + " (expected: 0 or " + MIN_RING_SIZE + ".." + MAX_RING_SIZE + ')';
        }
        return null;
    }

    @Override
    public String toString() {
        return "HELLO(slots " + slots + " (at most " + maxSlots + ") of " + slotSize + " bytes, rings of up to "
                + maxRingSize + " bytes)";
    }
}
