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
package org.nettyrdma.example.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.HdrHistogram.Histogram;
import org.nettyrdma.channel.rdma.internal.NativeLibrary;
import org.nettyrdma.example.ExampleOptions;

/**
 * The floor under {@link TransportBenchmark}'s round trip: the same ping-pong of one message, in plain
 * Java on DiSNI's verbs, with no Netty, no pipeline and no protocol of the transport's. One process holds
 * a server end ({@link VerbsEcho}, a thread of its own) and a client end (the calling thread), connected
 * over RDMA CM as an RC queue pair pair. The client posts a Send, polls its CQ until the answer's receive
 * completes, records the time in an HdrHistogram, posts the receive again, and sends the next; the server
 * answers each message with a Send. With {@code --wait busypoll} (the default) both ends poll their CQ
 * without a pause, as perftest's {@code ib_send_lat} and the {@code rdma-busypoll} transport do; with
 * {@code --wait events} both arm the CQ and sleep on its completion channel when it is empty, as the
 * {@code rdma} transport's event loop does.
 *
 * <p>For every size, on a connection of its own: {@code --warmup} seconds of round trips not counted (the
 * JIT compiler's time), then {@code --time} seconds measured. The round trip is timed as
 * {@link PingPong} times it: from before the Send is posted until its answer's completion is polled.
 * Prints a table, then one {@code bench transport=java-verbs ...} line per size ({@link Result#toLine()},
 * round-trip fields only) for {@link BenchmarkReport}. {@code scripts/demo} runs it in the rxe VM after
 * perftest; {@code docs/benchmark.md} reads the figures.
 *
 * <pre>
 * java ... org.nettyrdma.example.bench.VerbsPingPong --host 10.77.0.1 --sizes 64 --warmup 4 --time 4
 * </pre>
 */
public final class VerbsPingPong {

    /** The name of the figures with both ends busy polling. */
    public static final String BUSY_POLL = "java-verbs";
    /** The name of the figures with both ends waiting on the completion channel. */
    public static final String EVENTS = "java-verbs-events";

    private static final String USAGE = "usage: VerbsPingPong [--host ADDRESS] [--sizes 64,4k,64k] "
            + "[--wait busypoll|events] [--warmup SECONDS, default 3] [--time SECONDS, default 3]";
    private static final int[] DEFAULT_SIZES = {64, 4096, 65536};
    /** Longer round trips are recorded as this: the histogram never resizes, so never allocates. */
    private static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(60);
    /** Connecting, a stalled message, disconnecting: what takes longer is stuck. */
    private static final long TIMEOUT_SECONDS = 20;

    private final InetAddress host;
    private final int[] sizes;
    private final boolean waitForEvents;
    private final long warmupNanos;
    private final long measureNanos;

    /**
     * Creates a ping-pong between two ends on {@code host} for each of {@code sizes}, busy polling or
     * waiting for events, with the seconds of warm-up and of measurement per size.
     */
    public VerbsPingPong(InetAddress host, int[] sizes, boolean waitForEvents, double warmupSeconds,
                         double measureSeconds) {
        if (sizes.length == 0 || Arrays.stream(sizes).anyMatch(size -> size < 1)) {
            throw new IllegalArgumentException("sizes: " + Arrays.toString(sizes) + " (expected: >= 1 each)");
        }
        this.host = host;
        this.sizes = sizes.clone();
        this.waitForEvents = waitForEvents;
        this.warmupNanos = (long) (warmupSeconds * 1e9);
        this.measureNanos = (long) (measureSeconds * 1e9);
    }

    /** Runs the ping-pong; exits with status 1 if a size failed, 3 if the deadline passed. */
    public static void main(String[] args) throws Exception {
        ExampleOptions options = ExampleOptions.parse(USAGE, args);
        String host = options.host();
        int[] sizes = options.integers("sizes", DEFAULT_SIZES);
        String wait = options.string("wait", "busypoll");
        double warmup = options.seconds("warmup", 3);
        double time = options.seconds("time", 3);
        options.checkAllRead();
        if (!"busypoll".equals(wait) && !"events".equals(wait)) {
            System.err.println("--wait: " + wait + " (expected: busypoll or events)\n" + USAGE);
            System.exit(2);
        }

        NativeLibrary.ensureLoaded();
        VerbsPingPong pingPong = new VerbsPingPong(InetAddress.getByName(host), sizes, "events".equals(wait),
                warmup, time);
        TransportBenchmark.startWatchdog(pingPong.name(), pingPong.deadlineSeconds());
        List<Result> results = pingPong.run(System.out);
        for (Result result : results) {
            System.out.println(result.toLine());
        }
        // exit(), not a return: a server end stuck in a verb must not keep the program alive.
        System.exit(results.stream().anyMatch(result -> result.error() != null) ? 1 : 0);
    }

    /** Returns {@link #BUSY_POLL} or {@link #EVENTS}. */
    String name() {
        return waitForEvents ? EVENTS : BUSY_POLL;
    }

    /** Returns the seconds after which a run must have finished, whatever went wrong in it. */
    long deadlineSeconds() {
        long running = TimeUnit.NANOSECONDS.toSeconds(JitWarmUp.MAX_ROUNDS * warmupNanos + measureNanos)
                + JitWarmUp.MAX_ROUNDS + 2;
        return 60 + sizes.length * (running + 4 * TIMEOUT_SECONDS);
    }

    /** Runs every size, printing a table row as each finishes, and returns the results. */
    public List<Result> run(PrintStream out) throws InterruptedException {
        out.println(String.format(Locale.ROOT, "bench-env transport=%s host=%s java=%s cpus=%d sizes=%s"
                        + " warmup_s=%.1f time_s=%.1f", name(), host.getHostAddress(),
                System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(),
                Arrays.stream(sizes).mapToObj(Integer::toString).collect(Collectors.joining(",")),
                warmupNanos / 1e9, measureNanos / 1e9));
        out.printf(Locale.ROOT, "%s: one message ping-ponged between two RC queue pairs on %s, no Netty; both ends %s"
                + "%n", name(), host.getHostAddress(), waitForEvents ? "wait on the completion channel"
                : "busy-poll their CQ");
        out.printf(Locale.ROOT, "per size: warm-up rounds of %.1f s until the JIT compiler is quiet (at most %d), not"
                + " counted, then %.1f s measured%n", warmupNanos / 1e9, JitWarmUp.MAX_ROUNDS, measureNanos / 1e9);
        out.printf("%8s | %8s %8s %8s %11s %9s %10s%n", "bytes", "p50 us", "p99 us", "p99.9 us", "round trips",
                "CPU us/rt", "alloc B/rt");
        List<Result> results = new ArrayList<>();
        for (int size : sizes) {
            Result result = measure(size, out);
            results.add(result);
            Result.RoundTrip r = result.roundTrip();
            out.println(r == null ? String.format("%8d | error: %s", size, result.error())
                    : String.format(Locale.ROOT, "%8d | %8.1f %8.1f %8.1f %11d %9.1f %10.1f", size, r.p50Micros(),
                            r.p99Micros(), r.p999Micros(), r.roundTrips(), r.cpuMicrosPerRoundTrip(),
                            r.allocatedBytesPerRoundTrip()));
        }
        return results;
    }

    /** Measures one size on a connection of its own; a failure is a result with an error. */
    private Result measure(int size, PrintStream out) throws InterruptedException {
        Result.RoundTrip figures;
        try (VerbsListener listener = VerbsListener.listen(host)) {
            VerbsEcho echo = new VerbsEcho(listener, size, waitForEvents);
            Thread server = new Thread(echo, "verbs-echo");
            server.setDaemon(true);
            server.start();
            try (VerbsPeer client = VerbsPeer.connect(listener.address(), size, waitForEvents)) {
                figures = pingPong(client, server, out);
                stop(client);
            } finally {
                // The listener's channel must outlive the server end's accept.
                server.join(TimeUnit.SECONDS.toMillis(3 * TIMEOUT_SECONDS));
            }
            if (echo.failure() != null) {
                throw new IOException("the server end failed", echo.failure());
            }
        } catch (IOException | RuntimeException e) {
            return new Result(name(), size, null, null, TransportBenchmark.describe(e));
        }
        return new Result(name(), size, null, figures, null);
    }

    /** Warms up, then measures: returns the measured window's figures. */
    private Result.RoundTrip pingPong(VerbsPeer client, Thread server, PrintStream out) throws IOException {
        Histogram histogram = new Histogram(HIGHEST_NANOS, 3);
        // The same rule as the transports' warm-up, though this loop needs far less compiling.
        JitWarmUp.untilQuiet(() -> roundTrips(client, warmupNanos, histogram), out);
        histogram.reset();
        LoopMeter meter = LoopMeter.of(Thread.currentThread(), server);
        LoopMeter.Sample start = meter.sample(0);
        long roundTrips = roundTrips(client, measureNanos, histogram);
        LoopMeter.Sample end = meter.sample(roundTrips);
        return new Result.RoundTrip(roundTrips, percentile(histogram, 50), percentile(histogram, 99),
                percentile(histogram, 99.9), end.cpuNanosSince(start) / 1e3 / roundTrips,
                end.allocatedBytesSince(start) / roundTrips, Double.NaN, Double.NaN);
    }

    private static double percentile(Histogram histogram, double percentile) {
        return TransportBenchmark.micros(histogram.getValueAtPercentile(percentile));
    }

    /** Ping-pongs for {@code nanos}, recording every round trip; returns how many there were. */
    private static long roundTrips(VerbsPeer client, long nanos, Histogram histogram) throws IOException {
        long roundTrips = 0;
        long end = System.nanoTime() + nanos;
        long answeredAt;
        do {
            long sentAt = System.nanoTime();
            client.send(VerbsPeer.PING);
            int slot = client.awaitReceive();
            answeredAt = System.nanoTime();
            client.repostReceive(slot);
            histogram.recordValue(Math.min(answeredAt - sentAt, HIGHEST_NANOS));
            roundTrips++;
        } while (answeredAt - end < 0);
        return roundTrips;
    }

    /** Sends {@link VerbsPeer#STOP} and waits for its answer: then the server end is closing too. */
    private static void stop(VerbsPeer client) throws IOException {
        client.send(VerbsPeer.STOP);
        byte answer = client.kind(client.awaitReceive());
        if (answer != VerbsPeer.STOP) {
            throw new IOException("the server end answered the stop with a message of kind " + answer);
        }
    }
}
