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
package org.nettyrdma.benchmark;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Halts the JVM with status 3 when a step of a benchmark program outlives its deadline, after printing a
 * {@code bench} line with the error: a program that hangs must still end, and say so. A program armed
 * once for its whole run arms it once; one that waits between its measured rounds
 * ({@link MeasuredRounds}) arms it for the warm-up and for each round, and disarms it while it waits,
 * which lasts as long as the other programs' rounds. Thread-safe.
 */
final class Watchdog {

    private final String name;
    private final ScheduledThreadPoolExecutor timer;
    /** The halt to come, or {@code null} while disarmed. Guarded by {@code this}. */
    private ScheduledFuture<?> pending;

    private Watchdog(String name) {
        this.name = name;
        timer = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "benchmark-watchdog");
            thread.setDaemon(true);
            return thread;
        });
        timer.setRemoveOnCancelPolicy(true);
    }

    /** Returns a disarmed watchdog for the figures named {@code name} ({@code transport=} of its line). */
    static Watchdog of(String name) {
        return new Watchdog(name);
    }

    /** Returns a watchdog for {@code name} armed for {@code seconds}: a program that runs in one step. */
    static Watchdog start(String name, long seconds) {
        Watchdog watchdog = of(name);
        watchdog.arm(seconds, 0);
        return watchdog;
    }

    /**
     * Halts the JVM after {@code seconds} unless {@link #disarm()} or another {@code arm} comes first;
     * {@code round}, when above 0, goes into the line it prints.
     */
    synchronized void arm(long seconds, int round) {
        disarm();
        String line = "bench transport=" + name + (round > 0 ? " round=" + round : "")
                + " error=watchdog: no result after " + seconds + " s";
        pending = timer.schedule(() -> {
            System.out.println(line);
            System.out.flush();
            Runtime.getRuntime().halt(3);
        }, seconds, TimeUnit.SECONDS);
    }

    /** Cancels the halt to come, if any. */
    synchronized void disarm() {
        if (pending != null) {
            pending.cancel(false);
            pending = null;
        }
    }
}
