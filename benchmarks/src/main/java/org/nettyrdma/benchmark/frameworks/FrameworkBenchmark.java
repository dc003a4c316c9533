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
package org.nettyrdma.benchmark.frameworks;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.netty.util.ResourceLeakDetector;
import org.HdrHistogram.Histogram;
import org.nettyrdma.benchmark.JitWarmUp;
import org.nettyrdma.benchmark.Spread;
import org.nettyrdma.example.ExampleOptions;
import org.nettyrdma.example.Transport;

/**
 * A hello benchmark of one framework's HTTP server and client ({@link HelloRig}) over RDMA and over
 * epoll, in one process: per round and transport, a new server and client; the round trip of
 * {@code GET /hello} on one keep-alive connection (p50, p99), then the requests per second with one
 * request in flight on each of {@code --connections} connections. The transports take turns, their
 * order reversed every other round, so that a drift of the host's load falls on both; warm-up rounds,
 * not counted, run every phase of every transport until the JIT compiler is quiet ({@link JitWarmUp}).
 *
 * <p>Prints an environment line, one {@code framework-round} line per round and transport, then one
 * line that starts with {@code framework NAME }: per transport the median of the rounds with their
 * lowest and highest reading, {@code median[min-max]}, and, with rdma and epoll both measured, the
 * ratios of RDMA's medians to epoll's. A failure prints that line with {@code error=} instead.
 * {@code scripts/frameworks-bench} runs both frameworks in the rxe VM; docs/vertx.md and
 * docs/reactor-netty.md hold the figures.
 */
final class FrameworkBenchmark {

    static final String USAGE_OPTIONS = "[--host ADDRESS] [--transports rdma,epoll] [--rounds 3 (at least 3 "
            + "for a median)] [--connections 4] [--warmup SECONDS per phase, default 8] [--time SECONDS per "
            + "phase, default 3]";
    /**
     * A warm-up round's time per phase, by default: under emulation a framework's code keeps the JIT
     * compiler busy for minutes, and with 3 s phases eight rounds did not quiet it (docs/vertx.md#figures).
     */
    private static final double DEFAULT_WARMUP_SECONDS = 8;
    /** A new connection's first requests are not measured. */
    private static final long SETTLE_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Starting and closing a rig, at most; under emulation a framework's start takes seconds. */
    private static final long RIG_SECONDS = 60;

    private final String framework;
    private final HelloRig.Factory rigs;
    private final String host;
    private final List<Transport> transports;
    private final int rounds;
    private final int connections;
    private final long warmupNanos;
    private final long measureNanos;

    FrameworkBenchmark(String framework, HelloRig.Factory rigs, String host, List<Transport> transports, int rounds,
                       int connections, double warmupSeconds, double measureSeconds) {
        if (rounds < 1 || connections < 1 || transports.isEmpty()) {
            throw new IllegalArgumentException("rounds: " + rounds + ", connections: " + connections
                    + ", transports: " + transports + " (expected: at least 1 each)");
        }
        this.framework = framework;
        this.rigs = rigs;
        this.host = host;
        this.transports = List.copyOf(transports);
        this.rounds = rounds;
        this.connections = connections;
        this.warmupNanos = (long) (warmupSeconds * 1e9);
        this.measureNanos = (long) (measureSeconds * 1e9);
    }

    /** Reads the benchmark's options from {@code args}; {@code usage} names the program. */
    static FrameworkBenchmark fromArguments(String framework, HelloRig.Factory rigs, String usage, String[] args) {
        ExampleOptions options = ExampleOptions.parse(usage, args);
        List<Transport> transports = new ArrayList<>();
        for (String name : options.string("transports", "rdma,epoll").split(",")) {
            transports.add(Transport.of(name.trim()));
        }
        FrameworkBenchmark benchmark = new FrameworkBenchmark(framework, rigs, options.host(), transports,
                options.integer("rounds", 3), options.integer("connections", 4),
                options.seconds("warmup", DEFAULT_WARMUP_SECONDS), options.seconds("time", 3));
        options.checkAllRead();
        return benchmark;
    }

    /**
     * Runs the benchmark, printing on {@code out}, and exits the JVM: 0 when every round measured, 1
     * when one failed (the summary line then says why), 3 when the deadline passed.
     */
    void main(PrintStream out) {
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            // The detector records a stack trace for one buffer in 128: garbage a production setup does not make.
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
        startWatchdog(out);
        int status = 0;
        try {
            run(out);
        } catch (Exception e) {
            out.println("framework " + framework + " error=" + describe(e));
            status = 1;
        }
        out.flush();
        // exit(), not a return: a framework that left a thread behind must not keep the benchmark alive.
        System.exit(status);
    }

    /** Runs the warm-up and the rounds, prints every line and returns the summary line. */
    String run(PrintStream out) throws Exception {
        out.printf(Locale.ROOT, "framework-env framework=%s host=%s java=%s cpus=%d transports=%s rounds=%d"
                        + " connections=%d warmup_s=%.1f time_s=%.1f%n", framework, host,
                System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(), names(transports),
                rounds, connections, warmupNanos / 1e9, measureNanos / 1e9);
        JitWarmUp.untilQuiet(() -> {
            for (Transport transport : transports) {
                measure(transport, warmupNanos);
            }
        }, out);
        Map<Transport, List<Figures>> measured = new LinkedHashMap<>();
        for (int round = 1; round <= rounds; round++) {
            List<Transport> order = new ArrayList<>(transports);
            if (round % 2 == 0) {
                Collections.reverse(order);
            }
            for (Transport transport : order) {
                Figures figures = measure(transport, measureNanos);
                measured.computeIfAbsent(transport, key -> new ArrayList<>()).add(figures);
                out.printf(Locale.ROOT, "framework-round framework=%s round=%d transport=%s p50_us=%.1f p99_us=%.1f"
                        + " rps=%.1f round_trips=%d%n", framework, round, transport.displayName(), figures.p50Micros(),
                        figures.p99Micros(), figures.requestsPerSecond(), figures.roundTrips());
            }
        }
        String summary = summary(measured);
        out.println(summary);
        return summary;
    }

    /** One transport's phases on a new server and client. */
    private Figures measure(Transport transport, long nanos) throws Exception {
        try (HelloRig rig = rigs.start(transport, host)) {
            rig.roundTrips(Math.min(SETTLE_NANOS, nanos));
            Histogram roundTrips = rig.roundTrips(nanos);
            long requests = rig.requests(connections, nanos);
            return new Figures(roundTrips.getValueAtPercentile(50) / 1e3, roundTrips.getValueAtPercentile(99) / 1e3,
                    roundTrips.getTotalCount(), requests / (nanos / 1e9));
        }
    }

    /** Returns the {@code framework NAME ...} line. */
    String summary(Map<Transport, List<Figures>> measured) {
        StringBuilder line = new StringBuilder("framework ").append(framework).append(" rounds=").append(rounds)
                .append(" connections=").append(connections);
        Map<Transport, Spread[]> spreads = new LinkedHashMap<>();
        for (Map.Entry<Transport, List<Figures>> entry : measured.entrySet()) {
            List<Figures> figures = entry.getValue();
            Spread[] spread = {
                Spread.of(figures.stream().mapToDouble(Figures::p50Micros).toArray()),
                Spread.of(figures.stream().mapToDouble(Figures::p99Micros).toArray()),
                Spread.of(figures.stream().mapToDouble(Figures::requestsPerSecond).toArray()),
            };
            spreads.put(entry.getKey(), spread);
            String name = entry.getKey().displayName().replace('-', '_');
            line.append(' ').append(name).append("_p50_us=").append(compact(spread[0], 1))
                    .append(' ').append(name).append("_p99_us=").append(compact(spread[1], 1))
                    .append(' ').append(name).append("_rps=").append(compact(spread[2], 1));
        }
        Spread[] rdma = spreads.get(Transport.RDMA);
        Spread[] epoll = spreads.get(Transport.EPOLL);
        if (rdma != null && epoll != null) {
            line.append(String.format(Locale.ROOT, " p50_ratio=%.2f p99_ratio=%.2f rps_ratio=%.2f",
                    rdma[0].median() / epoll[0].median(), rdma[1].median() / epoll[1].median(),
                    rdma[2].median() / epoll[2].median()));
        }
        return line.toString();
    }

    /** Returns {@code median[min-max]}, without spaces, so that the line stays {@code key=value} pairs. */
    private static String compact(Spread spread, int decimals) {
        String number = "%." + decimals + 'f';
        return String.format(Locale.ROOT, number + '[' + number + '-' + number + ']', spread.median(), spread.min(),
                spread.max());
    }

    private static String names(List<Transport> transports) {
        return String.join(",", transports.stream().map(Transport::displayName).toList());
    }

    private static String describe(Throwable e) {
        String message = e.getMessage();
        return (e.getClass().getSimpleName() + (message == null ? "" : ": " + message)).replace('\n', ' ');
    }

    /**
     * Starts a daemon thread that prints the summary line with an error and halts the JVM with status 3
     * once the run has taken longer than it can: a benchmark that hangs must still end, and say so.
     */
    private void startWatchdog(PrintStream out) {
        long phase = TimeUnit.NANOSECONDS.toSeconds(SETTLE_NANOS + 2 * Math.max(warmupNanos, measureNanos)) + 1;
        long seconds = (long) transports.size() * (JitWarmUp.MAX_ROUNDS + rounds) * (phase + 3 * RIG_SECONDS);
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
            } catch (InterruptedException e) {
                return;
            }
            out.println("framework " + framework + " error=watchdog: no result after " + seconds + " s");
            out.flush();
            Runtime.getRuntime().halt(3);
        }, "benchmark-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
    }

    /** What one round measured of one transport. */
    record Figures(double p50Micros, double p99Micros, long roundTrips, double requestsPerSecond) {
    }
}
