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

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.util.concurrent.Future;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.connection.RdmaConnection;
import org.nettyrdma.channel.rdma.protocol.RdmaProtocol;

/**
 * The drain of a closing stream channel: it lets the queue pair's work requests come back before the
 * channel frees them, as a TCP close lets the kernel deliver what was written. Its steps, in order:
 * <ol>
 *   <li>{@link #begin}: the channel is {@link RdmaChannelState#CLOSING}; the peer is sent a
 *   {@code CLOSE} after the data already posted (once it returns a slot, if it holds them all), and
 *   the drain waits for the last sends to complete.</li>
 *   <li>{@link #disconnect}: the queue pair goes to the error state and disconnects, so every request
 *   still posted comes back flushed (a flushed request completes even when unsignaled).</li>
 *   <li>{@link #freeIfDrained}: once none is outstanding, the channel frees the queue pair, its memory
 *   and the id ({@link AbstractRdmaStreamChannel#free}) and its registration leaves the loop.</li>
 * </ol>
 * The wait for the last sends ends early when the peer disconnects ({@link #peerGone}), since a peer
 * that is gone acknowledges nothing, and after {@link #TIMEOUT_MILLIS} at the latest: a peer that
 * neither reads nor disconnects would otherwise hold the queue pair for its retries
 * (docs/decisions.md#bounded-drain). A connection that failed sends no {@code CLOSE} and waits for
 * nothing: its queue pair goes to the error state before the pipeline hears of the failure
 * ({@link #abort}), so that a hostile peer takes no further receive of the loop's shared queue
 * (docs/security.md). A channel whose device is going away skips the drain ({@link #abandon}).
 *
 * <p>Threading: the channel's event loop only.
 */
final class CloseDrain {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(CloseDrain.class);
    /**
     * The longest a closing channel waits for the peer to acknowledge its last sends before it
     * disconnects, and then for the flushed requests to come back before it frees the queue pair.
     */
    static final long TIMEOUT_MILLIS = 2000;
    /**
     * The longest a channel whose {@code CLOSE} completed waits for the peer's disconnect on a device
     * where that completion does not say the peer took the {@code CLOSE} (iWARP): the peer disconnects
     * once it read it, usually within milliseconds, or keeps its end open with half-closure.
     */
    static final long LINGER_MILLIS = 500;

    /** How often, process-wide, a closing channel's wait ran into {@link #TIMEOUT_MILLIS}. */
    private static final AtomicLong TIMEOUTS = new AtomicLong();

    /** Where the channel's queue pair stands on its way to being freed. */
    enum Stage {
        /** Connected: a closing channel waits here for the peer to acknowledge its last sends. */
        CONNECTED,
        /** Moved to the error state and disconnected: every request still posted comes back flushed. */
        FLUSHING,
        /**
         * Its device is going away: freed at once, without a {@code CLOSE} to the peer or a wait for
         * the flushes, since the kernel waits for this process to let go of everything on the device.
         */
        ABANDONED
    }

    private final AbstractRdmaStreamChannel channel;
    private Stage stage = Stage.CONNECTED;
    /** Ends the wait for the last work requests; {@code null} while none is scheduled. */
    private Future<?> deadline;
    /** What runs once a channel that falls back to TCP let go of its RDMA attempt ({@link #release}). */
    private Runnable afterRelease;
    /** {@code true} once this side posted its {@code CLOSE}. */
    private boolean closeSent;
    /** {@code true} while the disconnect waits for the peer's ({@link #LINGER_MILLIS}). */
    private boolean lingering;

    CloseDrain(AbstractRdmaStreamChannel channel) {
        this.channel = channel;
    }

    /** Returns where the queue pair stands. */
    Stage stage() {
        return stage;
    }

    /** Returns how often a closing channel's wait ran into the bound ({@link RdmaMemoryMetrics#drainTimeouts()}). */
    static long timeouts() {
        return TIMEOUTS.get();
    }

    /**
     * Begins the drain of a channel that just became {@link RdmaChannelState#CLOSING}, telling the peer
     * with a {@code CLOSE} if {@code peerOwedClose}; frees at once what has no drain to wait for.
     */
    void begin(boolean peerOwedClose) {
        RdmaConnection connection = channel.connection;
        if (peerOwedClose && stage != Stage.ABANDONED && connection != null && connection.isReady()
                && !connection.isAborted()) {
            try {
                connection.sendEndOfStream(RdmaProtocol.TYPE_CLOSE);
                closeSent = true;
            } catch (IOException e) {
                // The queue pair is broken: the peer learns of the close from the disconnect.
                logger.debug("{}: sending CLOSE failed", channel, e);
            }
        }
        if (connection == null || stage == Stage.ABANDONED) {
            channel.free();
            return;
        }
        if (!connection.hasOutstandingSends() && !connection.endOfStreamOwed()) {
            disconnect();
        }
        freeIfDrained();
        scheduleDeadlineWhileClosing();
    }

    /**
     * Lets go of the RDMA attempt of a channel that falls back to TCP
     * ({@link RdmaChannelState#CONNECTING_TCP}) as the close of a failed connect does: the queue pair goes
     * to the error state, and once its work requests came back (or the deadline passed) the connection
     * and the id are freed. Then {@code then} runs, unless the channel closed meanwhile.
     */
    void release(Runnable then) {
        afterRelease = then;
        if (channel.connection == null || stage == Stage.ABANDONED) {
            freeNow();
            return;
        }
        disconnect();
        freeIfDrained();
        scheduleDeadlineWhileClosing();
    }

    /** The device of a channel that lets go of its RDMA attempt is going away: it frees at once. */
    void releaseNow() {
        if (afterRelease != null) {
            freeNow();
        }
    }

    /** Every posted send completed: a closed channel disconnects, unless an end of stream still waits for a slot. */
    void lastSendsCompleted() {
        RdmaConnection connection = channel.connection;
        if (!channel.isOpen() && connection != null && !connection.endOfStreamOwed()) {
            boolean unconfirmed = !connection.device().verbs().sendCompletionsConfirmDelivery();
            if (closeSent && stage == Stage.CONNECTED && unconfirmed) {
                lingerForPeer();
            } else {
                disconnect();
            }
        }
    }

    /**
     * Disconnects once the peer did, or after {@link #LINGER_MILLIS}. On iWARP the {@code CLOSE} has
     * only reached this side's TCP send queue; a disconnect closes the socket at once, and with bytes of
     * the peer left unread there the kernel resets the connection and drops what it has not sent, the
     * {@code CLOSE} among them (docs/decisions.md#confirmed-close-on-iwarp). The peer's own disconnect
     * ({@link AbstractRdmaStreamChannel#peerDisconnected}) ends the wait.
     */
    private void lingerForPeer() {
        if (lingering) {
            return;
        }
        lingering = true;
        channel.eventLoop().schedule(() -> {
            if (stage == Stage.CONNECTED && channel.connection != null && draining()) {
                disconnect();
                freeIfDrained();
            }
        }, LINGER_MILLIS, TimeUnit.MILLISECONDS);
    }

    /**
     * The peer disconnected or failed while this side waits for its last sends: nothing will be
     * acknowledged any more, so the queue pair goes to the error state now and the drain ends with
     * the flushes, not with the deadline.
     */
    void peerGone() {
        if (channel.state() == RdmaChannelState.CLOSING && channel.connection != null) {
            disconnect();
            freeIfDrained();
        }
    }

    /**
     * Moves the queue pair to the error state and disconnects: every request still posted comes back
     * flushed. Once only ({@link RdmaConnection#disconnect} ignores a second call, which an abandoned
     * queue pair may make).
     */
    void disconnect() {
        if (stage == Stage.FLUSHING) {
            return;
        }
        if (stage == Stage.CONNECTED) {
            stage = Stage.FLUSHING;
        }
        channel.connection.disconnect();
    }

    /**
     * The connection failed: it is stopped at once, even while closing, so that it takes nothing more
     * from its peer, whose Sends would otherwise go on taking receives of the loop's shared queue.
     */
    void abort() {
        RdmaConnection connection = channel.connection;
        if (connection != null && stage != Stage.ABANDONED && !connection.isAborted()) {
            stage = Stage.FLUSHING;
            connection.abort();
        }
    }

    /** The device is going away: whatever comes next frees at once instead of draining. */
    void abandon() {
        stage = Stage.ABANDONED;
    }

    /**
     * Frees a closing channel's queue pair once every work request it posted has come back: only then
     * does no completion refer to its memory, and its registration leaves the loop. A disconnect
     * leaves a send outstanding until every completion of the queue pair came back
     * ({@link RdmaConnection#disconnect}), so none outstanding while closing means none will come.
     */
    void freeIfDrained() {
        RdmaConnection connection = channel.connection;
        if (draining() && connection != null && connection.outstandingWorkRequests() == 0) {
            freeNow();
        }
    }

    /** Returns {@code true} while the channel waits for its work requests to free its queue pair. */
    private boolean draining() {
        RdmaChannelState state = channel.state();
        return state == RdmaChannelState.CLOSING || state == RdmaChannelState.CONNECTING_TCP && afterRelease != null;
    }

    /** Frees the queue pair now: the channel closes, or goes on to TCP. */
    private void freeNow() {
        Runnable then = afterRelease;
        afterRelease = null;
        if (channel.state() == RdmaChannelState.CLOSING) {
            channel.free();
            return;
        }
        cancelDeadline();
        channel.releaseConnection();
        channel.freeId();
        if (then != null) {
            then.run();
        }
    }

    /** The channel frees now: a deadline still pending would hold the closed channel until it ran. */
    void cancelDeadline() {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
    }

    private void scheduleDeadlineWhileClosing() {
        if (draining()) {
            cancelDeadline();
            deadline = channel.eventLoop().schedule(this::deadlinePassed, TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    private void deadlinePassed() {
        if (!draining() || channel.connection == null) {
            return;
        }
        // What already came back counts as in time, and may end the drain (freeIfDrained) or its first wait.
        Stage atDeadline = stage;
        channel.afterCompletionsSeen(() -> overdue(atDeadline));
    }

    private void overdue(Stage atDeadline) {
        if (!draining() || channel.connection == null) {
            return;
        }
        if (stage != atDeadline) {
            scheduleDeadlineWhileClosing();
            return;
        }
        TIMEOUTS.incrementAndGet();
        if (stage == Stage.CONNECTED) {
            logger.debug("{}: the peer acknowledged not every send within {} ms of the close: disconnecting",
                    channel, TIMEOUT_MILLIS);
            disconnect();
            freeIfDrained();
            scheduleDeadlineWhileClosing();
            return;
        }
        // In the error state the device flushes every posted request; if the flushes do not reach
        // the channel (its loop is shutting down and polls no more), waiting longer only holds memory.
        logger.debug("{}: {} not flushed {} ms after the queue pair went to the error state: freeing it",
                channel, channel.connection.describeOutstanding(), TIMEOUT_MILLIS);
        freeNow();
    }
}
