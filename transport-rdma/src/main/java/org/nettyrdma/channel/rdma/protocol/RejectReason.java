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

import java.nio.ByteBuffer;

import org.nettyrdma.channel.rdma.memory.ConnectionBudget;

/**
 * Why a server refused a connect request: the private data of its reject (docs/protocol.md,
 * "Refusals"), so that the client's connect fails with the reason instead of a bare "rejected".
 * Four bytes: the magic {@value #MAGIC} ("NR"), the protocol version, and the reason.
 */
public final class RejectReason {

    /** The reject's private data is this many bytes. */
    public static final int SIZE = 4;
    /** The first two bytes, so that a reject of another program is not misread. */
    static final int MAGIC = 0x4e52;
    /** The server's backlog of connections being set up (waiting to be accepted, or for their HELLO) is full. */
    public static final int BACKLOG_FULL = 1;
    /** The server's registered memory limit leaves no room for the connection. */
    public static final int REGISTERED_MEMORY_LIMIT = 2;
    /** The server's event loop is shutting down. */
    public static final int SHUTTING_DOWN = 3;
    /** Setting up the connection failed on the server for another reason (see its log). */
    public static final int SERVER_ERROR = 4;
    /** The connections from the client's address hold as much registered memory as the server allows one address. */
    public static final int ADDRESS_LIMIT = 5;
    /** The client's address has as many connections open at the server as it allows one address. */
    public static final int ADDRESS_CONNECTION_LIMIT = 6;
    /** The server's process holds as many connections as it allows. */
    public static final int CONNECTION_LIMIT = 7;

    private RejectReason() {
    }

    /** Writes the private data for {@code reason} at {@code buffer}'s index 0. */
    public static void encode(ByteBuffer buffer, int reason) {
        buffer.put(0, (byte) (MAGIC >>> 8)).put(1, (byte) MAGIC).put(2, (byte) RdmaProtocol.VERSION)
                .put(3, (byte) reason);
    }

    /**
     * Returns the reason in a reject's {@code length} bytes of private data at {@code offset}, or 0
     * if they are not a netty-rdma reason (a host without a listener at that port rejects with none).
     */
    public static int decode(ByteBuffer buffer, int offset, int length) {
        if (length < SIZE || (buffer.get(offset) & 0xff) != MAGIC >>> 8
                || (buffer.get(offset + 1) & 0xff) != (MAGIC & 0xff)) {
            return 0;
        }
        return buffer.get(offset + 3) & 0xff;
    }

    /**
     * Returns the reason in a reject's private data, the remaining bytes of {@code privateData}, or 0
     * if they are not a netty-rdma reason.
     */
    public static int decode(ByteBuffer privateData) {
        return decode(privateData, privateData.position(), privateData.remaining());
    }

    /** Returns what a client's connect failure says for {@code reason}, or {@code null} for 0. */
    public static String describe(int reason) {
        switch (reason) {
            case 0:
                return null;
            case BACKLOG_FULL:
                return "the server's backlog of connections being set up is full (SO_BACKLOG)";
            case REGISTERED_MEMORY_LIMIT:
                return "the server has reached its limit of registered memory";
            case SHUTTING_DOWN:
                return "the server is shutting down";
            case SERVER_ERROR:
                return "setting up the connection failed on the server (see its log)";
            case ADDRESS_LIMIT:
                return "the server's connections from this address hold as much registered memory as it allows one"
                        + " address (MAX_REGISTERED_MEMORY_PER_ADDRESS)";
            case ADDRESS_CONNECTION_LIMIT:
                return "the server holds as many connections from this address as it allows one address"
                        + " (MAX_CONNECTIONS_PER_ADDRESS)";
            case CONNECTION_LIMIT:
                return "the server holds as many connections as its process allows (" + ConnectionBudget.LIMIT_PROPERTY
                        + ")";
            default:
                return "the server refused it for reason " + reason;
        }
    }
}
