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

import java.util.concurrent.TimeUnit;

import io.netty.util.internal.ObjectUtil;
import org.nettyrdma.channel.rdma.loop.WakeUpLatency;

/**
 * The tunables of an RDMA event loop, given to {@link RdmaIoHandler#newFactory(RdmaIoHandlerConfig)}:
 * the size of the completion queues it opens, how many completions one wake-up handles, and how long
 * a loop that ran out of work polls before it waits: adaptively by default, up to
 * {@link #getAdaptivePollMicros()}, or for a fixed {@link #getBusyPollMicros()}.
 *
 * <pre>{@code
 * IoHandlerFactory factory = RdmaIoHandler.newFactory(new RdmaIoHandlerConfig().setAdaptivePollMicros(50));
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
    /** The least default of {@link #getAdaptivePollMicros()}: the bound where waking a thread is quick. */
    public static final int DEFAULT_ADAPTIVE_POLL_MICROS = 100;
    /** The most the default of {@link #getAdaptivePollMicros()} grows to where waking a thread is slow. */
    public static final int MAX_DEFAULT_ADAPTIVE_POLL_MICROS = 2000;
    /**
     * The default bound, in thread wake-ups at their quickest ({@link WakeUpLatency}): a loop's wake-up by
     * its completion channel costs several of them (under qemu's emulation about 170 us against 35), and
     * polling pays while it finds work within about two such wake-ups.
     */
    static final int DEFAULT_ADAPTIVE_POLL_WAKE_UPS = 10;
    /** {@link #adaptivePollMicros} when not set: the default, which depends on the machine. */
    private static final int MACHINE_DEFAULT = -1;

    private int completionQueueEntries = DEFAULT_COMPLETION_QUEUE_ENTRIES;
    private int pollBudget = DEFAULT_POLL_BUDGET;
    private int busyPollMicros;
    private int adaptivePollMicros = MACHINE_DEFAULT;

    /**
     * Creates a config with the defaults: adaptive polling up to {@value #DEFAULT_ADAPTIVE_POLL_MICROS} us, or
     * longer where waking a thread is slow (see {@link #getAdaptivePollMicros()}).
     */
    public RdmaIoHandlerConfig() {
    }

    /** Creates a copy of {@code other}. */
    public RdmaIoHandlerConfig(RdmaIoHandlerConfig other) {
        ObjectUtil.checkNotNull(other, "other");
        completionQueueEntries = other.completionQueueEntries;
        pollBudget = other.pollBudget;
        busyPollMicros = other.busyPollMicros;
        adaptivePollMicros = other.adaptivePollMicros;
    }

    /**
     * Returns the entries of each completion queue the loop opens on a device, as far as the device
     * allows. Each connection reserves room for what it can have in flight (its send queue depth and
     * its largest share of receives); a loop opens another queue on the device when none has room, so
     * this bounds the connections per queue, not per loop. It also bounds the receives a loop's shared
     * receive queue posts.
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
     * Returns the longest, in microseconds, a loop that ran out of work polls its completion queues
     * before it arms them and waits in epoll, when no fixed {@link #getBusyPollMicros()} is set; 0
     * turns adaptive polling off, and the loop waits as soon as it finds nothing.
     *
     * <p>The loop polls for the whole bound after a poll that found work and after a wake-up that
     * brought work soon after it slept, and halves that after each poll that finds nothing: traffic
     * that comes back within the bound (a request's answer, the next request of a busy client) is
     * found without a wake-up, and a loop whose traffic stops, or comes slower than the bound, stops
     * polling after a few misses, so an idle loop costs no CPU (docs/decisions.md#adaptive-polling).
     * The bound is the most CPU a loop spends waiting for one completion.
     *
     * <p>Unless set, it follows the machine: {@value #DEFAULT_ADAPTIVE_POLL_WAKE_UPS} times the time it
     * takes, at its quickest, to run a sleeping thread once another wakes it, at least
     * {@value #DEFAULT_ADAPTIVE_POLL_MICROS} and at most {@value #MAX_DEFAULT_ADAPTIVE_POLL_MICROS} us.
     * Where a wake-up takes a few microseconds, as on a host's own cores, that is the least; under an
     * emulator, where it takes about 35 us, a few hundred, so that a round trip of a few hundred
     * microseconds is still found by polling. The first loop made with the default starts the
     * measurement, which takes under half a second in the background; until it has a figure, the
     * bound is the least.
     */
    public int getAdaptivePollMicros() {
        return followsWakeUps() ? machineDefaultAdaptivePollMicros() : adaptivePollMicros;
    }

    /** Returns {@code true} unless {@link #getAdaptivePollMicros()} was set: the bound follows the machine. */
    boolean followsWakeUps() {
        return adaptivePollMicros == MACHINE_DEFAULT;
    }

    /** Returns the default of {@link #getAdaptivePollMicros()} on this machine, as far as measured. */
    static int machineDefaultAdaptivePollMicros() {
        long wakeUpNanos = WakeUpLatency.nanos();
        if (wakeUpNanos < 0) {
            return DEFAULT_ADAPTIVE_POLL_MICROS;
        }
        long micros = DEFAULT_ADAPTIVE_POLL_WAKE_UPS * TimeUnit.NANOSECONDS.toMicros(wakeUpNanos);
        return (int) Math.max(DEFAULT_ADAPTIVE_POLL_MICROS, Math.min(MAX_DEFAULT_ADAPTIVE_POLL_MICROS, micros));
    }

    /** Sets {@link #getAdaptivePollMicros()}. */
    public RdmaIoHandlerConfig setAdaptivePollMicros(int adaptivePollMicros) {
        this.adaptivePollMicros = ObjectUtil.checkPositiveOrZero(adaptivePollMicros, "adaptivePollMicros");
        return this;
    }

    /**
     * Returns how long, in microseconds, a loop with nothing to do polls its completion queues before
     * it waits in epoll, every time, whatever traffic it sees; 0 (the default) leaves the polling to
     * {@link #getAdaptivePollMicros()}.
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
                + pollBudget + ", busyPollMicros: " + busyPollMicros + ", adaptivePollMicros: "
                + (followsWakeUps() ? "default" : Integer.toString(adaptivePollMicros))
                + ')';
    }
}
