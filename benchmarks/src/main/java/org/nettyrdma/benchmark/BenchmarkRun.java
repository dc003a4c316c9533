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
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The lines of one run of {@code scripts/demo}, sorted for {@link BenchmarkReport}. The benchmarks'
 * readings go by program, size and round ({@code bench ...}, {@code bench-idle ...}; a line without
 * {@code round=}, from a program run once, is round 1); lines of one program, size and round merge, since
 * the floor's stream ({@link VerbsWriteStream}) and round trip ({@link VerbsPingPong}) are two programs with
 * one name. perftest's steps keep their better reading ({@code perftest TOOL size=N ...}). The environment
 * ({@code perftest-env}, {@code bench-env}, {@code demo-env}), the script's notes ({@code demo-note}), runs
 * that printed nothing ({@code bench-failed}), what was left registered after shutdown
 * ({@code bench-end}) and the examples' lines ({@code example}) are kept as they come. Anything else is
 * ignored. Not thread-safe.
 */
final class BenchmarkRun {

    private final Map<String, String> environment = new HashMap<>();
    /** program, then size, then round, then the fields of its lines. */
    private final Map<String, SortedMap<Integer, SortedMap<Integer, Map<String, String>>>> bench = new TreeMap<>();
    /** program, then round, then the fields of its {@code bench-idle} line. */
    private final Map<String, SortedMap<Integer, Map<String, String>>> idle = new TreeMap<>();
    /** perftest tool, then size, then the fields of its better line. */
    private final Map<String, SortedMap<Integer, Map<String, String>>> perftest = new TreeMap<>();
    private final List<String> examples = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private final List<String> failedRuns = new ArrayList<>();
    private final List<String> registeredAfterShutdown = new ArrayList<>();

    /** Takes one line of output; lines of no known kind are ignored. */
    void add(String line) {
        String trimmed = line.strip();
        int space = trimmed.indexOf(' ');
        if (space < 0) {
            return;
        }
        String rest = trimmed.substring(space + 1);
        switch (trimmed.substring(0, space)) {
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
            case "bench-failed":
                addFailedRun(fields(rest));
                break;
            case "bench-end": {
                String left = fields(rest).get("registered_B_after_shutdown");
                if (left != null) {
                    registeredAfterShutdown.add(left);
                }
                break;
            }
            case "bench-idle": {
                Map<String, String> fields = fields(rest);
                int round = round(fields);
                if (fields.get("transport") != null && round > 0) {
                    idle.computeIfAbsent(fields.get("transport"), k -> new TreeMap<>()).put(round, fields);
                }
                break;
            }
            case "example":
                examples.add(rest);
                break;
            case "demo-note":
                notes.add(rest);
                break;
            default:
                break;
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

    /**
     * Keeps perftest's better reading of a tool at a size ({@code scripts/demo} reads the compared ones
     * twice, before and after the JVM programs, on a shared host): the higher bandwidth, the lower
     * latency, so that a ratio against perftest never rests on its worse moment. A failed reading never
     * replaces one with a figure. Every reading, in order, goes into the field {@code readings}.
     */
    private void addPerftest(String tool, Map<String, String> fields) {
        String figure = perftestFigure(fields);
        Integer size = size(fields);
        if (size == null) {
            return;
        }
        Map<String, String> earlier = perftest(tool, size);
        String reading = fields.getOrDefault(figure, "error");
        if (earlier.isEmpty()) {
            fields.put("readings", reading);
            perftest.computeIfAbsent(tool, k -> new TreeMap<>()).put(size, fields);
            return;
        }
        double now = number(fields, figure);
        double before = number(earlier, perftestFigure(earlier));
        boolean better = !Double.isNaN(now)
                && (Double.isNaN(before) || (figure.equals("MBps") ? now > before : now < before));
        Map<String, String> kept = new HashMap<>(better ? fields : earlier);
        kept.put("readings", earlier.get("readings") + ", " + reading);
        perftest.get(tool).put(size, kept);
    }

    /** Returns the field a perftest line is judged by: its bandwidth, or else its typical latency. */
    private static String perftestFigure(Map<String, String> fields) {
        return fields.containsKey("MBps") ? "MBps" : "usec_typical";
    }

    /**
     * Keeps a benchmark's line, merged into an earlier one of the same program, size and round: neither of
     * the floor's two programs may hide the other's fields. Where both failed, both errors are kept. A line
     * without a size is a run that gave up (the watchdog's): a failed run when it says why.
     */
    private void addBench(Map<String, String> fields) {
        String program = fields.get("transport");
        Integer size = size(fields);
        int round = round(fields);
        if (program == null || round < 1) {
            return;
        }
        if (size == null) {
            if (fields.containsKey("error") && !fields.containsKey("size")) {
                addFailedRun(fields);
            }
            return;
        }
        SortedMap<Integer, Map<String, String>> rounds = bench.computeIfAbsent(program, k -> new TreeMap<>())
                .computeIfAbsent(size, k -> new TreeMap<>());
        Map<String, String> earlier = rounds.get(round);
        if (earlier == null) {
            rounds.put(round, fields);
            return;
        }
        Map<String, String> merged = new HashMap<>(earlier);
        merged.putAll(fields);
        if (earlier.containsKey("error") && fields.containsKey("error")) {
            merged.put("error", earlier.get("error") + "; " + fields.get("error"));
        }
        rounds.put(round, merged);
    }

    private void addFailedRun(Map<String, String> fields) {
        String round = fields.get("round");
        failedRuns.add(fields.get("transport") + (round == null ? "" : ", round " + round) + ": "
                + fields.get("error"));
    }

    /** Returns the line's size, or {@code null} where it has none or one that is not a number. */
    private static Integer size(Map<String, String> fields) {
        try {
            return fields.containsKey("size") ? Integer.valueOf(fields.get("size")) : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** Returns the line's round: 1 where it names none (a program run once), 0 where it is not a number. */
    private static int round(Map<String, String> fields) {
        try {
            return Integer.parseInt(fields.getOrDefault("round", "1"));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Returns the readings of {@code key} in {@code program}'s lines at {@code size}, round by round. */
    Readings readings(String program, int size, String key) {
        Map<Integer, Double> byRound = new TreeMap<>();
        rounds(program, size).forEach((round, fields) -> byRound.put(round, number(fields, key)));
        return Readings.of(byRound);
    }

    /** Returns the readings of {@code key} in {@code program}'s {@code bench-idle} lines, round by round. */
    Readings idleReadings(String program, String key) {
        Map<Integer, Double> byRound = new TreeMap<>();
        idle.getOrDefault(program, Collections.emptySortedMap())
                .forEach((round, fields) -> byRound.put(round, number(fields, key)));
        return Readings.of(byRound);
    }

    /** Returns {@code true} if {@code program} printed a line at any size. */
    boolean ran(String program) {
        return bench.containsKey(program);
    }

    /** Returns every size a program printed a line for. */
    SortedSet<Integer> sizes() {
        SortedSet<Integer> sizes = new TreeSet<>();
        bench.values().forEach(bySize -> sizes.addAll(bySize.keySet()));
        return sizes;
    }

    /**
     * Returns the rounds the run was asked for ({@code demo-env rounds=N}), or, where it does not say, the
     * most rounds any program measured.
     */
    int rounds() {
        try {
            return Integer.parseInt(environment.getOrDefault("rounds", ""));
        } catch (NumberFormatException e) {
            int most = 0;
            for (SortedMap<Integer, SortedMap<Integer, Map<String, String>>> bySize : bench.values()) {
                for (SortedMap<Integer, Map<String, String>> byRound : bySize.values()) {
                    most = Math.max(most, byRound.size());
                }
            }
            return most;
        }
    }

    /** Returns the registered bytes per channel that {@code program} read, at every size and in every round. */
    SortedSet<Long> registeredPerChannel(String program) {
        SortedSet<Long> perChannel = new TreeSet<>();
        bench.getOrDefault(program, Collections.emptySortedMap()).values().forEach(byRound -> byRound.values()
                .forEach(fields -> {
                    String registered = fields.get("registered_B_per_channel");
                    if (registered != null) {
                        perChannel.add(Long.parseLong(registered));
                    }
                }));
        return perChannel;
    }

    /** Returns what each RDMA program left registered after its event loops shut down, in bytes, as printed. */
    List<String> registeredAfterShutdown() {
        return Collections.unmodifiableList(registeredAfterShutdown);
    }

    /** Returns perftest's better line of {@code tool} at {@code size}, or an empty map. */
    Map<String, String> perftest(String tool, int size) {
        return perftest.getOrDefault(tool, Collections.emptySortedMap()).getOrDefault(size, Map.of());
    }

    /** Returns perftest's {@code key} of {@code tool} at {@code size} as a figure read outside the rounds. */
    Figure perftestFigure(String tool, int size, String key) {
        double value = number(perftest(tool, size), key);
        return Double.isNaN(value) ? Figure.NONE : Figure.single(value);
    }

    /** Returns perftest's tools, then sizes, then better lines, for the report's heading. */
    Map<String, SortedMap<Integer, Map<String, String>>> perftestSteps() {
        return Collections.unmodifiableMap(perftest);
    }

    /** Returns an environment field ({@code qemu}, {@code cpus}, ...), or {@code null}. */
    String environment(String key) {
        return environment.get(key);
    }

    List<String> examples() {
        return Collections.unmodifiableList(examples);
    }

    List<String> notes() {
        return Collections.unmodifiableList(notes);
    }

    /**
     * Returns every error of the run, one line each: runs that printed nothing or gave up, then each
     * program's failed sizes and idle phases round by round, then perftest's failed steps.
     */
    List<String> errors() {
        List<String> errors = new ArrayList<>(failedRuns);
        bench.forEach((program, bySize) -> bySize.forEach((size, byRound) -> byRound.forEach((round, fields) -> {
            if (fields.containsKey("error")) {
                errors.add(program + " " + size + " B, round " + round + ": " + fields.get("error"));
            }
        })));
        idle.forEach((program, byRound) -> byRound.forEach((round, fields) -> {
            if (fields.containsKey("error")) {
                errors.add(program + " idle, round " + round + ": " + fields.get("error"));
            }
        }));
        perftest.forEach((tool, bySize) -> bySize.forEach((size, fields) -> {
            if (fields.containsKey("error")) {
                errors.add(tool + " " + size + " B: " + fields.get("error"));
            }
        }));
        return errors;
    }

    private SortedMap<Integer, Map<String, String>> rounds(String program, int size) {
        return bench.getOrDefault(program, Collections.emptySortedMap()).getOrDefault(size,
                Collections.emptySortedMap());
    }

    static double number(Map<String, String> fields, String key) {
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
}
