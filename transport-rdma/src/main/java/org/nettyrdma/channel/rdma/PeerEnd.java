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
 * How far the peer of a stream channel has gone: whether its {@code CLOSE} was read and whether its
 * queue pair is gone. Both can happen in either order: a peer closes and then disconnects, and the
 * data (and {@code CLOSE}) it sent before a disconnect is read after it. The difference matters for
 * the writes that will never arrive: after a {@code CLOSE} they fail as after TCP's FIN, without it
 * as after a TCP reset.
 */
enum PeerEnd {
    /** The peer may still send. */
    CONNECTED,
    /** The peer's {@code CLOSE} was read: it sends nothing more and needs no {@code CLOSE} back. */
    CLOSED,
    /**
     * The peer's queue pair is gone (RDMA CM {@code DISCONNECTED}, or this side's requests came back
     * flushed) and no {@code CLOSE} was read: the input ends once what arrived before is read.
     */
    DISCONNECTED,
    /** The peer's {@code CLOSE} was read and its queue pair is gone. */
    CLOSED_AND_DISCONNECTED;

    /** Returns this end once the peer's {@code CLOSE} was read. */
    PeerEnd closeRead() {
        return isGone() ? CLOSED_AND_DISCONNECTED : CLOSED;
    }

    /** Returns this end once the peer's queue pair is gone. */
    PeerEnd disconnected() {
        return sentClose() ? CLOSED_AND_DISCONNECTED : DISCONNECTED;
    }

    /** Returns {@code true} once the peer's {@code CLOSE} was read. */
    boolean sentClose() {
        return this == CLOSED || this == CLOSED_AND_DISCONNECTED;
    }

    /** Returns {@code true} once the peer's queue pair is gone. */
    boolean isGone() {
        return this == DISCONNECTED || this == CLOSED_AND_DISCONNECTED;
    }
}
