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
import io.netty.util.concurrent.Future;

/**
 * The timers of a connection's sends: the bound on a wait for the peer's credit
 * ({@code RdmaChannelOption#CREDIT_TIMEOUT_MILLIS}, over a {@link CreditWait}), the retry of sends
 * that wait for a staging block, and the trim of the staging blocks kept spare between sends. Each is
 * scheduled on the channel's event loop at most once at a time; {@link #cancel()} stops all three.
 *
 * <p>Threading: the channel's event loop only.
 */
final class SendTimers {

    /**
     * How long a connection whose sends wait for a staging block, with none in flight, waits before it
     * asks the pool again: blocks come back as other connections' sends complete, on loops that do not
     * tell this one, so it looks again rather than wait for a completion that will not come.
     */
    private static final long BLOCK_RETRY_MILLIS = 10;

    /**
     * How often a connection that keeps spare staging blocks looks whether it still sends: the spares
     * go back one to two periods after the last send. Long beside a round trip, so a connection
     * answering requests keeps them; short beside an idle connection's life.
     */
    private static final long STAGING_TRIM_MILLIS = 1000;

    /** What the connection does when one of its timers is due. */
    interface Due {
        /** A staging block may be free again: flush what waits, which looks again if it finds none. */
        void blockRetryDue();

        /**
         * Gives back the staging and landing blocks unused since the last look.
         *
         * @return {@code true} once none is held, which ends the trim
         */
        boolean trimStaging();

        /** The writes waited {@code waitedMillis} for credit, past the bound of {@code boundMillis}. */
        void creditTimedOut(long waitedMillis, int boundMillis);
    }

    private final EventLoop eventLoop;
    /** The bound on a wait for credit in milliseconds; 0 for none. */
    private final int creditTimeoutMillis;
    private final Due due;
    private final CreditWait creditWait = new CreditWait();
    /** Looks at {@link #creditWait} when its bound may have passed; {@code null} when none is due. */
    private Future<?> creditDeadline;
    /** Asks the pool again for a staging block; {@code null} when none is due. */
    private Future<?> blockRetry;
    /** Gives the spare staging blocks back once unused; {@code null} when none is held. */
    private Future<?> stagingTrim;
    private boolean cancelled;

    SendTimers(EventLoop eventLoop, int creditTimeoutMillis, Due due) {
        this.eventLoop = eventLoop;
        this.creditTimeoutMillis = creditTimeoutMillis;
        this.due = due;
    }

    /** A flush stopped with data left and no slot of the peer's: the wait and its bound start, unless they have. */
    void creditStalled() {
        creditWait.stalled(System.nanoTime());
        scheduleCreditDeadline();
    }

    /** The peer returned slots, or the writes no longer wait for them: the wait, if any, is over. */
    void creditEnded() {
        creditWait.ended();
    }

    /**
     * Makes sure the pool is asked again for a staging block, when sends wait for one and nothing in
     * flight will complete to trigger a flush: the writes stay in the outbound buffer meanwhile, and
     * the channel turns unwritable above its high water mark, as when the peer is slow.
     */
    void retryBlock() {
        if (blockRetry != null || cancelled) {
            return;
        }
        blockRetry = eventLoop.schedule(this::blockRetryDue, BLOCK_RETRY_MILLIS, TimeUnit.MILLISECONDS);
    }

    /**
     * Looks at the staging blocks every {@link #STAGING_TRIM_MILLIS} while any is held, so that the
     * spares kept between sends go back to the pool once the connection stops sending. One task for
     * the connection's whole busy period: a send and its completion schedule nothing.
     */
    void trimStaging() {
        if (stagingTrim != null || cancelled) {
            return;
        }
        stagingTrim = eventLoop.scheduleAtFixedRate(this::stagingTrimDue, STAGING_TRIM_MILLIS, STAGING_TRIM_MILLIS,
                TimeUnit.MILLISECONDS);
    }

    /** Cancels every timer, for good: the connection closed. */
    void cancel() {
        cancelled = true;
        creditDeadline = cancel(creditDeadline);
        blockRetry = cancel(blockRetry);
        stagingTrim = cancel(stagingTrim);
    }

    private static Future<?> cancel(Future<?> timer) {
        if (timer != null) {
            timer.cancel(false);
        }
        return null;
    }

    private void blockRetryDue() {
        blockRetry = null;
        if (!cancelled) {
            due.blockRetryDue();
        }
    }

    private void stagingTrimDue() {
        boolean trimmed = due.trimStaging();
        if (cancelled || trimmed) {
            stagingTrim = cancel(stagingTrim);
        }
    }

    /** Makes sure a look at the credit wait is due when its bound, if it has one, may have passed. */
    private void scheduleCreditDeadline() {
        int bound = creditTimeoutMillis;
        if (creditDeadline != null || bound == 0) {
            return;
        }
        long left = creditWait.nanosLeft(System.nanoTime(), TimeUnit.MILLISECONDS.toNanos(bound));
        creditDeadline = eventLoop.schedule(this::creditDeadlineReached, Math.max(0, left), TimeUnit.NANOSECONDS);
    }

    /**
     * Reports the writes timed out if they still wait for credit and have waited for the bound; looks
     * again later if they wait but not for so long (the wait began again since this look was set).
     */
    private void creditDeadlineReached() {
        creditDeadline = null;
        int bound = creditTimeoutMillis;
        if (cancelled || bound == 0 || !creditWait.isWaiting()) {
            return;
        }
        long now = System.nanoTime();
        if (creditWait.nanosLeft(now, TimeUnit.MILLISECONDS.toNanos(bound)) > 0) {
            scheduleCreditDeadline();
            return;
        }
        due.creditTimedOut(TimeUnit.NANOSECONDS.toMillis(creditWait.waitedNanos(now)), bound);
    }
}
