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
import java.util.function.BooleanSupplier;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

/**
 * Keeps the connecting side's {@code HELLO} from being left unread by the peer's iWARP device. siw
 * sends its MPA reply before it hands the socket to the accepting queue pair, and a Send that
 * arrives in between stays in the socket, unread, until more bytes come: the peer never answers, and
 * the connect times out. So while the peer's {@code HELLO} is missing, the connecting side posts a
 * zero-length RDMA Read every so often: it arrives after the {@code HELLO}, makes the peer's device
 * read both, asks for no memory and consumes none of the peer's receives.
 *
 * <p>Only on iWARP ({@code DeviceVerbs#nudgesHello()}). Threading: the
 * channel's event loop only.
 */
final class HelloNudge {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(HelloNudge.class);

    /** The first nudge: well after a HELLO answered at once, well before the connect gives up. */
    static final long FIRST_DELAY_MILLIS = 100;
    /** Nudges then come at most this far apart. */
    static final long LONGEST_DELAY_MILLIS = 1000;

    private final EventLoop loop;
    private final int qpNum;
    private final BooleanSupplier answered;
    private final Runnable nudge;
    private Future<?> scheduled;

    /**
     * @param answered whether the nudging can stop: the peer's {@code HELLO} arrived, or the connection closed
     * @param nudge    posts one zero-length RDMA Read
     */
    HelloNudge(EventLoop loop, int qpNum, BooleanSupplier answered, Runnable nudge) {
        this.loop = loop;
        this.qpNum = qpNum;
        this.answered = answered;
        this.nudge = nudge;
    }

    /** Starts nudging, after {@link #FIRST_DELAY_MILLIS}. */
    void start() {
        schedule(FIRST_DELAY_MILLIS);
    }

    /** Stops nudging. */
    void cancel() {
        if (scheduled != null) {
            scheduled.cancel(false);
            scheduled = null;
        }
    }

    private void schedule(long delayMillis) {
        scheduled = loop.schedule(() -> {
            scheduled = null;
            if (!answered.getAsBoolean()) {
                if (delayMillis == FIRST_DELAY_MILLIS) {
                    logger.debug("qp {}: no HELLO from the peer after {} ms; nudging its device", qpNum, delayMillis);
                }
                nudge.run();
                schedule(Math.min(2 * delayMillis, LONGEST_DELAY_MILLIS));
            }
        }, delayMillis, TimeUnit.MILLISECONDS);
    }
}
