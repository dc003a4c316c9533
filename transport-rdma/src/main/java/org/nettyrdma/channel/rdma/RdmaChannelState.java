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
package org.nettyrdma.channel.rdma;

/**
 * The life cycle of an RDMA channel, one value at a time, changed only through
 * {@link AbstractRdmaChannel#transition}, which refuses a change this enum does not allow.
 *
 * <pre>
 *  connect:  NEW -&gt; RESOLVING -&gt; CONNECTING -&gt; AWAITING_HELLO -&gt; ACTIVE -&gt; HALF_CLOSED
 *  over TCP: NEW, RESOLVING or CONNECTING -&gt; CONNECTING_TCP -&gt; ACTIVE -&gt; HALF_CLOSED
 *  accept:   NEW -------------------------------&gt; AWAITING_HELLO -&gt; ACTIVE -&gt; HALF_CLOSED
 *  listen:   NEW -----------------------------------------------------&gt; ACTIVE
 *  close:    any of the above -&gt; CLOSING -&gt; CLOSED
 * </pre>
 */
enum RdmaChannelState {
    /** Open, neither connecting nor accepted nor listening yet. */
    NEW("nothing"),
    /** {@code rdma_resolve_addr} and then {@code rdma_resolve_route} are under way. */
    RESOLVING("address and route resolution"),
    /** The queue pair exists and {@code rdma_connect} was sent: waiting for the CM's ESTABLISHED. */
    CONNECTING("the server to accept (RDMA CM ESTABLISHED)"),
    /**
     * Carried by TCP ({@link TcpFallback}): what an RDMA attempt holds is being let go of, then the TCP
     * connection is made.
     */
    CONNECTING_TCP("the TCP connection of a fallback"),
    /** Connected at the CM; this side's HELLO is out or due, the peer's has not arrived. */
    AWAITING_HELLO("the server's HELLO"),
    /** Both HELLOs exchanged (a server channel: listening): the channel carries data both ways. */
    ACTIVE("nothing"),
    /** One direction ended (this side shut its output down, or the peer's end of input was read) and the channel stays open. */
    HALF_CLOSED("nothing"),
    /**
     * Closed for the user: the queue pair was told to disconnect, or waits for its last sends first,
     * and its work requests are coming back. Nothing reaches the pipeline any more.
     */
    CLOSING("nothing"),
    /** Everything native was freed. */
    CLOSED("nothing");

    private final String awaited;

    RdmaChannelState(String awaited) {
        this.awaited = awaited;
    }

    /** Returns what a connect waits for in this state: for the message of a connect timeout. */
    String awaited() {
        return awaited;
    }

    /** Returns {@code true} before the channel is closed. */
    boolean isOpen() {
        return compareTo(CLOSING) < 0;
    }

    /** Returns {@code true} while the channel carries data (or listens). */
    boolean isActive() {
        return this == ACTIVE || this == HALF_CLOSED;
    }

    /** Returns {@code true} if the life cycle allows going from this state to {@code next}. */
    boolean canBecome(RdmaChannelState next) {
        switch (this) {
            case NEW:
                return next == RESOLVING || next == CONNECTING_TCP || next == AWAITING_HELLO || next == ACTIVE
                        || next == CLOSING;
            case RESOLVING:
                return next == CONNECTING || next == CONNECTING_TCP || next == CLOSING;
            case CONNECTING:
                return next == AWAITING_HELLO || next == CONNECTING_TCP || next == CLOSING;
            case CONNECTING_TCP:
                return next == ACTIVE || next == CLOSING;
            case AWAITING_HELLO:
                return next == ACTIVE || next == CLOSING;
            case ACTIVE:
                return next == HALF_CLOSED || next == CLOSING;
            case HALF_CLOSED:
                return next == CLOSING;
            case CLOSING:
                return next == CLOSED;
            default:
                return false;
        }
    }
}
