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

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Turns the lines of one run of {@code scripts/demo} into its report: per message size, RDMA next to TCP
 * (epoll, nio), perftest and the same stream and round trip in plain Java on raw verbs
 * ({@link VerbsWriteStream}, {@link VerbsPingPong}: the floor), with ratios, then what each costs, then the
 * project's targets, met or missed. The floor's two programs print lines of one name; the fields of a size
 * merge into one row. It reads perftest's lines ({@code perftest TOOL size=N ...}, {@code perftest-env ...}),
 * the benchmarks' ({@code bench ...}, {@code bench-env ...}, {@code bench-end ...}; {@code bench-failed ...}
 * from the script when a run printed nothing), the examples' result lines ({@code example ...}), the
 * frameworks' hello benchmarks' summary lines ({@code framework NAME ...}, shown as they are) and the
 * script's own ({@code demo-env ...}, {@code demo-note ...}, shown under the heading); anything else is
 * ignored.
 * No figure is judged here that was not measured in that same run.
 *
 * <pre>
 * java -cp benchmarks/target/classes org.nettyrdma.benchmark.BenchmarkReport benchmarks/target/demo/results.txt
 * </pre>
 */
public final class BenchmarkReport {

    /** RDMA on the default loops: they poll after work as the gaps between completions suggest. */
    private static final String RDMA = "rdma";
    /** RDMA on loops that never poll: they sleep as soon as they find nothing. */
    private static final String RDMA_NOPOLL = "rdma-nopoll";
    /** RDMA on loops that busy-poll, as perftest does: shown where measured. */
    private static final String RDMA_BUSYPOLL = "rdma-busypoll";
    /**
     * The floor: the same stream and round trip in plain Java on DiSNI's verbs, busy polling
     * ({@link VerbsWriteStream}, {@link VerbsPingPong}).
     */
    private static final String JAVA_VERBS = VerbsPingPong.BUSY_POLL;
    /** The floor with both ends waiting on the completion channel, as {@code rdma}'s loops wait. */
    private static final String JAVA_VERBS_EVENTS = VerbsPingPong.EVENTS;
    private static final String[] TRANSPORTS = {RDMA, RDMA_NOPOLL, RDMA_BUSYPOLL, "epoll", "nio", JAVA_VERBS,
        JAVA_VERBS_EVENTS};
    /** The default loops' 64 B round trip against busy polling's: at most this (the goal is 1.3). */
    private static final double TARGET_ADAPTIVE_LATENCY_RATIO = 2.0;
    /** The most of a core, in %, a default loop may use while its connection is idle. */
    private static final double TARGET_IDLE_LOOP_PCT = 1.0;
    private static final int TARGET_BANDWIDTH_SIZE = 65536;
    private static final double TARGET_BANDWIDTH_RATIO = 0.9;
    private static final int TARGET_LATENCY_SIZE = 64;
    private static final double TARGET_LATENCY_RATIO = 1.5;
    /** The qemu whose multi-threaded TCG the latency figures are meant for. */
    private static final String INTENDED_QEMU_MAJOR = "10";

    private final Map<String, String> environment = new HashMap<>();
    /** transport, then size, then the line's fields. */
    private final Map<String, Map<Integer, Map<String, String>>> bench = new TreeMap<>();
    /** perftest tool, then size, then the line's fields. */
    private final Map<String, Map<Integer, Map<String, String>>> perftest = new TreeMap<>();
    /** transport, then its {@code bench-idle} line's fields. */
    private final Map<String, Map<String, String>> idle = new TreeMap<>();
    private final List<String> examples = new ArrayList<>();
    /** The frameworks' summary lines ({@code frameworks.FrameworkBenchmark}), without their first word. */
    private final List<String> frameworks = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private final List<String> failedRuns = new ArrayList<>();
    private String registeredAfterShutdown;

    /** Reads the files named, or standard input, and prints the report. */
    public static void main(String[] args) throws IOException {
        BenchmarkReport report = new BenchmarkReport();
        if (args.length == 0) {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line; (line = in.readLine()) != null; ) {
                report.add(line);
            }
        }
        for (String file : args) {
            for (String line : Files.readAllLines(Path.of(file), StandardCharsets.UTF_8)) {
                report.add(line);
            }
        }
        System.out.print(report.render());
    }

    /** Takes one line of output; lines of no known kind are ignored. */
    public void add(String line) {
        String trimmed = line.strip();
        int space = trimmed.indexOf(' ');
        if (space < 0) {
            return;
        }
        String kind = trimmed.substring(0, space);
        String rest = trimmed.substring(space + 1);
        switch (kind) {
            case "perftest-env":
            case "bench-env":
            case "demo-env":
                // The first bench-env's java and cpus stand for all: one VM, one JDK.
                fields(rest).forEach(environment::putIfAbsent);
                break;
            case "perftest": {
                int toolEnd = rest.indexOf(' ');
                if (toolEnd > 0) {
                    addPerftest(rest.substring(0, toolEnd), fields(rest.substring(toolEnd + 1)));
                }
                break;
            }
            case "bench":
                addBench(fields(rest));
                break;
            case "bench-failed": {
                Map<String, String> fields = fields(rest);
                failedRuns.add(fields.get("transport") + ": " + fields.get("error"));
                break;
            }
            case "bench-end":
                registeredAfterShutdown = fields(rest).get("registered_B_after_shutdown");
                break;
            case "bench-idle": {
                Map<String, String> fields = fields(rest);
                idle.put(fields.get("transport"), fields);
                break;
            }
            case "example":
                examples.add(rest);
                break;
            case "framework":
                frameworks.add(rest);
                break;
            case "demo-note":
                notes.add(rest);
                break;
            default:
                break;
        }
    }

    /**
     * Keeps perftest's better reading of a tool at a size ({@code scripts/demo} reads the compared ones
     * twice, before and after the JVM programs, on a shared host): the higher bandwidth, the lower
     * latency, so that a ratio against perftest never rests on its worse moment. A failed reading never
     * replaces one with a figure. Every reading, in order, goes into the field {@code readings}.
     */
    private void addPerftest(String tool, Map<String, String> fields) {
        String figure = perftestFigure(fields);
        String size = fields.get("size");
        Map<String, String> earlier;
        try {
            earlier = size == null ? Map.of() : perftest(tool, Integer.parseInt(size));
        } catch (NumberFormatException e) {
            return;
        }
        String reading = fields.getOrDefault(figure, "error");
        if (earlier.isEmpty()) {
            fields.put("readings", reading);
            put(perftest, tool, fields);
            return;
        }
        double now = number(fields, figure);
        double before = number(earlier, perftestFigure(earlier));
        boolean better = !Double.isNaN(now)
                && (Double.isNaN(before) || (figure.equals("MBps") ? now > before : now < before));
        Map<String, String> kept = new HashMap<>(better ? fields : earlier);
        kept.put("readings", earlier.get("readings") + ", " + reading);
        put(perftest, tool, kept);
    }

    /**
     * Keeps a benchmark's line, merged into an earlier one of the same transport and size: the floor's stream
     * ({@link VerbsWriteStream}) and round trip ({@link VerbsPingPong}) are two programs with one name, and
     * neither's fields may hide the other's. Where both failed, both errors are kept.
     */
    private void addBench(Map<String, String> fields) {
        String transport = fields.get("transport");
        String size = fields.get("size");
        Map<String, String> earlier;
        try {
            earlier = transport == null || size == null ? Map.of() : bench(transport, Integer.parseInt(size));
        } catch (NumberFormatException e) {
            return;
        }
        if (earlier.isEmpty()) {
            put(bench, null, fields);
            return;
        }
        Map<String, String> merged = new HashMap<>(earlier);
        merged.putAll(fields);
        if (earlier.containsKey("error") && fields.containsKey("error")) {
            merged.put("error", earlier.get("error") + "; " + fields.get("error"));
        }
        put(bench, null, merged);
    }

    /** Returns the field a perftest line is judged by: its bandwidth, or else its typical latency. */
    private static String perftestFigure(Map<String, String> fields) {
        return fields.containsKey("MBps") ? "MBps" : "usec_typical";
    }

    private static void put(Map<String, Map<Integer, Map<String, String>>> into, String key, Map<String, String> fields) {
        String name = key != null ? key : fields.get("transport");
        String size = fields.get("size");
        if (name == null || size == null) {
            return;
        }
        try {
            into.computeIfAbsent(name, k -> new TreeMap<>()).put(Integer.parseInt(size), fields);
        } catch (NumberFormatException ignored) {
            // A line that is not ours.
        }
    }

    /** Splits {@code key=value} fields; {@code error=} takes the rest of the line, spaces and all. */
    static Map<String, String> fields(String text) {
        Map<String, String> fields = new HashMap<>();
        int error = text.startsWith("error=") ? 0 : text.indexOf(" error=");
        String plain = error < 0 ? text : text.substring(0, error);
        for (String field : plain.trim().split("\\s+")) {
            int equals = field.indexOf('=');
            if (equals > 0) {
                fields.put(field.substring(0, equals), field.substring(equals + 1));
            }
        }
        if (error >= 0) {
            fields.put("error", text.substring(text.indexOf("error=", error) + "error=".length()));
        }
        return fields;
    }

    /** Returns the report. */
    public String render() {
        StringBuilder out = new StringBuilder();
        header(out);
        throughput(out);
        roundTrip(out);
        costs(out);
        errors(out);
        targets(out);
        if (!frameworks.isEmpty()) {
            out.append("\nFrameworks over RDMA and epoll: median[min-max] of the rounds (docs/vertx.md, "
                    + "docs/reactor-netty.md)\n");
            for (String framework : frameworks) {
                out.append("  ").append(framework).append('\n');
            }
        }
        if (!examples.isEmpty()) {
            out.append("\nExamples over RDMA\n");
            for (String example : examples) {
                out.append("  ").append(example).append('\n');
            }
        }
        return out.toString();
    }

    private void header(StringBuilder out) {
        out.append("RDMA, TCP and perftest measured in one VM run\n");
        line(out, "  qemu %s, %s thread=%s, %s vCPUs, kernel %s; %s (Soft-RoCE), active MTU %s; java %s%n",
                env("qemu"), env("accel"), env("tcg_thread"), env("cpus"), env("kernel"), env("device"),
                env("active_mtu"), env("java"));
        if (environment.containsKey("host_other_cpu")) {
            // The guest is emulated on a shared host: other processes' CPU slows every figure of the run.
            line(out, "  host: other processes used %s of its %s cores' CPU during the VM run (steal %s)%n",
                    env("host_other_cpu"), env("host_cores"), env("host_steal"));
        }
        for (String note : notes) {
            out.append("  NOTE: ").append(note).append('\n');
        }
        String qemu = environment.get("qemu");
        if (qemu != null && !qemu.startsWith(INTENDED_QEMU_MAJOR + ".")) {
            line(out, "  NOTE: qemu %s is not %s.x: the issue's latency figures are meant for multi-threaded TCG on"
                    + " qemu %s%n", qemu, INTENDED_QEMU_MAJOR, INTENDED_QEMU_MAJOR);
        }
        out.append("  MB = 2^20 bytes. Each figure: one measured window after a warm-up, on a connection of its own.\n");
        out.append("  perftest's ib_send_lat prints half a round trip: shown here doubled, as a round trip.\n");
        perftest.forEach((tool, sizes) -> sizes.forEach((size, fields) -> {
            String readings = fields.getOrDefault("readings", "");
            if (readings.contains(",")) {
                line(out, "  perftest %s %d B read %s %s in this run; the better one is shown and compared with.%n",
                        tool, size, readings, fields.containsKey("MBps") ? "MB/s" : "us (one way)");
            }
        }));
    }

    private void throughput(StringBuilder out) {
        out.append("\nThroughput: one connection writing one way, MB/s\n");
        line(out, "%8s %9s %12s %14s %11s %9s %9s %12s %17s %21s %20s %23s %11s %9s%n", "bytes", RDMA, RDMA_NOPOLL,
                RDMA_BUSYPOLL, JAVA_VERBS, "epoll", "nio", "ib_write_bw", "rdma/ib_write_bw", "busypoll/ib_write_bw",
                "busypoll/java-verbs", "java-verbs/ib_write_bw", "rdma/epoll", "rdma/nio");
        for (int size : sizes()) {
            double rdma = number(bench(RDMA, size), "MBps");
            double nopoll = number(bench(RDMA_NOPOLL, size), "MBps");
            double busy = number(bench(RDMA_BUSYPOLL, size), "MBps");
            double floor = number(bench(JAVA_VERBS, size), "MBps");
            double epoll = number(bench("epoll", size), "MBps");
            double nio = number(bench("nio", size), "MBps");
            double perf = number(perftest("ib_write_bw", size), "MBps");
            line(out, "%8d %9s %12s %14s %11s %9s %9s %12s %17s %21s %20s %23s %11s %9s%n", size, fixed(rdma, 2),
                    fixed(nopoll, 2), fixed(busy, 2), fixed(floor, 2), fixed(epoll, 2), fixed(nio, 2), fixed(perf, 2),
                    fixed(rdma / perf, 2), fixed(busy / perf, 2), fixed(busy / floor, 2), fixed(floor / perf, 2),
                    fixed(rdma / epoll, 2), fixed(rdma / nio, 2));
        }
    }

    private void roundTrip(StringBuilder out) {
        out.append("\nRound trip: send a message, wait for its echo; p50 / p99 / p99.9 in us\n");
        line(out, "%8s %-26s %-26s %-26s %-26s %-26s %-26s %-26s %15s%n", "bytes", RDMA, RDMA_NOPOLL, RDMA_BUSYPOLL,
                "epoll", "nio", JAVA_VERBS, JAVA_VERBS_EVENTS, "ib_send_lat x2");
        for (int size : sizes()) {
            line(out, "%8d %-26s %-26s %-26s %-26s %-26s %-26s %-26s %15s%n", size, percentiles(RDMA, size),
                    percentiles(RDMA_NOPOLL, size), percentiles(RDMA_BUSYPOLL, size), percentiles("epoll", size), percentiles("nio", size),
                    percentiles(JAVA_VERBS, size), percentiles(JAVA_VERBS_EVENTS, size),
                    fixed(sendLatencyRoundTrip(size), 1));
        }
        out.append("\nRound trip ratios, p50 against p50\n");
        line(out, "%8s %20s %24s %11s %20s %23s%n", "bytes", "rdma/ib_send_lat x2", "busypoll/ib_send_lat x2",
                "rdma/epoll", "busypoll/java-verbs", "rdma/java-verbs-events");
        for (int size : sizes()) {
            double perf = sendLatencyRoundTrip(size);
            double rdma = median(RDMA, size);
            double busy = median(RDMA_BUSYPOLL, size);
            line(out, "%8d %20s %24s %11s %20s %23s%n", size, fixed(rdma / perf, 2), fixed(busy / perf, 2),
                    fixed(rdma / median("epoll", size), 2), fixed(busy / median(JAVA_VERBS, size), 2),
                    fixed(rdma / median(JAVA_VERBS_EVENTS, size), 2));
        }
    }

    /** Returns perftest's round trip at {@code size}: ib_send_lat's typical figure, which is half of one, doubled. */
    private double sendLatencyRoundTrip(int size) {
        return 2 * number(perftest("ib_send_lat", size), "usec_typical");
    }

    private double median(String transport, int size) {
        return number(bench(transport, size), "rtt_p50_us");
    }

    private String percentiles(String transport, int size) {
        Map<String, String> fields = bench(transport, size);
        double p50 = number(fields, "rtt_p50_us");
        if (Double.isNaN(p50)) {
            return "-";
        }
        return fixed(p50, 1) + " / " + fixed(number(fields, "rtt_p99_us"), 1) + " / "
                + fixed(number(fields, "rtt_p999_us"), 1);
    }

    private void costs(StringBuilder out) {
        out.append("\nCosts: process CPU time and event-loop allocation per message (stream) and per round trip;"
                + " kernel %: the event loops' CPU time in the kernel (stream)\n");
        line(out, "%8s %-17s %10s %9s %12s %10s %11s %12s %19s%n", "bytes", "transport", "CPU ms/MB", "kernel %",
                "alloc B/msg", "CPU us/rt", "alloc B/rt", "wake-ups/rt", "registered/channel");
        for (int size : sizes()) {
            for (String transport : TRANSPORTS) {
                Map<String, String> fields = bench(transport, size);
                if (fields.isEmpty()) {
                    continue;
                }
                double registered = number(fields, "registered_B_per_channel");
                line(out, "%8d %-17s %10s %9s %12s %10s %11s %12s %19s%n", size, transport,
                        fixed(number(fields, "cpu_ms_per_MB"), 1), fixed(100 * number(fields, "loop_kernel_share"), 0),
                        fixed(number(fields, "alloc_B_per_msg"), 1),
                        fixed(number(fields, "cpu_us_per_rtt"), 1), fixed(number(fields, "alloc_B_per_rtt"), 1),
                        fixed(number(fields, "wakeups_per_rtt"), 2), Double.isNaN(registered) ? "-" : fixed(registered / (1 << 20), 2) + " MiB");
            }
        }
    }

    private void errors(StringBuilder out) {
        List<String> errors = new ArrayList<>(failedRuns);
        bench.forEach((transport, sizes) -> sizes.forEach((size, fields) -> {
            if (fields.containsKey("error")) {
                errors.add(transport + " " + size + " B: " + fields.get("error"));
            }
        }));
        perftest.forEach((tool, sizes) -> sizes.forEach((size, fields) -> {
            if (fields.containsKey("error")) {
                errors.add(tool + " " + size + " B: " + fields.get("error"));
            }
        }));
        if (!errors.isEmpty()) {
            out.append("\nFailed measurements\n");
            for (String error : errors) {
                out.append("  ").append(error).append('\n');
            }
        }
    }

    private void targets(StringBuilder out) {
        out.append("\nTargets (docs/benchmark.md)\n");
        // ib_write_bw busy-polls its CQ, and its receiver has no work at all: the like-for-like figure is
        // the busy-polling transport's, where measured, with the sleeping loops' figure beside it.
        String bandwidthTransport = bench(RDMA_BUSYPOLL, TARGET_BANDWIDTH_SIZE).containsKey("MBps")
                ? RDMA_BUSYPOLL : RDMA;
        double rdmaBandwidth = number(bench(bandwidthTransport, TARGET_BANDWIDTH_SIZE), "MBps");
        double perfBandwidth = number(perftest("ib_write_bw", TARGET_BANDWIDTH_SIZE), "MBps");
        double bandwidthRatio = rdmaBandwidth / perfBandwidth;
        String sleeping = "";
        double sleepingBandwidth = number(bench(RDMA, TARGET_BANDWIDTH_SIZE), "MBps");
        if (RDMA_BUSYPOLL.equals(bandwidthTransport) && !Double.isNaN(sleepingBandwidth)) {
            sleeping = String.format(Locale.ROOT, " (rdma, loops that sleep: %s MB/s, %s x)",
                    fixed(sleepingBandwidth, 2), fixed(sleepingBandwidth / perfBandwidth, 2));
        }
        target(out, bandwidthRatio >= TARGET_BANDWIDTH_RATIO, Double.isNaN(bandwidthRatio),
                String.format(Locale.ROOT, "64 KiB throughput >= %.1f x ib_write_bw: %s %s MB/s is %s x %s MB/s%s",
                        TARGET_BANDWIDTH_RATIO, bandwidthTransport, fixed(rdmaBandwidth, 2),
                        fixed(bandwidthRatio, 2), fixed(perfBandwidth, 2), sleeping)
                        + bandwidthFloor(bandwidthTransport, rdmaBandwidth, perfBandwidth));

        // ib_send_lat busy-polls its CQ: the like-for-like figure is the busy-polling transport's, where measured.
        String latencyTransport = bench(RDMA_BUSYPOLL, TARGET_LATENCY_SIZE).containsKey("rtt_p50_us")
                ? RDMA_BUSYPOLL : RDMA;
        double rdmaLatency = median(latencyTransport, TARGET_LATENCY_SIZE);
        double perfLatency = sendLatencyRoundTrip(TARGET_LATENCY_SIZE);
        double latencyRatio = rdmaLatency / perfLatency;
        target(out, latencyRatio <= TARGET_LATENCY_RATIO, Double.isNaN(latencyRatio),
                String.format(Locale.ROOT, "64 B round trip <= %.1f x ib_send_lat's: %s p50 %s us is %s x %s us",
                        TARGET_LATENCY_RATIO, latencyTransport, fixed(rdmaLatency, 1), fixed(latencyRatio, 2),
                        fixed(perfLatency, 1)) + latencyFloor(latencyTransport, rdmaLatency, perfLatency));

        adaptivePollingTargets(out);
        garbageTarget(out);
        registeredMemoryTarget(out);
    }

    /**
     * The default loops, which poll adaptively, against loops that busy-poll, loops that never poll,
     * and epoll, all measured in this run: the 64 B round trip, its p99, its CPU, and the stream.
     */
    private void adaptivePollingTargets(StringBuilder out) {
        double adaptive = median(RDMA, TARGET_LATENCY_SIZE);
        double busy = median(RDMA_BUSYPOLL, TARGET_LATENCY_SIZE);
        double epoll = median("epoll", TARGET_LATENCY_SIZE);
        double ratio = adaptive / busy;
        target(out, ratio <= TARGET_ADAPTIVE_LATENCY_RATIO && adaptive < epoll, Double.isNaN(ratio) || Double.isNaN(epoll),
                String.format(Locale.ROOT, "64 B round trip, default loops <= %.1f x busy polling's (goal 1.3 x) and"
                        + " below epoll's: rdma p50 %s us is %s x rdma-busypoll's %s us; epoll %s us",
                        TARGET_ADAPTIVE_LATENCY_RATIO, fixed(adaptive, 1), fixed(ratio, 2), fixed(busy, 1),
                        fixed(epoll, 1)));
        double adaptiveP99 = number(bench(RDMA, TARGET_LATENCY_SIZE), "rtt_p99_us");
        double nopollP99 = number(bench(RDMA_NOPOLL, TARGET_LATENCY_SIZE), "rtt_p99_us");
        target(out, adaptiveP99 <= nopollP99, Double.isNaN(adaptiveP99) || Double.isNaN(nopollP99),
                String.format(Locale.ROOT, "64 B round trip p99, default loops <= loops that never poll: rdma %s us,"
                        + " rdma-nopoll %s us", fixed(adaptiveP99, 1), fixed(nopollP99, 1)));
        double adaptiveCpu = number(bench(RDMA, TARGET_LATENCY_SIZE), "cpu_us_per_rtt");
        double busyCpu = number(bench(RDMA_BUSYPOLL, TARGET_LATENCY_SIZE), "cpu_us_per_rtt");
        target(out, adaptiveCpu <= busyCpu, Double.isNaN(adaptiveCpu) || Double.isNaN(busyCpu),
                String.format(Locale.ROOT, "CPU per 64 B round trip, default loops <= busy polling's: rdma %s us,"
                        + " rdma-busypoll %s us, rdma-nopoll %s us", fixed(adaptiveCpu, 1), fixed(busyCpu, 1),
                        fixed(number(bench(RDMA_NOPOLL, TARGET_LATENCY_SIZE), "cpu_us_per_rtt"), 1)));
        Map<String, String> idleRdma = idle.getOrDefault(RDMA, Map.of());
        double idleShare = number(idleRdma, "loop_cpu_pct");
        StringBuilder others = new StringBuilder();
        for (String transport : new String[] {RDMA_NOPOLL, RDMA_BUSYPOLL, "epoll"}) {
            double share = number(idle.getOrDefault(transport, Map.of()), "loop_cpu_pct");
            if (!Double.isNaN(share)) {
                others.append(String.format(Locale.ROOT, "; %s %s %%", transport, fixed(share, 3)));
            }
        }
        target(out, idleShare <= TARGET_IDLE_LOOP_PCT, Double.isNaN(idleShare),
                String.format(Locale.ROOT, "an idle default loop <= %.0f %% of a core: rdma %s %% over %s s%s",
                        TARGET_IDLE_LOOP_PCT, fixed(idleShare, 3), idleRdma.getOrDefault("seconds", "-"), others));
        double stream = number(bench(RDMA, TARGET_BANDWIDTH_SIZE), "MBps");
        double perf = number(perftest("ib_write_bw", TARGET_BANDWIDTH_SIZE), "MBps");
        target(out, stream / perf >= TARGET_BANDWIDTH_RATIO, Double.isNaN(stream / perf),
                String.format(Locale.ROOT, "64 KiB stream, default loops >= %.1f x ib_write_bw: rdma %s MB/s is %s x"
                        + " %s MB/s", TARGET_BANDWIDTH_RATIO, fixed(stream, 2), fixed(stream / perf, 2), fixed(perf, 2)));
    }

    /**
     * Returns, for the throughput target's line, where the same stream in plain Java on raw verbs lands, or
     * nothing where it was not measured: the busy-polling floor (ib_write_bw busy-polls too, and it is the
     * most Java on verbs can do), else the waiting one. Context only: the target is judged on the transport
     * against perftest.
     */
    private String bandwidthFloor(String transport, double transportBandwidth, double perfBandwidth) {
        String floor = bench(JAVA_VERBS, TARGET_BANDWIDTH_SIZE).containsKey("MBps") ? JAVA_VERBS : JAVA_VERBS_EVENTS;
        double floorBandwidth = number(bench(floor, TARGET_BANDWIDTH_SIZE), "MBps");
        if (Double.isNaN(floorBandwidth)) {
            return "";
        }
        return String.format(Locale.ROOT, "; floor: %s %s MB/s is %s x %s MB/s, %s is %s x %s", floor,
                fixed(floorBandwidth, 2), fixed(floorBandwidth / perfBandwidth, 2), fixed(perfBandwidth, 2),
                transport, fixed(transportBandwidth / floorBandwidth, 2), floor);
    }

    /**
     * Returns, for the latency target's line, where the same round trip in plain Java on raw verbs lands
     * (busy polling against busy polling, waiting against waiting), or nothing where it was not measured.
     * Context only: the target is judged on the transport against perftest.
     */
    private String latencyFloor(String latencyTransport, double transportLatency, double perfLatency) {
        String floor = RDMA_BUSYPOLL.equals(latencyTransport) ? JAVA_VERBS : JAVA_VERBS_EVENTS;
        double floorLatency = median(floor, TARGET_LATENCY_SIZE);
        if (Double.isNaN(floorLatency)) {
            return "";
        }
        return String.format(Locale.ROOT, "; floor: %s p50 %s us is %s x %s us, %s is %s x %s", floor,
                fixed(floorLatency, 1), fixed(floorLatency / perfLatency, 2), fixed(perfLatency, 1),
                latencyTransport, fixed(transportLatency / floorLatency, 2), floor);
    }

    /**
     * Met when, at every size and in both phases, RDMA allocates at most 1 byte more per message than epoll
     * with the same pipeline: what epoll allocates is Netty's own (its recyclers' queues), not a transport's.
     */
    private void garbageTarget(StringBuilder out) {
        double worstRdma = 0;
        double worstExcess = Double.NEGATIVE_INFINITY;
        StringBuilder detail = new StringBuilder();
        boolean measured = !bench.getOrDefault(RDMA, Map.of()).isEmpty();
        for (int size : sizes()) {
            Map<String, String> rdma = bench(RDMA, size);
            Map<String, String> epoll = bench("epoll", size);
            for (String key : new String[] {"alloc_B_per_msg", "alloc_B_per_rtt"}) {
                double mine = number(rdma, key);
                double theirs = number(epoll, key);
                if (Double.isNaN(mine) || Double.isNaN(theirs)) {
                    measured = false;
                    continue;
                }
                worstRdma = Math.max(worstRdma, mine);
                worstExcess = Math.max(worstExcess, mine - theirs);
            }
            detail.append(String.format(Locale.ROOT, "%s%d B: %s/%s", detail.length() == 0 ? "" : ", ", size,
                    fixed(number(rdma, "alloc_B_per_msg"), 1), fixed(number(rdma, "alloc_B_per_rtt"), 1)));
        }
        target(out, worstExcess <= 1, !measured, "no garbage per message in the steady state: rdma allocates "
                + "(B/msg / B/round trip) " + detail + "; at most " + fixed(worstExcess, 1)
                + " B more than epoll with the same pipeline");
    }

    /** Met when every connection registered the same amount, whatever its traffic, and nothing outlived them. */
    private void registeredMemoryTarget(StringBuilder out) {
        SortedSet<Long> perChannel = new TreeSet<>();
        for (int size : sizes()) {
            String registered = bench(RDMA, size).get("registered_B_per_channel");
            if (registered != null) {
                perChannel.add(Long.parseLong(registered));
            }
        }
        boolean measured = !perChannel.isEmpty() && registeredAfterShutdown != null;
        boolean met = perChannel.size() == 1 && "0".equals(registeredAfterShutdown);
        target(out, met, !measured, "bounded registered memory per connection: "
                + (perChannel.isEmpty() ? "-" : perChannel.size() == 1
                        ? fixed(perChannel.first() / (double) (1 << 20), 2) + " MiB per channel at every size"
                        : "varies with the size: " + perChannel + " B per channel")
                + ", " + (registeredAfterShutdown == null ? "-" : registeredAfterShutdown) + " B left after shutdown");
    }

    private static void target(StringBuilder out, boolean met, boolean notMeasured, String text) {
        out.append(String.format(Locale.ROOT, "  %-13s %s%n", notMeasured ? "NOT MEASURED" : met ? "MET" : "MISSED",
                text));
    }

    private SortedSet<Integer> sizes() {
        SortedSet<Integer> sizes = new TreeSet<>();
        bench.values().forEach(bySize -> sizes.addAll(bySize.keySet()));
        return sizes;
    }

    private Map<String, String> bench(String transport, int size) {
        return bench.getOrDefault(transport, Map.of()).getOrDefault(size, Map.of());
    }

    private Map<String, String> perftest(String tool, int size) {
        return perftest.getOrDefault(tool, Map.of()).getOrDefault(size, Map.of());
    }

    private String env(String key) {
        return environment.getOrDefault(key, "?");
    }

    private static double number(Map<String, String> fields, String key) {
        String value = fields.get(key);
        if (value == null) {
            return Double.NaN;
        }
        try {
            return Double.parseDouble(value);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    private static String fixed(double value, int decimals) {
        return Double.isNaN(value) || Double.isInfinite(value) ? "-"
                : String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    private static void line(StringBuilder out, String format, Object... args) {
        out.append(String.format(Locale.ROOT, format, args));
    }
}
