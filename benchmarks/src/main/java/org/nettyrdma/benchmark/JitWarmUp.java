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

import java.io.PrintStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * Repeats a benchmark's warm-up round until the JIT compiler stayed nearly idle through a whole round,
 * or {@link #MAX_ROUNDS} rounds ran: a figure measured while the compiler still works measures the
 * interpreter and the compiler's share of the cores. A fixed warm-up time does not fit both a host and
 * an emulated guest, where the compiler needs minutes; the compiler's own accounting
 * ({@link CompilationMXBean#getTotalCompilationTime()}) says when it is done, wherever it runs
 * (docs/benchmark.md#warm-up).
 */
public final class JitWarmUp {

    /** One warm-up round: every phase the measurement will run, each for the warm-up time. */
    public interface Round<E extends Exception> {
        /** Runs the round. */
        void run() throws E;
    }

    /** Rounds at most: a compiler that never goes quiet must not keep the benchmark from measuring. */
    public static final int MAX_ROUNDS = 8;
    /**
     * A round counts as quiet when the compiler worked for less than this share of its time: a small
     * part of one core left to it while the figures are taken (docs/benchmark.md#warm-up).
     */
    static final double QUIET_SHARE = 0.05;

    private static final CompilationMXBean JIT = ManagementFactory.getCompilationMXBean();

    private JitWarmUp() {
    }

    /**
     * Runs {@code round} until one was quiet or {@link #MAX_ROUNDS} ran, printing one line per round,
     * and returns the rounds run.
     */
    public static <E extends Exception> int untilQuiet(Round<E> round, PrintStream out) throws E {
        for (int rounds = 1; ; rounds++) {
            long compileMillis = compileMillis();
            long start = System.nanoTime();
            round.run();
            double seconds = (System.nanoTime() - start) / 1e9;
            double share = compileMillis < 0 ? 0 : (compileMillis() - compileMillis) / 1e3 / seconds;
            out.printf(Locale.ROOT, "warm-up round %d: %.1f s, the JIT compiler busy %.1f %% of it%n", rounds,
                    seconds, 100 * share);
            if (share < QUIET_SHARE || rounds == MAX_ROUNDS) {
                return rounds;
            }
        }
    }

    /** Returns the compiler's time so far in milliseconds, or -1 where the JVM does not say. */
    private static long compileMillis() {
        return JIT != null && JIT.isCompilationTimeMonitoringSupported() ? JIT.getTotalCompilationTime() : -1;
    }
}
