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

import static org.nettyrdma.channel.rdma.internal.RdmaProtocol.HELLO_SIZE;
import static org.nettyrdma.channel.rdma.internal.RdmaProtocol.MAX_RING_SIZE;
import static org.nettyrdma.channel.rdma.internal.RdmaProtocol.MAX_SLOTS;
import static org.nettyrdma.channel.rdma.internal.RdmaProtocol.MAX_SLOT_SIZE;
import static org.nettyrdma.channel.rdma.internal.RdmaProtocol.MIN_RING_SIZE;
import static org.nettyrdma.channel.rdma.internal.RdmaProtocol.MIN_SLOTS;
import static org.nettyrdma.channel.rdma.internal.RdmaProtocol.MIN_SLOT_SIZE;
import static org.nettyrdma.channel.rdma.internal.RdmaProtocol.TYPE_HELLO;
import static org.nettyrdma.channel.rdma.internal.RdmaProtocol.VERSION;

import io.netty.buffer.ByteBuf;
import org.nettyrdma.channel.rdma.RdmaProtocolException;

/**
 * The {@code HELLO} message (docs/protocol.md): the receive slots and the ring one side grants the
 * other. Immutable; made once per connection and direction.
 */
public final class HelloMessage {

    private final int slots;
    private final int maxSlots;
    private final int slotSize;
    private final int ringSize;
    private final long ringAddress;
    private final int ringKey;

    private HelloMessage(int slots, int maxSlots, int slotSize, int ringSize, long ringAddress, int ringKey) {
        this.slots = slots;
        this.maxSlots = maxSlots;
        this.slotSize = slotSize;
        this.ringSize = ringSize;
        this.ringAddress = ringAddress;
        this.ringKey = ringKey;
    }

    /**
     * Returns a {@code HELLO} to send; the values are checked exactly as the peer will check them, so
     * this side never sends what it would itself refuse.
     *
     * @throws IllegalArgumentException naming the first value a peer would refuse
     */
    public static HelloMessage of(int slots, int slotSize, int ringSize, long ringAddress, int ringKey) {
        return of(slots, slots, slotSize, ringSize, ringAddress, ringKey);
    }

    /**
     * Returns the {@code HELLO} that grants {@code slots} receive slots now, and up to
     * {@code maxSlots} as the sender's share grows.
     *
     * @throws IllegalArgumentException if a field is out of its range
     */
    public static HelloMessage of(int slots, int maxSlots, int slotSize, int ringSize, long ringAddress,
                                  int ringKey) {
        HelloMessage hello = new HelloMessage(slots, maxSlots, slotSize, ringSize, ringAddress, ringKey);
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

    /** Size of each receive slot: the largest Send the peer may post. */
    /** Returns the most receive slots the sender may ever grant: the peer never holds more credits. */
    public int maxSlots() {
        return maxSlots;
    }

    public int slotSize() {
        return slotSize;
    }

    /** Size of the ring the peer may write into, 0 if there is none. */
    public int ringSize() {
        return ringSize;
    }

    /** Remote virtual address of the ring. */
    public long ringAddress() {
        return ringAddress;
    }

    /**
     * The rkey of the memory window over the ring: it grants write access to the ring only, only to
     * the peer of the connection's queue pair, and only until the connection closes (docs/security.md).
     */
    public int ringKey() {
        return ringKey;
    }

    /** Writes the message at the writer index. */
    public void encode(ByteBuf out) {
        out.writeByte(TYPE_HELLO)
                .writeByte(VERSION)
                .writeShort(0)
                .writeInt(slots)
                .writeInt(slotSize)
                .writeInt(ringSize)
                .writeLong(ringAddress)
                .writeInt(ringKey)
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
        HelloMessage hello = new HelloMessage(in.getInt(index + 4), in.getInt(index + 28), in.getInt(index + 8),
                in.getInt(index + 12), in.getLong(index + 16), in.getInt(index + 24));
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
        if (ringSize != 0 && (ringSize < MIN_RING_SIZE || ringSize > MAX_RING_SIZE)) {
            return "ring size: " + ringSize + " (expected: 0 or " + MIN_RING_SIZE + ".." + MAX_RING_SIZE + ')';
        }
        if (ringSize != 0 && ringAddress == 0) {
            return "ring address: 0 for a ring of " + ringSize + " bytes";
        }
        return null;
    }

    @Override
    public String toString() {
        return "HELLO(slots " + slots + " (at most " + maxSlots + ") of " + slotSize + " bytes, ring " + ringSize + " bytes)";
    }
}
