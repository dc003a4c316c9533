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
package org.nettyrdma.channel.rdma.loop;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;

/**
 * How long this machine takes to run a sleeping thread once another thread wakes it, at its quickest.
 * A loop that sleeps on its completion channel pays this and more (the event's read, its
 * acknowledgement, the re-arm, and whatever else the machine is doing) for every wake-up, so it says
 * how long polling may run before it costs more than the wake-up it saves
 * (docs/decisions.md#adaptive-poll-bound). A few microseconds on a host's own cores, about 35 under
 * qemu's emulation.
 *
 * <p>Measured once per JVM, from the first {@link #start()}, by two daemon threads of its own: one
 * park-unpark hand-off every {@value #SAMPLE_INTERVAL_MILLIS} ms, {@value #SAMPLES} in all, the third
 * quickest so far standing for them. Spread out and taken at their quickest, because a JVM that is
 * starting compiles and loads classes on every core for a while, and what that delays is the load of
 * the moment, not the machine's wake-up. Until three hand-offs are in, there is no figure.
 *
 * <p>Thread-safe.
 */
public final class WakeUpLatency {

    /** Hand-offs measured in all. */
    static final int SAMPLES = 40;
    /** The rank, from the quickest, of the hand-off taken as the latency: two lucky ones do not move it. */
    static final int RANK = 2;
    private static final long SAMPLE_INTERVAL_MILLIS = 10;

    /** The figure so far, in nanoseconds; -1 until {@link #RANK} + 1 hand-offs are in. */
    private static volatile long nanos = -1;
    private static boolean started;

    private WakeUpLatency() {
    }

    /** Starts the measurement, unless it has started before; returns at once. */
    public static synchronized void start() {
        if (started) {
            return;
        }
        started = true;
        Thread sleeper = new Thread(() -> measure(SAMPLES, TimeUnit.MILLISECONDS.toNanos(SAMPLE_INTERVAL_MILLIS),
                figure -> nanos = figure), "rdma-wake-up-latency");
        sleeper.setDaemon(true);
        sleeper.start();
    }

    /** Returns the wake-up latency in nanoseconds, or -1 while too few hand-offs have been measured. */
    public static long nanos() {
        return nanos;
    }

    /**
     * Measures {@code samples} hand-offs, {@code intervalNanos} apart, on the calling thread, giving the
     * figure to {@code publish} after each one from the third on; returns the last figure. For each, the calling thread parks
     * and a waker thread notes the time and unparks it, and the calling thread reads how long it took to
     * run again.
     */
    static long measure(int samples, long intervalNanos, LongConsumer publish) {
        Thread sleeper = Thread.currentThread();
        Handoff handoff = new Handoff(sleeper, samples, intervalNanos);
        Thread waker = new Thread(handoff, "rdma-wake-up-latency-waker");
        waker.setDaemon(true);
        waker.start();
        long[] latencies = new long[samples];
        long figure = -1;
        for (int i = 0; i < samples; i++) {
            handoff.wokenAt = 0;
            handoff.sleeping = true;
            long wokenAt;
            // park() may return without an unpark: only the waker's time stamp ends the wait.
            while ((wokenAt = handoff.wokenAt) == 0) {
                LockSupport.park(handoff);
            }
            latencies[i] = System.nanoTime() - wokenAt;
            if (i >= RANK) {
                long[] sorted = Arrays.copyOf(latencies, i + 1);
                Arrays.sort(sorted);
                figure = sorted[RANK];
                publish.accept(figure);
            }
        }
        return figure;
    }

    /** The waker's side: waits until the measured thread is about to park, sleeps, and wakes it. */
    private static final class Handoff implements Runnable {
        private final Thread sleeper;
        private final int samples;
        private final long intervalNanos;
        volatile boolean sleeping;
        volatile long wokenAt;

        Handoff(Thread sleeper, int samples, long intervalNanos) {
            this.sleeper = sleeper;
            this.samples = samples;
            this.intervalNanos = intervalNanos;
        }

        @Override
        public void run() {
            for (int i = 0; i < samples; i++) {
                while (!sleeping) {
                    Thread.onSpinWait();
                }
                sleeping = false;
                LockSupport.parkNanos(intervalNanos);
                wokenAt = System.nanoTime();
                LockSupport.unpark(sleeper);
            }
        }
    }
}
