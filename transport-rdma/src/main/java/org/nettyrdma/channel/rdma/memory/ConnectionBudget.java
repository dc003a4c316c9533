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
package org.nettyrdma.channel.rdma.memory;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.util.internal.SystemPropertyUtil;

/**
 * The process's bound on connections: how many queue pairs the transport holds at once, clients and
 * accepted children together, set with {@value #LIMIT_PROPERTY} (default {@value #DEFAULT_LIMIT}).
 * A queue pair costs what {@link RegisteredMemoryBudget} does not count: the provider's queues in
 * this process's memory, the kernel's objects and the connection's Java objects. A connection whose
 * queue pair would pass the bound is refused before any of that is made
 * (docs/decisions.md#connection-bounds).
 *
 * <p>Thread-safe: connections on every loop reserve and release.
 */
public final class ConnectionBudget {

    /** The system property that sets the limit, in queue pairs. */
    public static final String LIMIT_PROPERTY = "org.nettyrdma.maxConnections";
    /** The limit when the property is not set. */
    static final int DEFAULT_LIMIT = 16_384;

    private static final int LIMIT = Math.max(1, SystemPropertyUtil.getInt(LIMIT_PROPERTY, DEFAULT_LIMIT));
    private static final AtomicInteger USED = new AtomicInteger();
    private static final AtomicLong REFUSED = new AtomicLong();

    private ConnectionBudget() {
    }

    /**
     * Reserves one queue pair for {@code what}.
     *
     * @throws LimitReachedException, counted as refused, if the process holds its limit already
     */
    public static void reserve(String what) throws LimitReachedException {
        for (;;) {
            int used = USED.get();
            if (used >= LIMIT) {
                REFUSED.incrementAndGet();
                throw new LimitReachedException("connection limit reached: " + what + " needs a queue pair, and "
                        + used + " of " + LIMIT + " are open in this process (-D" + LIMIT_PROPERTY
                        + " raises the limit)");
            }
            if (USED.compareAndSet(used, used + 1)) {
                return;
            }
        }
    }

    /** Returns a queue pair reserved with {@link #reserve(String)}. */
    public static void release() {
        USED.decrementAndGet();
    }

    /** Returns the queue pairs reserved now, process-wide. */
    public static int used() {
        return USED.get();
    }

    /** Returns the limit in queue pairs. */
    public static int limit() {
        return LIMIT;
    }

    /** Returns how many connections the limit refused. */
    public static long refused() {
        return REFUSED.get();
    }

    /** A connection the limit refused: it fails with this, and a server refuses its peer with the reason. */
    public static final class LimitReachedException extends IOException {
        private static final long serialVersionUID = 1L;

        LimitReachedException(String message) {
            super(message);
        }
    }
}
