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

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * {@link OneSidedBenchmark} in the demo's report: a GET by RDMA Read next to the same GET as a request and
 * a response, size by size, with perftest's {@code ib_read_lat} of that size from the same boot; then
 * fetch-and-add from 1 and from several clients next to {@code ib_atomic_lat}; then the one-sided
 * targets (docs/benchmark.md#targets), met or missed on the medians. Takes the benchmark's
 * {@code one-sided} lines and perftest's lines of those two tools.
 */
final class OneSidedSection implements ReportSection {

    /** The size of the Read judged against {@code ib_read_lat}. */
    private static final int TARGET_READ_SIZE = 64;
    /** A 64 B Read's p50, and a fetch-and-add's from one connection, against perftest's: at most this. */
    private static final double TARGET_LATENCY_RATIO = 1.3;
    /** What a one-sided operation told to a completion may allocate on the client's loops, in B: none. */
    private static final double TARGET_ALLOC_BYTES = 1;

    private static final String KIND = "one-sided ";
    private static final String READ_LAT = "perftest ib_read_lat ";
    private static final String ATOMIC_LAT = "perftest ib_atomic_lat ";

    /** By size, then loops in the order they came, the fields of the benchmark's {@code one-sided get} lines. */
    private final SortedMap<Integer, Map<String, Map<String, String>>> gets = new TreeMap<>();
    /** The fields of the benchmark's {@code one-sided fetch-and-add} lines, as they came. */
    private final List<Map<String, String>> adds = new ArrayList<>();
    /** By size, the better (lower typical) reading of {@code ib_read_lat}. */
    private final SortedMap<Integer, Map<String, String>> readLat = new TreeMap<>();
    private Map<String, String> atomicLat;
    private final List<String> errors = new ArrayList<>();

    @Override
    public boolean accepts(String line) {
        return line.startsWith(KIND) || line.startsWith(READ_LAT) || line.startsWith(ATOMIC_LAT);
    }

    @Override
    public void add(String line) {
        if (line.startsWith(READ_LAT)) {
            Map<String, String> fields = BenchmarkRun.fields(line.substring(READ_LAT.length()));
            Integer size = integer(fields.get("size"));
            if (size != null) {
                readLat.merge(size, fields, OneSidedSection::lower);
            }
        } else if (line.startsWith(ATOMIC_LAT)) {
            Map<String, String> fields = BenchmarkRun.fields(line.substring(ATOMIC_LAT.length()));
            atomicLat = atomicLat == null ? fields : lower(atomicLat, fields);
        } else {
            String rest = line.substring(KIND.length());
            Map<String, String> fields = BenchmarkRun.fields(rest);
            if (fields.containsKey("error")) {
                errors.add(fields.get("error"));
            } else if (rest.startsWith("get ") && integer(fields.get("size")) != null) {
                gets.computeIfAbsent(integer(fields.get("size")), k -> new LinkedHashMap<>())
                        .put(fields.getOrDefault("loops", "-"), fields);
            } else if (rest.startsWith("fetch-and-add ") && integer(fields.get("clients")) != null) {
                adds.add(fields);
            }
        }
    }

    @Override
    public void render(StringBuilder out) {
        if (gets.isEmpty() && adds.isEmpty() && errors.isEmpty()) {
            return;
        }
        out.append("\nOne-sided operations: a GET of the server's table by RDMA Read against the same GET as a request"
                + " and a response on one connection, one at a time; median (min-max) of the rounds"
                + " (docs/one-sided.md)\n");
        TextTable table = new TextTable(new String[] {"bytes", "loops", "GET by", "p50 us", "p99 us",
            "server CPU us/GET", "server messages/GET", "client alloc B/GET"}, 0);
        for (Map.Entry<Integer, Map<String, Map<String, String>>> get : gets.entrySet()) {
            String size = String.valueOf(get.getKey());
            get.getValue().forEach((loops, fields) -> {
                table.add(size, loops, "RDMA Read", spread(fields, "read_p50_us"), spread(fields, "read_p99_us"),
                        spread(fields, "read_server_cpu_us"), spread(fields, "read_server_messages"),
                        spread(fields, "read_client_alloc_B"));
                if (fields.containsKey("future_read_p50_us")) {
                    table.add(size, loops, "Read, Future", spread(fields, "future_read_p50_us"), "-", "-", "-",
                            spread(fields, "future_read_client_alloc_B"));
                }
                table.add(size, loops, "request/response", spread(fields, "request_p50_us"),
                        spread(fields, "request_p99_us"), spread(fields, "request_server_cpu_us"),
                        spread(fields, "request_server_messages"), spread(fields, "request_client_alloc_B"));
            });
            Map<String, String> perftest = readLat.get(get.getKey());
            if (perftest != null) {
                table.add(size, "-", "ib_read_lat", perftest.getOrDefault("usec_typical", "-") + " (typical)",
                        perftest.getOrDefault("usec_p99", "-"), "-", "-", "-");
            }
        }
        table.appendTo(out);
        for (Map<String, String> fields : adds) {
            int clients = integer(fields.get("clients"));
            String latency = fields.containsKey("p50_us") ? String.format(", p50 %s us, p99 %s us",
                    spread(fields, "p50_us"), spread(fields, "p99_us")) : "";
            String future = fields.containsKey("future_p50_us") ? String.format("; by Future: p50 %s us, %s B/op",
                    spread(fields, "future_p50_us"), spread(fields, "future_client_alloc_B")) : "";
            out.append(String.format("  fetch-and-add of one word from %d connection%s, %s loops: %s ops/s%s, server"
                    + " CPU %s us/op, client loops allocated %s B/op%s%s%n", clients, clients == 1 ? "" : "s",
                    fields.getOrDefault("loops", "-"), spread(fields, "ops_per_s"), latency,
                    spread(fields, "server_cpu_us"), spread(fields, "client_alloc_B"), future,
                    "checked".equals(fields.get("counter")) ? "; the word equals the adds that completed" : ""));
        }
        if (atomicLat != null) {
            out.append(String.format("  ib_atomic_lat: %s us typical, p99 %s us%n",
                    atomicLat.getOrDefault("usec_typical", "-"), atomicLat.getOrDefault("usec_p99", "-")));
        }
        for (String error : errors) {
            out.append("  FAILED: ").append(error).append('\n');
        }
        renderTargets(out);
    }

    /**
     * The one-sided targets, loops by loops: a 64 B Read's p50 and a fetch-and-add's from one connection
     * within {@link #TARGET_LATENCY_RATIO} x perftest's typical latency, and no garbage per operation.
     */
    private void renderTargets(StringBuilder out) {
        Map<String, Map<String, String>> reads = gets.getOrDefault(TARGET_READ_SIZE, Map.of());
        Map<String, String> readLatency = readLat.get(TARGET_READ_SIZE);
        for (Map.Entry<String, Map<String, String>> read : reads.entrySet()) {
            latencyTarget(out, "64 B RDMA Read p50", read.getKey(), read.getValue().get("read_p50_us"), "ib_read_lat",
                    readLatency);
        }
        for (Map<String, String> add : adds) {
            if ("1".equals(add.get("clients"))) {
                latencyTarget(out, "fetch-and-add p50, 1 connection,", add.getOrDefault("loops", "-"),
                        add.get("p50_us"), "ib_atomic_lat", atomicLat);
            }
        }
        for (Map.Entry<String, Map<String, String>> read : reads.entrySet()) {
            String loops = read.getKey();
            Map<String, String> add = adds.stream().filter(fields -> "1".equals(fields.get("clients"))
                    && loops.equals(fields.get("loops"))).findFirst().orElse(Map.of());
            double readBytes = median(read.getValue().get("read_client_alloc_B"));
            double addBytes = median(add.get("client_alloc_B"));
            boolean measured = !Double.isNaN(readBytes) && !Double.isNaN(addBytes);
            out.append(String.format(Locale.ROOT, "  %-13s no garbage per one-sided operation told to a completion:"
                    + " %s loops allocate %s B per 64 B Read, %s B per fetch-and-add (medians; < %.0f B counts as"
                    + " none)%n", !measured ? "NOT MEASURED" : readBytes < TARGET_ALLOC_BYTES
                            && addBytes < TARGET_ALLOC_BYTES ? "MET" : "MISSED", loops,
                    spread(read.getValue(), "read_client_alloc_B"), spread(add, "client_alloc_B"), TARGET_ALLOC_BYTES));
        }
    }

    /**
     * Appends whether {@code figure}, {@code median[min-max]} us, is within the ratio of perftest's
     * typical latency.
     */
    private static void latencyTarget(StringBuilder out, String what, String loops, String figure, String tool,
                                      Map<String, String> perftest) {
        double typical = perftest == null ? Double.NaN : BenchmarkRun.number(perftest, "usec_typical");
        double[] spread = figure == null ? null : spreadOf(figure);
        if (spread == null || Double.isNaN(typical)) {
            out.append(String.format(Locale.ROOT, "  %-13s %s <= %.1f x %s: %s loops, %s%n", "NOT MEASURED", what,
                    TARGET_LATENCY_RATIO, tool, loops, spread == null ? "no figure" : "no " + tool));
            return;
        }
        double ratio = spread[0] / typical;
        out.append(String.format(Locale.ROOT, "  %-13s %s <= %.1f x %s: %s %.2f (%.2f-%.2f) us is %.2f (%.2f-%.2f) x"
                + " %.2f us%n", ratio <= TARGET_LATENCY_RATIO ? "MET" : "MISSED", what, TARGET_LATENCY_RATIO, tool,
                loops, spread[0], spread[1], spread[2], ratio, spread[1] / typical, spread[2] / typical, typical));
    }

    /** Returns the median of a {@code median[min-max]} figure, NaN if there is none. */
    private static double median(String figure) {
        double[] spread = figure == null ? null : spreadOf(figure);
        return spread == null ? Double.NaN : spread[0];
    }

    /** Returns {median, min, max} of a {@code median[min-max]} figure, or {@code null} if it is not one. */
    private static double[] spreadOf(String figure) {
        int open = figure.indexOf('[');
        int dash = figure.indexOf('-', open + 2);
        if (open < 0 || dash < 0 || !figure.endsWith("]")) {
            return null;
        }
        try {
            return new double[] {Double.parseDouble(figure.substring(0, open)),
                Double.parseDouble(figure.substring(open + 1, dash)),
                Double.parseDouble(figure.substring(dash + 1, figure.length() - 1))};
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** Returns {@code median[min-max]} as the report writes a spread, {@code median (min-max)}. */
    private static String spread(Map<String, String> fields, String key) {
        String value = fields.get(key);
        if (value == null || value.equals("none")) {
            return "-";
        }
        return value.replace("[", " (").replace("]", ")");
    }

    /** Returns the perftest line with the lower typical latency: perftest runs on a shared host. */
    private static Map<String, String> lower(Map<String, String> a, Map<String, String> b) {
        double first = BenchmarkRun.number(a, "usec_typical");
        double second = BenchmarkRun.number(b, "usec_typical");
        return Double.isNaN(first) || second < first ? b : a;
    }

    private static Integer integer(String value) {
        try {
            return value == null ? null : Integer.valueOf(value);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
