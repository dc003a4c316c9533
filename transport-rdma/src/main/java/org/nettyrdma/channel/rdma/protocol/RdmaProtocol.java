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

/**
 * The constants of the wire protocol, version {@value #VERSION}; docs/protocol.md is the
 * specification and must change with this class.
 */
public final class RdmaProtocol {

    /** The protocol version this code speaks; a peer with another one is refused. */
    public static final int VERSION = 3;

    /** Message type of the first Send each way. */
    static final int TYPE_HELLO = 1;
    /** A Send whose payload is the next bytes of the stream. */
    public static final int TYPE_DATA = 2;
    /** A Send that only returns credits. */
    public static final int TYPE_CREDIT = 3;
    /** The sender will write no more: half-closure. */
    public static final int TYPE_SHUTDOWN_OUTPUT = 4;
    /** The sender closes the connection. */
    public static final int TYPE_CLOSE = 5;
    /** The sender has writes larger than a slot: it asks the peer for a ring, or a larger one. */
    public static final int TYPE_RING_REQUEST = 6;
    /** The sender opens a ring to the peer, or closes the one it had opened ({@link RingMessage}). */
    public static final int TYPE_RING = 7;
    /** The sender will write no more into a ring the peer closed: every Write into it came before. */
    public static final int TYPE_RING_RELEASED = 8;

    /** Size of a {@code HELLO} message. */
    public static final int HELLO_SIZE = 32;
    /** Size of the header of every other message. */
    public static final int HEADER_SIZE = 16;
    /**
     * Size of the largest message without stream bytes, the {@code HELLO} and every control message
     * ({@code RING} with its header is the largest): queue pairs take this much inline data where the
     * device allows, so that none of them needs registered memory.
     */
    public static final int MAX_CONTROL_SIZE = Math.max(HELLO_SIZE, HEADER_SIZE + RingMessage.RING_SIZE);

    /**
     * Returns the fewest bytes a Write with immediate may carry into the ring of a receiver whose
     * slots are {@code slotSize} bytes: more than a Send into a slot carries. Fewer would cost the
     * receiver a ring region and a record for what a slot takes, so it refuses them.
     */
    public static int minWriteLength(int slotSize) {
        return slotSize - HEADER_SIZE + 1;
    }

    /**
     * Fewest receive slots a peer may grant: the peer's {@code HELLO} uses one, and data needs two
     * more (one of them is always kept for credit messages).
     */
    public static final int MIN_SLOTS = 3;
    /** Most receive slots a peer may grant. */
    static final int MAX_SLOTS = 65_535;
    /** Smallest receive slot: it must hold a {@code HELLO} and a header with some payload. */
    static final int MIN_SLOT_SIZE = 64;
    /** Largest receive slot. */
    public static final int MAX_SLOT_SIZE = 1 << 20;
    /** Smallest ring a peer may open, or announce as its largest, unless it opens none (0). */
    static final int MIN_RING_SIZE = 4096;
    /** Largest ring a peer may open or announce. */
    public static final int MAX_RING_SIZE = 1 << 30;

    private RdmaProtocol() {
    }

    /** Returns the name of a message type, for error messages. */
    public static String typeName(int type) {
        switch (type) {
            case TYPE_HELLO:
                return "HELLO";
            case TYPE_DATA:
                return "DATA";
            case TYPE_CREDIT:
                return "CREDIT";
            case TYPE_SHUTDOWN_OUTPUT:
                return "SHUTDOWN_OUTPUT";
            case TYPE_CLOSE:
                return "CLOSE";
            case TYPE_RING_REQUEST:
                return "RING_REQUEST";
            case TYPE_RING:
                return "RING";
            case TYPE_RING_RELEASED:
                return "RING_RELEASED";
            default:
                return "UNKNOWN(" + type + ')';
        }
    }
}
