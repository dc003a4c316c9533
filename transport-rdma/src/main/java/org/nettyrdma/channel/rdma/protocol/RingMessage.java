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

import static org.nettyrdma.channel.rdma.protocol.RdmaProtocol.MAX_RING_SIZE;
import static org.nettyrdma.channel.rdma.protocol.RdmaProtocol.MIN_RING_SIZE;
import static org.nettyrdma.channel.rdma.protocol.RdmaProtocol.TYPE_RING;
import static org.nettyrdma.channel.rdma.protocol.RdmaProtocol.TYPE_RING_RELEASED;
import static org.nettyrdma.channel.rdma.protocol.RdmaProtocol.TYPE_RING_REQUEST;

import io.netty.buffer.ByteBuf;
import org.nettyrdma.channel.rdma.RdmaProtocolException;

/**
 * The payloads of the messages that open and close rings on demand (docs/protocol.md, "Rings"):
 * {@code RING_REQUEST} and {@code RING_RELEASED} carry a ring's generation, {@code RING} the
 * generation, size, address and key of the ring it opens, or size 0 for the one it closes. One
 * instance per connection is reused for every {@code RING} received.
 *
 * <p>Not thread-safe: used on the channel's event loop only.
 */
public final class RingMessage {

    /** The payload of {@code RING_REQUEST} and {@code RING_RELEASED}: a generation. */
    public static final int GENERATION_SIZE = 4;
    /** The payload of {@code RING}: generation, size, address, key. */
    public static final int RING_SIZE = 20;

    private int generation;
    private int size;
    private long address;
    private int key;

    /**
     * Returns the payload length a message of {@code type} must have, or -1 if its payload is free
     * ({@code DATA}) or must be empty (every other type).
     */
    static int payloadLength(int type) {
        switch (type) {
            case TYPE_RING_REQUEST:
            case TYPE_RING_RELEASED:
                return GENERATION_SIZE;
            case TYPE_RING:
                return RING_SIZE;
            default:
                return -1;
        }
    }

    /** Writes the payload of a {@code RING}: ring {@code generation} opened, or closed if {@code size} is 0. */
    public static void encodeRing(ByteBuf out, int generation, int size, long address, int key) {
        out.writeInt(generation).writeInt(size).writeLong(address).writeInt(key);
    }

    /** Writes the payload of a {@code RING_REQUEST} or {@code RING_RELEASED}. */
    public static void encodeGeneration(ByteBuf out, int generation) {
        out.writeInt(generation);
    }

    /**
     * Reads the generation a {@code RING_REQUEST} or {@code RING_RELEASED} carries at {@code index}.
     *
     * @throws RdmaProtocolException if it is negative
     */
    public static int decodeGeneration(ByteBuf in, int index) throws RdmaProtocolException {
        int generation = in.getInt(index);
        if (generation < 0) {
            throw new RdmaProtocolException("ring generation " + generation + " (expected: >= 0)");
        }
        return generation;
    }

    /**
     * Reads and checks the payload of a {@code RING} at {@code index}.
     *
     * @throws RdmaProtocolException naming the field that is not acceptable
     */
    public void decodeRing(ByteBuf in, int index) throws RdmaProtocolException {
        int generation = in.getInt(index);
        int size = in.getInt(index + 4);
        long address = in.getLong(index + 8);
        int key = in.getInt(index + 16);
        if (generation < 0 || generation == 0 && size != 0) {
            // 0 only declines a request made before any ring was opened.
            throw new RdmaProtocolException("RING generation " + generation + " (expected: > 0, or 0 closing none)");
        }
        if (size == 0) {
            if (address != 0 || key != 0) {
                throw new RdmaProtocolException("RING closing generation " + generation + " with address 0x"
                        + Long.toHexString(address) + " and key 0x" + Integer.toHexString(key) + " (expected: 0)");
            }
        } else if (size < MIN_RING_SIZE || size > MAX_RING_SIZE) {
            throw new RdmaProtocolException("RING size: " + size + " (expected: 0 or " + MIN_RING_SIZE + ".."
                    + MAX_RING_SIZE + ')');
        } else if (address == 0) {
            throw new RdmaProtocolException("RING address: 0 for a ring of " + size + " bytes");
        }
        this.generation = generation;
        this.size = size;
        this.address = address;
        this.key = key;
    }

    /** Returns the generation of the ring the last {@code RING} opened or closed. */
    public int generation() {
        return generation;
    }

    /** Returns the size of the ring the last {@code RING} opened; 0 if it closed one. */
    public int size() {
        return size;
    }

    /** Returns the remote address of the ring the last {@code RING} opened. */
    public long address() {
        return address;
    }

    /** Returns the rkey of the memory window over the ring the last {@code RING} opened. */
    public int key() {
        return key;
    }
}
