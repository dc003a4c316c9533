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


/**
 * How long the connection's writes have waited for the peer to return receive credit: from the flush
 * that first found no slot left, until the peer returns one or nothing waits any more. A peer that
 * grants slots and never frees them (it stopped reading, or never meant to) would otherwise hold the
 * connection, its memory and its write promises for ever; past
 * {@code RdmaChannelOption#CREDIT_TIMEOUT_MILLIS} the connection fails with a
 * {@code RdmaCreditTimeoutException} (docs/decisions.md#credit-deadline).
 *
 * <p>Times are {@link System#nanoTime()} values, passed in. Not thread-safe: used on the channel's
 * event loop only.
 */
final class CreditWait {

    private boolean waiting;
    private long since;

    /** A flush stopped with data left and no slot of the peer's: the wait starts now, unless it has already. */
    void stalled(long now) {
        if (!waiting) {
            waiting = true;
            since = now;
        }
    }

    /** The peer returned slots, or nothing waits to be sent any more: the wait, if any, is over. */
    void ended() {
        waiting = false;
    }

    /** Returns {@code true} while writes wait for credit. */
    boolean isWaiting() {
        return waiting;
    }

    /** Returns how long the writes have waited at {@code now}, in nanoseconds; 0 if they do not wait. */
    long waitedNanos(long now) {
        return waiting ? now - since : 0;
    }

    /**
     * Returns the nanoseconds left at {@code now} before the wait reaches {@code boundNanos}: 0 or less
     * once it has, {@link Long#MAX_VALUE} if nothing waits.
     */
    long nanosLeft(long now, long boundNanos) {
        return waiting ? boundNanos - (now - since) : Long.MAX_VALUE;
    }
}
