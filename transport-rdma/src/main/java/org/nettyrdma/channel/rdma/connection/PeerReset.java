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

import java.util.concurrent.TimeUnit;

import io.netty.channel.EventLoop;

/**
 * Tells the channel, a moment late, that its iWARP connection was reset with no {@code CLOSE} from
 * the peer, so that the removal of the device, when that is the cause, names the failure instead.
 *
 * <p>When a device is removed, the kernel queues {@code DEVICE_REMOVAL} to every RDMA CM id on it and
 * then destroys the ids one by one, each destruction closing a TCP connection. A connection whose peer
 * is on the same device then meets the peer's reset (a failed send, {@code IBV_EVENT_QP_FATAL}) while
 * its own removal event waits to be read; reported at once, the reset would tell the application that
 * the peer went away when its own device did. A removal ends the channel within the grace, and the
 * late report then finds it closed. A peer that really went away is reported {@link #GRACE_MILLIS}
 * later than it was seen, which no caller can tell from a slower network.
 *
 * <p>Called on the connection's event loop only.
 */
final class PeerReset {

    /** How long a reset waits for a removal that would explain it. */
    static final long GRACE_MILLIS = 200;

    private final EventLoop eventLoop;
    private final ConnectionEvents events;
    private boolean seen;

    PeerReset(EventLoop eventLoop, ConnectionEvents events) {
        this.eventLoop = eventLoop;
        this.events = events;
    }

    /** The connection was reset: the channel hears of it after the grace; once, however often it is said. */
    void reset() {
        if (seen) {
            return;
        }
        seen = true;
        // connectionLost does nothing to a channel that closed meanwhile.
        eventLoop.schedule(events::connectionLost, GRACE_MILLIS, TimeUnit.MILLISECONDS);
    }
}
