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

import static org.nettyrdma.channel.rdma.protocol.RdmaProtocol.HEADER_SIZE;
import static org.nettyrdma.channel.rdma.protocol.RdmaProtocol.TYPE_CLOSE;
import static org.nettyrdma.channel.rdma.protocol.RdmaProtocol.TYPE_CREDIT;
import static org.nettyrdma.channel.rdma.protocol.RdmaProtocol.TYPE_DATA;
import static org.nettyrdma.channel.rdma.protocol.RdmaProtocol.TYPE_HELLO;
import static org.nettyrdma.channel.rdma.protocol.RdmaProtocol.TYPE_RING;
import static org.nettyrdma.channel.rdma.protocol.RdmaProtocol.TYPE_RING_RELEASED;
import static org.nettyrdma.channel.rdma.protocol.RdmaProtocol.TYPE_RING_REQUEST;
import static org.nettyrdma.channel.rdma.protocol.RdmaProtocol.TYPE_SHUTDOWN_OUTPUT;

import io.netty.buffer.ByteBuf;
import org.nettyrdma.channel.rdma.RdmaProtocolException;

/**
 * The 16-byte header of every message after {@code HELLO} (docs/protocol.md). One instance per
 * connection is reused for every received message, so reading a header allocates nothing.
 *
 * <p>Not thread-safe: used on the channel's event loop only.
 */
public final class MessageHeader {

    private int type;
    private int returnedSlots;
    private int returnedRingBytes;
    private int payloadLength;

    /** Writes a header at the writer index. */
    public static void encode(ByteBuf out, int type, int returnedSlots, int returnedRingBytes, int payloadLength) {
        out.writeByte(type)
                .writeByte(0)
                .writeShort(0)
                .writeInt(returnedSlots)
                .writeInt(returnedRingBytes)
                .writeInt(payloadLength);
    }

    /**
     * Reads and checks the header of a received Send of {@code byteLength} bytes (the completion's
     * {@code byte_len}) at {@code index}.
     *
     * @throws RdmaProtocolException naming the field that is not acceptable
     */
    public void decode(ByteBuf in, int index, int byteLength) throws RdmaProtocolException {
        if (byteLength < HEADER_SIZE) {
            throw new RdmaProtocolException("message too short: " + byteLength + " bytes (expected: >= "
                    + HEADER_SIZE + ')');
        }
        int type = in.getUnsignedByte(index);
        switch (type) {
            case TYPE_DATA:
            case TYPE_CREDIT:
            case TYPE_SHUTDOWN_OUTPUT:
            case TYPE_CLOSE:
            case TYPE_RING_REQUEST:
            case TYPE_RING:
            case TYPE_RING_RELEASED:
                break;
            case TYPE_HELLO:
                throw new RdmaProtocolException("second HELLO");
            default:
                throw new RdmaProtocolException("unknown message type " + type);
        }
        int flags = in.getUnsignedByte(index + 1);
        if (flags != 0 || in.getUnsignedShort(index + 2) != 0) {
            throw new RdmaProtocolException(RdmaProtocol.typeName(type) + " flags: 0x"
                    + Integer.toHexString(in.getInt(index) & 0xffffff) + " (expected: 0)");
        }
        int slots = in.getInt(index + 4);
        int ringBytes = in.getInt(index + 8);
        int length = in.getInt(index + 12);
        if (slots < 0 || ringBytes < 0) {
            throw new RdmaProtocolException("returned credits: " + slots + " slots, " + ringBytes
                    + " ring bytes (expected: >= 0)");
        }
        if (length != byteLength - HEADER_SIZE) {
            throw new RdmaProtocolException(RdmaProtocol.typeName(type) + " payload length " + length
                    + " in a message of " + byteLength + " bytes");
        }
        int expected = RingMessage.payloadLength(type);
        if (type != TYPE_DATA && length != Math.max(expected, 0)) {
            throw new RdmaProtocolException(RdmaProtocol.typeName(type) + " with a payload of " + length
                    + " bytes (expected: " + Math.max(expected, 0) + ')');
        }
        this.type = type;
        this.returnedSlots = slots;
        this.returnedRingBytes = ringBytes;
        this.payloadLength = length;
    }

    /** Type of the last decoded message. */
    public int type() {
        return type;
    }

    /** Receive slots the last decoded message returned to this side. */
    public int returnedSlots() {
        return returnedSlots;
    }

    /** Ring bytes the last decoded message returned to this side. */
    public int returnedRingBytes() {
        return returnedRingBytes;
    }

    /** Payload length of the last decoded message (0 for {@code CREDIT}, {@code SHUTDOWN_OUTPUT}, {@code CLOSE}). */
    public int payloadLength() {
        return payloadLength;
    }
}
