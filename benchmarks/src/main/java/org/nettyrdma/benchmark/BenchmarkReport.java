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
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedSet;
import java.util.function.IntFunction;

/**
 * Turns the lines of one run of {@code scripts/demo} ({@link BenchmarkRun} says which) into its report: RDMA
 * next to TCP (epoll, nio), perftest and the same stream and round trip in plain Java on raw verbs
 * ({@link VerbsWriteStream}, {@link VerbsPingPong}: the floor, by RDMA Write and one Send a message, and by
 * Sends of the transport's slot), with ratios, then what each costs, then the
 * project's targets, met or missed ({@link BenchmarkTargets}). Each program ran in interleaved rounds: every
 * figure is the median of its rounds with the lowest and highest reading, and every ratio is of two medians.
 * No figure is judged here that was not measured in that same run. Lines of other kinds go to the
 * {@link ReportSection}s that accept them.
 *
 * <pre>
 * java -cp benchmarks/target/classes org.nettyrdma.benchmark.BenchmarkReport benchmarks/target/demo/results.txt
 * </pre>
 */
public final class BenchmarkReport {

    /** RDMA on the default loops: they poll after work as the gaps between completions suggest. */
    static final String RDMA = "rdma";
    /** RDMA on loops that never poll: they sleep as soon as they find nothing. */
    static final String RDMA_NOPOLL = "rdma-nopoll";
    /** RDMA on loops that busy-poll, as perftest does: shown where measured. */
    static final String RDMA_BUSYPOLL = "rdma-busypoll";
    /**
     * The floor: the same stream and round trip in plain Java on DiSNI's verbs, busy polling
     * ({@link VerbsWriteStream}, {@link VerbsPingPong}).
     */
    static final String JAVA_VERBS = VerbsPingPong.BUSY_POLL;
    /** The floor with both ends waiting on the completion channel, as {@code rdma}'s loops wait. */
    static final String JAVA_VERBS_EVENTS = VerbsPingPong.EVENTS;
    /**
     * The Send floor: the same stream and round trip by Sends of at most the transport's slot, busy polling
     * ({@code --send-slot}), which is how every byte of the transport travels where a connection has no ring.
     */
    static final String JAVA_VERBS_SEND = VerbsPingPong.SEND_BUSY_POLL;
    /** Every program, in the order of the tables' rows. */
    private static final String[] PROGRAMS = {RDMA, RDMA_NOPOLL, RDMA_BUSYPOLL, "epoll", "nio", JAVA_VERBS,
        JAVA_VERBS_EVENTS, JAVA_VERBS_SEND};
    /** The programs that stream: the floors stream only busy polling, as perftest's bandwidth tools do. */
    private static final String[] STREAMS = {RDMA, RDMA_NOPOLL, RDMA_BUSYPOLL, "epoll", "nio", JAVA_VERBS,
        JAVA_VERBS_SEND};
    /** The qemu whose multi-threaded TCG the latency figures are meant for. */
    private static final String INTENDED_QEMU_MAJOR = "10";

    private final BenchmarkRun run = new BenchmarkRun();
    private final List<ReportSection> sections;

    /** Makes a report of the transport's figures, with no section of another kind. */
    public BenchmarkReport() {
        // Sections for lines of other kinds join here.
        this(List.of(new OneSidedSection(), new FrameworksSection()));
    }

    /** Makes a report that hands the lines {@code sections} accept to them, and renders them last. */
    BenchmarkReport(List<ReportSection> sections) {
        this.sections = List.copyOf(sections);
    }

    /**
     * Reads the files named, or standard input, and prints the report; with {@code --side-by-side} first,
     * only its throughput and round-trip tables (what {@code scripts/demo} shows as soon as its first round
     * ends).
     */
    public static void main(String[] args) throws IOException {
        BenchmarkReport report = new BenchmarkReport();
        boolean sideBySide = args.length > 0 && args[0].equals("--side-by-side");
        if (sideBySide) {
            args = Arrays.copyOfRange(args, 1, args.length);
        }
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
        System.out.print(sideBySide ? report.renderSideBySide() : report.render());
    }

    /** Takes one line of output; lines of no known kind are ignored. */
    public void add(String line) {
        String trimmed = line.strip();
        for (ReportSection section : sections) {
            if (section.accepts(trimmed)) {
                section.add(trimmed);
                return;
            }
        }
        run.add(trimmed);
    }

    /** Returns the report. */
    public String render() {
        StringBuilder out = new StringBuilder();
        header(out);
        throughput(out);
        roundTrip(out);
        costs(out);
        errors(out);
        BenchmarkTargets.render(run, out);
        for (ReportSection section : sections) {
            section.render(out);
        }
        if (!run.examples().isEmpty()) {
            out.append("\nExamples over RDMA\n");
            for (String example : run.examples()) {
                out.append("  ").append(example).append('\n');
            }
        }
        return out.toString();
    }

    /** Returns the throughput and round-trip tables alone, with the ratios their figures allow. */
    public String renderSideBySide() {
        StringBuilder out = new StringBuilder();
        throughput(out);
        roundTrip(out);
        return out.toString();
    }

    private void header(StringBuilder out) {
        out.append("RDMA, TCP and perftest measured in one VM run\n");
        line(out, "  qemu %s, %s thread=%s, %s vCPUs, kernel %s; %s (Soft-RoCE), active MTU %s; java %s%n",
                env("qemu"), env("accel"), env("tcg_thread"), env("cpus"), env("kernel"), env("device"),
                env("active_mtu"), env("java"));
        if (run.environment("host_other_cpu") != null) {
            // The guest is emulated on a shared host: other processes' CPU slows every figure of the run.
            line(out, "  host: other processes used %s of its %s cores' CPU during the VM run (steal %s)%n",
                    env("host_other_cpu"), env("host_cores"), env("host_steal"));
        }
        for (String note : run.notes()) {
            out.append("  NOTE: ").append(note).append('\n');
        }
        String qemu = run.environment("qemu");
        if (qemu != null && !qemu.startsWith(INTENDED_QEMU_MAJOR + ".")) {
            line(out, "  NOTE: qemu %s is not %s.x: the issue's latency figures are meant for multi-threaded TCG on"
                    + " qemu %s%n", qemu, INTENDED_QEMU_MAJOR, INTENDED_QEMU_MAJOR);
        }
        int rounds = run.rounds();
        line(out, "  %d round%s: each program warmed up once, in a JVM of its own, then measured once a round, the"
                + " programs taking turns in an order that rotates; each reading one window on a new connection.%n",
                rounds, rounds == 1 ? "" : "s");
        if (rounds < BenchmarkTargets.MIN_ROUNDS) {
            line(out, "  NOTE: %d round%s: a median needs at least %d, the targets below say which figures have"
                    + " fewer%n", rounds, rounds == 1 ? "" : "s", BenchmarkTargets.MIN_ROUNDS);
        }
        out.append("  A figure: the median of the rounds (the lowest and highest reading); n=K: only K rounds"
                + " measured it. A ratio: of two medians (the lowest and highest ratio of two readings of one"
                + " round). MB = 2^20 bytes.\n");
        // scripts/demo without --full measures perftest once, between its rounds.
        out.append("1".equals(run.environment("quick")) ? "  perftest ran once, after rdma's and epoll's round."
                : "  perftest runs before and after the rounds.");
        out.append(" Its ib_send_lat prints half a round trip: shown here doubled, as a round trip.\n");
        run.perftestSteps().forEach((tool, sizes) -> sizes.forEach((size, fields) -> {
            String readings = fields.getOrDefault("readings", "");
            if (readings.contains(",")) {
                line(out, "  perftest %s %d B read %s %s in this run; the better one is shown and compared with.%n",
                        tool, size, readings, fields.containsKey("MBps") ? "MB/s" : "us (one way)");
            }
        }));
    }

    /** MB/s of every program and perftest, sizes side by side, then the ratios that matter. */
    private void throughput(StringBuilder out) {
        SortedSet<Integer> sizes = run.sizes();
        out.append("\nThroughput: one connection writing one way, MB/s\n");
        TextTable figures = new TextTable(headings("transport", sizes));
        for (String program : STREAMS) {
            if (run.ran(program)) {
                figures.add(row(program, sizes, size -> cell(run.readings(program, size, "MBps").figure(), 2)));
            }
        }
        // ib_send_bw: the device's own figure for Sends, what the transport's Sends path is set against.
        for (String tool : new String[] {"ib_write_bw", "ib_send_bw"}) {
            if (sizes.stream().anyMatch(size -> run.perftestFigure(tool, size, "MBps").isMeasured())) {
                figures.add(row(tool, sizes, size -> cell(run.perftestFigure(tool, size, "MBps"), 2)));
            }
        }
        figures.appendTo(out);

        ratios(out, "Throughput ratios", "MBps", Map.of(
                "ib_write_bw", size -> run.perftestFigure("ib_write_bw", size, "MBps"),
                "ib_send_bw", size -> run.perftestFigure("ib_send_bw", size, "MBps")),
                "rdma/ib_write_bw", "rdma/ib_send_bw", "rdma-busypoll/ib_write_bw", "rdma-busypoll/ib_send_bw",
                "rdma-busypoll/java-verbs", "java-verbs/ib_write_bw", "rdma-busypoll/java-verbs-send",
                "rdma/java-verbs-send", "java-verbs-send/ib_send_bw", "rdma/epoll", "rdma/nio");
    }

    /** The percentiles of every program's round trip, size by size, then the ratios of the medians. */
    private void roundTrip(StringBuilder out) {
        SortedSet<Integer> sizes = run.sizes();
        out.append("\nRound trip: send a message, wait for its echo, us\n");
        TextTable figures = new TextTable(new String[] {"bytes", "transport", "p50", "p99", "p99.9"}, 0);
        for (int size : sizes) {
            for (String program : PROGRAMS) {
                if (run.ran(program)) {
                    figures.add(String.valueOf(size), program, cell(run.readings(program, size, "rtt_p50_us").figure(), 1),
                            cell(run.readings(program, size, "rtt_p99_us").figure(), 1),
                            cell(run.readings(program, size, "rtt_p999_us").figure(), 1));
                }
            }
            Figure perftest = sendLatencyRoundTrip(run, size);
            if (perftest.isMeasured()) {
                figures.add(String.valueOf(size), "ib_send_lat x2", perftest.format(1), "-", "-");
            }
        }
        figures.appendTo(out);

        ratios(out, "Round trip ratios, p50 against p50", "rtt_p50_us",
                Map.of("ib_send_lat x2", size -> sendLatencyRoundTrip(run, size)), "rdma/ib_send_lat x2", "rdma-busypoll/ib_send_lat x2",
                "rdma/rdma-busypoll", "rdma/epoll", "rdma-busypoll/java-verbs", "rdma/java-verbs-events",
                "rdma-busypoll/java-verbs-send");
    }

    /**
     * Appends a table of ratios of {@code key}'s medians under {@code title}, a row for each of
     * {@code pairs} ({@code numerator/denominator}), the sizes side by side. A denominator that
     * {@code perftest} names is perftest's figure at the size, which its function returns.
     */
    private void ratios(StringBuilder out, String title, String key, Map<String, IntFunction<Figure>> perftest,
                        String... pairs) {
        SortedSet<Integer> sizes = run.sizes();
        out.append('\n').append(title).append('\n');
        TextTable table = new TextTable(headings("ratio", sizes));
        for (String pair : pairs) {
            String numerator = pair.substring(0, pair.indexOf('/'));
            String denominator = pair.substring(pair.indexOf('/') + 1);
            IntFunction<Figure> tool = perftest.get(denominator);
            boolean bothRan = run.ran(numerator) && (tool != null
                    ? sizes.stream().anyMatch(size -> tool.apply(size).isMeasured()) : run.ran(denominator));
            if (!bothRan) {
                // A run without a program (without --full: no floor, no nio) or before perftest has no row of it.
                continue;
            }
            table.add(row(numerator + " / " + denominator, sizes, size -> {
                Readings readings = run.readings(numerator, size, key);
                return cell(tool != null ? readings.over(tool.apply(size).value())
                        : readings.over(run.readings(denominator, size, key)), 2);
            }));
        }
        table.appendTo(out);
    }

    /** Returns perftest's round trip at {@code size}: ib_send_lat's typical figure, which is half of one, doubled. */
    static Figure sendLatencyRoundTrip(BenchmarkRun run, int size) {
        Figure oneWay = run.perftestFigure("ib_send_lat", size, "usec_typical");
        return oneWay.isMeasured() ? Figure.single(2 * oneWay.value()) : Figure.NONE;
    }

    private void costs(StringBuilder out) {
        out.append("\nCosts: process CPU time and event-loop allocation per message (stream) and per round trip;"
                + " kernel %: the event loops' CPU time in the kernel (stream); copied B/msg: bytes copied at either"
                + " end, into registered memory before sending and out of receive memory before reading (stream)\n");
        TextTable costs = new TextTable(new String[] {"bytes", "transport", "CPU ms/MB", "kernel %", "alloc B/msg",
            "copied B/msg", "CPU us/rt", "alloc B/rt", "wake-ups/rt", "registered/channel"}, 0, 3, 4, 5, 7, 8, 9);
        for (int size : run.sizes()) {
            for (String program : PROGRAMS) {
                if (!run.ran(program)) {
                    continue;
                }
                double registered = median(program, size, "registered_B_per_channel");
                costs.add(String.valueOf(size), program, cell(run.readings(program, size, "cpu_ms_per_MB").figure(), 1),
                        fixed(100 * median(program, size, "loop_kernel_share"), 0),
                        fixed(median(program, size, "alloc_B_per_msg"), 1),
                        fixed(median(program, size, "copied_B_per_msg"), 1),
                        cell(run.readings(program, size, "cpu_us_per_rtt").figure(), 1),
                        fixed(median(program, size, "alloc_B_per_rtt"), 1),
                        fixed(median(program, size, "wakeups_per_rtt"), 2),
                        Double.isNaN(registered) ? "-" : fixed(registered / (1 << 20), 2) + " MiB");
            }
        }
        costs.appendTo(out);
    }

    private double median(String program, int size, String key) {
        return run.readings(program, size, key).figure().value();
    }

    private void errors(StringBuilder out) {
        List<String> errors = run.errors();
        if (!errors.isEmpty()) {
            out.append("\nFailed measurements\n");
            for (String error : errors) {
                out.append("  ").append(error).append('\n');
            }
        }
    }

    /** Returns {@code figure} formatted, marked {@code n=K} where fewer rounds measured it than the run had. */
    private String cell(Figure figure, int decimals) {
        String text = figure.format(decimals);
        return figure.isMeasured() && figure.rounds() > 0 && figure.rounds() < run.rounds()
                ? text + " n=" + figure.rounds() : text;
    }

    private static String[] headings(String first, SortedSet<Integer> sizes) {
        List<String> headings = new ArrayList<>();
        headings.add(first);
        sizes.forEach(size -> headings.add(size + " B"));
        return headings.toArray(new String[0]);
    }

    private static String[] row(String first, SortedSet<Integer> sizes, IntFunction<String> cell) {
        List<String> cells = new ArrayList<>();
        cells.add(first);
        sizes.forEach(size -> cells.add(cell.apply(size)));
        return cells.toArray(new String[0]);
    }

    private String env(String key) {
        String value = run.environment(key);
        return value == null ? "?" : value;
    }

    private static String fixed(double value, int decimals) {
        return Double.isNaN(value) || Double.isInfinite(value) ? "-"
                : String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    private static void line(StringBuilder out, String format, Object... args) {
        out.append(String.format(Locale.ROOT, format, args));
    }
}
