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

import io.netty.util.internal.ObjectUtil;

/**
 * The tunables of an RDMA event loop, given to {@link RdmaIoHandler#newFactory(RdmaIoHandlerConfig)}:
 * the size of the completion queues it opens, how many completions one wake-up handles, and how long
 * an idle loop busy-polls before it waits.
 *
 * <pre>{@code
 * IoHandlerFactory factory = RdmaIoHandler.newFactory(new RdmaIoHandlerConfig().setBusyPollMicros(2000));
 * }</pre>
 *
 * <p>The factory copies the values when it is made: changing the config afterwards changes no loop.
 * Not thread-safe; set it up on one thread, then hand it to the factory.
 */
public final class RdmaIoHandlerConfig {

    /** The default of {@link #getCompletionQueueEntries()}. */
    public static final int DEFAULT_COMPLETION_QUEUE_ENTRIES = 16384;
    /** The default of {@link #getPollBudget()}. */
    public static final int DEFAULT_POLL_BUDGET = 256;

    private int completionQueueEntries = DEFAULT_COMPLETION_QUEUE_ENTRIES;
    private int pollBudget = DEFAULT_POLL_BUDGET;
    private int busyPollMicros;

    /** Creates a config with the defaults: no busy polling. */
    public RdmaIoHandlerConfig() {
    }

    /** Creates a copy of {@code other}. */
    public RdmaIoHandlerConfig(RdmaIoHandlerConfig other) {
        ObjectUtil.checkNotNull(other, "other");
        completionQueueEntries = other.completionQueueEntries;
        pollBudget = other.pollBudget;
        busyPollMicros = other.busyPollMicros;
    }

    /**
     * Returns the entries of each completion queue the loop opens on a device, as far as the device
     * allows. Each connection reserves room for what it can have in flight (its receive slots and send
     * queue depth); a loop opens another queue on the device when none has room, so this bounds the
     * connections per queue, not per loop.
     */
    public int getCompletionQueueEntries() {
        return completionQueueEntries;
    }

    /**
     * Sets {@link #getCompletionQueueEntries()}; a queue is made larger anyway when one connection
     * needs more.
     */
    public RdmaIoHandlerConfig setCompletionQueueEntries(int completionQueueEntries) {
        this.completionQueueEntries = ObjectUtil.checkPositive(completionQueueEntries, "completionQueueEntries");
        return this;
    }

    /**
     * Returns how many completions the loop handles from one completion queue before it turns to its
     * other fds and tasks (RDMA CM events, connects, timeouts). What is left waits for the loop's next
     * turn, which does not block. A loop streaming for many connections seldom finds its queue empty,
     * and without a budget it would keep its CM events waiting (docs/decisions.md#completion-budget).
     */
    public int getPollBudget() {
        return pollBudget;
    }

    /** Sets {@link #getPollBudget()}: at least one batch of 32 completions is handled anyway. */
    public RdmaIoHandlerConfig setPollBudget(int pollBudget) {
        this.pollBudget = ObjectUtil.checkPositive(pollBudget, "pollBudget");
        return this;
    }

    /**
     * Returns how long, in microseconds, a loop with nothing to do polls its completion queues before
     * it waits in epoll; 0 (the default) turns busy polling off.
     *
     * <p>A completion that arrives while the loop spins is handled without the completion channel's
     * wake-up (a thread switch and the system calls that read the event and re-arm the queue). The
     * loop yields its core every few polls, so other threads there still run, and while the spins keep
     * finding completions it looks at its other fds (RDMA CM events, epoll channels sharing the loop)
     * about every 100 us. This trades a core's time for latency: each loop spins that long whenever it
     * runs out of work (docs/decisions.md#busy-poll).
     */
    public int getBusyPollMicros() {
        return busyPollMicros;
    }

    /** Sets {@link #getBusyPollMicros()}. */
    public RdmaIoHandlerConfig setBusyPollMicros(int busyPollMicros) {
        this.busyPollMicros = ObjectUtil.checkPositiveOrZero(busyPollMicros, "busyPollMicros");
        return this;
    }

    @Override
    public String toString() {
        return "RdmaIoHandlerConfig(completionQueueEntries: " + completionQueueEntries + ", pollBudget: "
                + pollBudget + ", busyPollMicros: " + busyPollMicros + ')';
    }
}
