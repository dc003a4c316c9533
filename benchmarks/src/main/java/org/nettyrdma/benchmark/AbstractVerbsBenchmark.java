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

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.nettyrdma.channel.rdma.internal.NativeLibrary;
import org.nettyrdma.example.ExampleOptions;

/**
 * What the floor benchmarks ({@link VerbsPingPong}, {@link VerbsWriteStream}) share: their options and
 * {@code main}, the name their figures go by ({@code java-verbs} by default, {@code java-verbs-send} with
 * {@code --send-slot}, each with {@code -events} when both ends wait for events), the watchdog's deadlines,
 * and the table they print. A subclass warms up or measures one size on a connection of its own and formats
 * its row; this class runs the warm-up of every size, then each measured round ({@link MeasuredRounds}) of
 * every size, so that both programs print the same {@code bench-env}, {@code bench-ready} and
 * {@code bench-round-end} lines and the same error rows for {@link BenchmarkReport}. Used by one thread at a
 * time.
 */
abstract class AbstractVerbsBenchmark {

    /** Connecting, a stalled message or stream, disconnecting: what takes longer is stuck. */
    static final long TIMEOUT_SECONDS = 20;

    /** The smallest {@code --send-slot}: the smallest {@code SLOT_SIZE} the transport takes. */
    static final int MIN_SEND_SLOT = 256;
    /** The largest {@code --send-slot}: the largest {@code SLOT_SIZE} the transport takes. */
    static final int MAX_SEND_SLOT = 1 << 20;

    private static final int[] DEFAULT_SIZES = {64, 4096, 65536};

    /** The address of the RDMA device both ends use. */
    protected final InetAddress host;
    /** The message sizes, each measured on a connection of its own. */
    protected final int[] sizes;
    /** Both ends sleep on their completion channel when idle, instead of busy polling. */
    protected final boolean waitForEvents;
    /**
     * With {@code --send-slot}, the largest Send and the size of a receive, as the transport's
     * {@code SLOT_SIZE} (docs/options.md): every byte goes by Sends of at most this many. Empty: the floor
     * of the whole message (one Send per message in the round trip, RDMA Writes in the stream).
     */
    protected final OptionalInt sendSlot;
    /** The length of one warm-up round ({@link JitWarmUp}) per size. */
    protected final long warmupNanos;
    /**
     * How long a measured round's new connection runs before its window: its first moments are not
     * measured, as in {@link TransportBenchmark}.
     */
    protected final long settleNanos;
    /** The length of the measured window per size. */
    protected final long measureNanos;

    /**
     * Makes a benchmark between two ends on {@code host} for each of {@code sizes} (1 to {@code maxSize}
     * bytes), busy polling or waiting for events, in Sends of at most {@code sendSlot} bytes if present,
     * with the seconds of warm-up and of measurement per size.
     */
    AbstractVerbsBenchmark(InetAddress host, int[] sizes, int maxSize, boolean waitForEvents, OptionalInt sendSlot,
                           double warmupSeconds, double measureSeconds) {
        if (sendSlot.isPresent() && (sendSlot.getAsInt() < MIN_SEND_SLOT || sendSlot.getAsInt() > MAX_SEND_SLOT)) {
            throw new IllegalArgumentException("--send-slot: " + sendSlot.getAsInt() + " (expected: " + MIN_SEND_SLOT
                    + " to " + MAX_SEND_SLOT + ")");
        }
        if (sizes.length == 0 || Arrays.stream(sizes).anyMatch(size -> size < 1 || size > maxSize)) {
            throw new IllegalArgumentException("sizes: " + Arrays.toString(sizes) + " (expected: "
                    + (maxSize == Integer.MAX_VALUE ? ">= 1" : "1 to " + maxSize) + " each)");
        }
        this.host = host;
        this.sizes = sizes.clone();
        this.waitForEvents = waitForEvents;
        this.sendSlot = sendSlot;
        this.warmupNanos = (long) (warmupSeconds * 1e9);
        this.measureNanos = (long) (measureSeconds * 1e9);
        this.settleNanos = Math.min(TimeUnit.SECONDS.toNanos(1), warmupNanos);
    }

    /** A subclass's public constructor, which {@link #main} calls with the options it parsed. */
    @FunctionalInterface
    interface Factory {
        AbstractVerbsBenchmark create(InetAddress host, int[] sizes, boolean waitForEvents, OptionalInt sendSlot,
                                      double warmupSeconds, double measureSeconds);
    }

    /**
     * The {@code main} of the program named {@code program}: parses {@code args}, runs the benchmark
     * {@code factory} makes under a watchdog, and exits with status 1 if a size failed, 2 on a bad argument,
     * 3 if a deadline passed.
     */
    static void main(String program, String[] args, Factory factory) throws Exception {
        String usage = "usage: " + program + " [--host ADDRESS] [--sizes 64,4k,64k] "
                + "[--wait busypoll|events] [--send-slot BYTES (" + MIN_SEND_SLOT + " to 1m, e.g. 8k): every byte by"
                + " Sends of at most BYTES into receives of BYTES] [--warmup SECONDS, default 3] "
                + "[--time SECONDS, default 3] " + MeasuredRounds.USAGE;
        ExampleOptions options = ExampleOptions.parse(usage, args);
        String host = options.host();
        int[] sizes = options.integers("sizes", DEFAULT_SIZES);
        String wait = options.string("wait", "busypoll");
        OptionalInt sendSlot = options.string("send-slot", null) == null ? OptionalInt.empty()
                : OptionalInt.of(options.integer("send-slot", 0));
        double warmup = options.seconds("warmup", 3);
        double time = options.seconds("time", 3);
        String rounds = options.string("rounds", "1");
        options.checkAllRead();
        if (!"busypoll".equals(wait) && !"events".equals(wait)) {
            System.err.println("--wait: " + wait + " (expected: busypoll or events)\n" + usage);
            System.exit(2);
        }

        AbstractVerbsBenchmark benchmark;
        try {
            benchmark = factory.create(InetAddress.getByName(host), sizes, "events".equals(wait), sendSlot, warmup,
                    time);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage() + "\n" + usage);
            System.exit(2);
            return;
        }
        NativeLibrary.ensureLoaded();
        List<Result> results = benchmark.run(System.out, MeasuredRounds.parse(rounds, System.in),
                Watchdog.of(benchmark.name()));
        // exit(), not a return: a peer's thread stuck in a verb must not keep the program alive.
        System.exit(results.stream().anyMatch(result -> result.error() != null) ? 1 : 0);
    }

    /**
     * Returns the floor's name: {@link VerbsPingPong#BUSY_POLL} or {@link VerbsPingPong#EVENTS}, or with
     * {@link #sendSlot} {@link VerbsPingPong#SEND_BUSY_POLL} or {@link VerbsPingPong#SEND_EVENTS}.
     */
    String name() {
        if (sendSlot.isPresent()) {
            return waitForEvents ? VerbsPingPong.SEND_EVENTS : VerbsPingPong.SEND_BUSY_POLL;
        }
        return waitForEvents ? VerbsPingPong.EVENTS : VerbsPingPong.BUSY_POLL;
    }

    /** Returns how both ends wait, for the title line. */
    String waiting() {
        return waitForEvents ? "wait on the completion channel" : "busy-poll their CQ";
    }

    /** Returns the seconds after which the warm-up of every size must have finished. */
    long warmUpDeadlineSeconds() {
        long warmingUp = TimeUnit.NANOSECONDS.toSeconds(JitWarmUp.MAX_ROUNDS * warmupNanos) + JitWarmUp.MAX_ROUNDS;
        return 60 + sizes.length * (warmingUp + 4 * TIMEOUT_SECONDS);
    }

    /** Returns the seconds after which a measured round of every size must have finished. */
    long roundDeadlineSeconds() {
        long measuring = TimeUnit.NANOSECONDS.toSeconds(settleNanos + measureNanos) + 2;
        return 60 + sizes.length * (measuring + 4 * TIMEOUT_SECONDS);
    }

    /**
     * Warms every size up, then measures every size for each of {@code rounds}, printing a table row as
     * each size finishes and each round's lines at its end, and returns the results of every round.
     * {@code watchdog} is armed for the warm-up and for each round, and disarmed while the next round is
     * awaited.
     *
     * @throws IOException if {@code rounds} cannot be read
     */
    public final List<Result> run(PrintStream out, MeasuredRounds rounds, Watchdog watchdog)
            throws IOException, InterruptedException {
        out.println(String.format(Locale.ROOT, "bench-env transport=%s host=%s java=%s cpus=%d sizes=%s"
                        + " warmup_s=%.1f time_s=%.1f", name(), host.getHostAddress(),
                System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(),
                Arrays.stream(sizes).mapToObj(Integer::toString).collect(Collectors.joining(",")),
                warmupNanos / 1e9, measureNanos / 1e9));
        printTitle(out);
        watchdog.arm(warmUpDeadlineSeconds(), 0);
        long warmUpStart = System.nanoTime();
        out.printf(Locale.ROOT, "warm-up: every size on a connection of its own, rounds of %.1f s until the JIT"
                + " compiler is quiet (at most %d), not counted%n", warmupNanos / 1e9, JitWarmUp.MAX_ROUNDS);
        for (int size : sizes) {
            Result warmUp = runOrFail(size, true, out);
            if (warmUp.error() != null) {
                out.println("  warm-up, " + size + " B: " + warmUp.error());
            }
        }
        out.printf(Locale.ROOT, "bench-ready transport=%s seconds=%.1f%n", name(),
                (System.nanoTime() - warmUpStart) / 1e9);
        watchdog.disarm();
        List<Result> results = new ArrayList<>();
        for (int round; (round = rounds.next()) > 0; ) {
            watchdog.arm(roundDeadlineSeconds(), round);
            results.addAll(measuredRound(round, out));
            watchdog.disarm();
        }
        return results;
    }

    /** Measures every size on a new connection and prints the round's lines, marked with {@code round}. */
    private List<Result> measuredRound(int round, PrintStream out) throws InterruptedException {
        long start = System.nanoTime();
        out.printf(Locale.ROOT, "measured round %d: every size on a new connection, %.1f s settling, %.1f s"
                + " measured%n", round, settleNanos / 1e9, measureNanos / 1e9);
        printColumns(out);
        List<Result> results = new ArrayList<>();
        for (int size : sizes) {
            Result result = runOrFail(size, false, out);
            results.add(result);
            // A failed size has an error and no figures, a measured one figures and no error.
            out.println(result.error() != null ? String.format("%8d | error: %s", size, result.error())
                    : row(size, result));
        }
        for (Result result : results) {
            out.println(result.toLine(round));
        }
        out.printf(Locale.ROOT, "bench-round-end transport=%s round=%d seconds=%.1f%n", name(), round,
                (System.nanoTime() - start) / 1e9);
        return results;
    }

    /** The end of a size's connection that accepts it, run on a thread of its own. */
    interface PassiveEnd extends Runnable {
        /** Returns why this end failed, or {@code null}; may be called from any thread. */
        Throwable failure();
    }

    /** The end of a size's connection that connects to the passive end and measures, on the calling thread. */
    @FunctionalInterface
    interface ActiveEnd<P extends PassiveEnd, T> {
        /**
         * Connects to {@code server}, measures, and stops the passive end {@code passive}, which runs on
         * {@code passiveThread}; returns the figures.
         */
        T run(InetSocketAddress server, P passive, Thread passiveThread) throws IOException;
    }

    /**
     * Runs one size's connection: listens on {@link #host}, starts the passive end {@code passiveEnd} makes
     * on a daemon thread named {@code threadName}, runs {@code activeEnd} on the calling thread, and returns
     * its figures once the passive end has finished.
     *
     * @param role what the passive end is, for the exception that says it failed
     * @throws IOException if either end failed
     */
    final <P extends PassiveEnd, T> T connection(Function<VerbsListener, P> passiveEnd, String threadName,
                                                 String role, ActiveEnd<P, T> activeEnd)
            throws IOException, InterruptedException {
        try (VerbsListener listener = VerbsListener.listen(host)) {
            P passive = passiveEnd.apply(listener);
            Thread passiveThread = new Thread(passive, threadName);
            passiveThread.setDaemon(true);
            passiveThread.start();
            T figures;
            try {
                figures = activeEnd.run(listener.address(), passive, passiveThread);
            } finally {
                // The listener's channel must outlive the passive end's accept.
                passiveThread.join(TimeUnit.SECONDS.toMillis(3 * TIMEOUT_SECONDS));
            }
            if (passive.failure() != null) {
                throw new IOException("the " + role + " failed", passive.failure());
            }
            return figures;
        }
    }

    /** Prints the line that says what is measured, after the {@code bench-env} line. */
    abstract void printTitle(PrintStream out);

    /** Prints the table's column headings. */
    abstract void printColumns(PrintStream out);

    /** Warms up or measures one size on a connection of its own; a failure is a result with an error. */
    private Result runOrFail(int size, boolean warmUp, PrintStream out) throws InterruptedException {
        try {
            return measure(size, warmUp, out);
        } catch (IOException | RuntimeException e) {
            return new Result(name(), size, null, null, TransportBenchmark.describe(e));
        }
    }

    /**
     * On a connection of its own (see {@link #connection}): with {@code warmUp}, runs warm-up rounds of
     * {@link #warmupNanos} until the JIT compiler is quiet ({@link JitWarmUp}) and returns a result without
     * figures; else runs for {@link #settleNanos}, then measures for {@link #measureNanos} and returns the
     * figures.
     */
    abstract Result measure(int size, boolean warmUp, PrintStream out) throws IOException, InterruptedException;

    /** Returns the table row of {@code result}, which has figures. */
    abstract String row(int size, Result result);
}
