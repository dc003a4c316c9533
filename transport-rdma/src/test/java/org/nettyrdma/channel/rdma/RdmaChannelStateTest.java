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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.nettyrdma.channel.rdma.RdmaChannelState.ACTIVE;
import static org.nettyrdma.channel.rdma.RdmaChannelState.AWAITING_HELLO;
import static org.nettyrdma.channel.rdma.RdmaChannelState.CLOSED;
import static org.nettyrdma.channel.rdma.RdmaChannelState.CLOSING;
import static org.nettyrdma.channel.rdma.RdmaChannelState.CONNECTING;
import static org.nettyrdma.channel.rdma.RdmaChannelState.CONNECTING_TCP;
import static org.nettyrdma.channel.rdma.RdmaChannelState.HALF_CLOSED;
import static org.nettyrdma.channel.rdma.RdmaChannelState.NEW;
import static org.nettyrdma.channel.rdma.RdmaChannelState.RESOLVING;

import java.util.EnumSet;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The channels' life cycle: the paths a channel takes are allowed, and nothing else is. */
class RdmaChannelStateTest {

    @Test
    void theLifeCyclesPathsAreAllowed() {
        assertPath(NEW, RESOLVING, CONNECTING, AWAITING_HELLO, ACTIVE, HALF_CLOSED, CLOSING, CLOSED);
        assertPath(NEW, AWAITING_HELLO, ACTIVE, CLOSING, CLOSED); // accepted
        assertPath(NEW, ACTIVE, CLOSING, CLOSED); // a listener
        assertPath(NEW, CONNECTING_TCP, ACTIVE, HALF_CLOSED, CLOSING, CLOSED); // no RDMA in this process
        assertPath(NEW, RESOLVING, CONNECTING_TCP, ACTIVE, CLOSING, CLOSED); // no RDMA route
        assertPath(NEW, RESOLVING, CONNECTING, CONNECTING_TCP, CLOSING, CLOSED); // no RDMA listener
        for (RdmaChannelState open : EnumSet.range(NEW, HALF_CLOSED)) {
            assertTrue(open.canBecome(CLOSING), open + " can close");
        }
    }

    @Test
    void nothingElseIsAllowed() {
        List<List<RdmaChannelState>> allowed = List.of(
                List.of(NEW, RESOLVING), List.of(NEW, AWAITING_HELLO), List.of(NEW, ACTIVE),
                List.of(RESOLVING, CONNECTING), List.of(CONNECTING, AWAITING_HELLO),
                List.of(AWAITING_HELLO, ACTIVE), List.of(ACTIVE, HALF_CLOSED), List.of(CLOSING, CLOSED),
                List.of(NEW, CONNECTING_TCP), List.of(RESOLVING, CONNECTING_TCP), List.of(CONNECTING, CONNECTING_TCP),
                List.of(CONNECTING_TCP, ACTIVE));
        int count = 0;
        for (RdmaChannelState from : RdmaChannelState.values()) {
            for (RdmaChannelState to : RdmaChannelState.values()) {
                boolean expected = allowed.contains(List.of(from, to)) || from.isOpen() && to == CLOSING;
                assertEquals(expected, from.canBecome(to), from + " -> " + to);
                count += expected ? 1 : 0;
            }
        }
        assertEquals(19, count);
    }

    @Test
    void openAndActiveFollowTheState() {
        assertTrue(AWAITING_HELLO.isOpen());
        assertTrue(CONNECTING_TCP.isOpen());
        assertFalse(CONNECTING_TCP.isActive());
        assertFalse(AWAITING_HELLO.isActive());
        assertTrue(HALF_CLOSED.isActive());
        assertFalse(CLOSING.isOpen());
        assertFalse(CLOSING.isActive());
    }

    @Test
    void aChannelRefusesAnIllegalTransition() {
        RdmaSocketChannel channel = new RdmaSocketChannel();
        assertThrows(IllegalStateException.class, () -> channel.transition(HALF_CLOSED));
        assertThrows(IllegalStateException.class, () -> channel.transition(CLOSED));
        assertEquals(NEW, channel.state());
        assertTrue(channel.isOpen());
    }

    private static void assertPath(RdmaChannelState... path) {
        for (int i = 1; i < path.length; i++) {
            assertTrue(path[i - 1].canBecome(path[i]), path[i - 1] + " -> " + path[i]);
        }
    }
}
