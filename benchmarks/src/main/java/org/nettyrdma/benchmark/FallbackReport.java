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
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

/**
 * The figures of {@link FallbackBenchmark}, path by path and round by round, and the report made of
 * them: a table of every path (the median of the rounds with the lowest and highest reading), the RDMA
 * path with {@code TCP_FALLBACK} on against off as ratios of medians, and whether the fallback keeps the
 * RDMA path within {@value #TOLERANCE_PERCENT} % of the path without it. Not thread-safe.
 */
final class FallbackReport {

    /** How much the fallback may slow the RDMA path's connects (docs/fallback.md#figures). */
    static final int TOLERANCE_PERCENT = 10;

    /** One path's figures in one round: times in milliseconds. */
    record Row(double setUpP50Ms, double setUpP99Ms, double usableP50Ms, double usableP99Ms,
               double connectsPerSecond) {

        /** Returns the row of what one run of {@link SequentialConnects} measured. */
        static Row of(SequentialConnects.Figures figures) {
            return new Row(figures.setUpNanos().getValueAtPercentile(50) / 1e6,
                    figures.setUpNanos().getValueAtPercentile(99) / 1e6,
                    figures.usableNanos().getValueAtPercentile(50) / 1e6,
                    figures.usableNanos().getValueAtPercentile(99) / 1e6, figures.connectsPerSecond());
        }
    }

    /** Path name, then how it is carried, in the order the paths were added. */
    private final Map<String, String> carriers = new LinkedHashMap<>();
    /** Path name, then round, then its row. */
    private final Map<String, Map<Integer, Row>> rows = new LinkedHashMap<>();
    private final List<String> errors = new ArrayList<>();
    private final String strict;
    private final String fallback;
    private final String epoll;

    /**
     * Makes a report that compares path {@code fallback} with path {@code strict} (the RDMA path with
     * and without {@code TCP_FALLBACK}) and the time to a usable channel of every path with path
     * {@code epoll}'s.
     */
    FallbackReport(String strict, String fallback, String epoll) {
        this.strict = strict;
        this.fallback = fallback;
        this.epoll = epoll;
    }

    /** Adds what {@code path} measured in {@code round}. */
    void add(FallbackPath path, int round, Row row) {
        carriers.put(path.name(), path.carrier());
        rows.computeIfAbsent(path.name(), k -> new TreeMap<>()).put(round, row);
    }

    /** Adds that {@code path} failed in {@code round}, and why. */
    void addError(FallbackPath path, int round, String error) {
        carriers.put(path.name(), path.carrier());
        rows.computeIfAbsent(path.name(), k -> new TreeMap<>());
        addError(path.name() + ", round " + round + ": " + error);
    }

    /** Adds an error of the run, a line that says where and why. */
    void addError(String error) {
        errors.add(error);
    }

    /** Returns {@code true} if no path failed in any round. */
    boolean complete() {
        return errors.isEmpty();
    }

    /** Appends the report. */
    void appendTo(StringBuilder out) {
        TextTable table = new TextTable(new String[] {"path", "carried by", "set-up p50 ms", "set-up p99 ms",
            "usable p50 ms", "usable p99 ms", "usable p50 / " + epoll + "'s", "connects/s"});
        for (Map.Entry<String, String> path : carriers.entrySet()) {
            String name = path.getKey();
            table.add(name, path.getValue(), readings(name, Row::setUpP50Ms).figure().format(2),
                    readings(name, Row::setUpP99Ms).figure().format(2),
                    readings(name, Row::usableP50Ms).figure().format(2),
                    readings(name, Row::usableP99Ms).figure().format(2),
                    readings(name, Row::usableP50Ms).over(readings(epoll, Row::usableP50Ms)).format(2),
                    readings(name, Row::connectsPerSecond).figure().format(1));
        }
        table.appendTo(out);
        Figure setUpP50 = ratio(Row::setUpP50Ms);
        Figure setUpP99 = ratio(Row::setUpP99Ms);
        Figure rate = ratio(Row::connectsPerSecond);
        out.append("\nThe RDMA path, TCP_FALLBACK on at both ends over off at both ends (").append(fallback)
                .append(" / ").append(strict).append(")\n");
        out.append("  set-up p50 ").append(setUpP50.format(3)).append(", set-up p99 ").append(setUpP99.format(3))
                .append(", connects/s ").append(rate.format(3)).append('\n');
        out.append(String.format(Locale.ROOT, "  %-10s within %d %%: set-up p50 on/off <= %.2f and connects/s"
                + " on/off >= %.2f, judged on the medians%n", verdict(setUpP50, rate), TOLERANCE_PERCENT,
                1 + TOLERANCE_PERCENT / 100.0, 1 - TOLERANCE_PERCENT / 100.0));
        if (!errors.isEmpty()) {
            out.append("\nErrors\n");
            errors.forEach(error -> out.append("  ").append(error).append('\n'));
        }
    }

    /**
     * Returns {@code MET} if the fallback's set-up p50 is at most {@value #TOLERANCE_PERCENT} % above the
     * strict path's and its connects per second at most that much below, {@code MISSED} if not,
     * {@code UNMEASURED} where a ratio is missing.
     */
    static String verdict(Figure setUpP50, Figure connectsPerSecond) {
        if (!setUpP50.isMeasured() || !connectsPerSecond.isMeasured()) {
            return "UNMEASURED";
        }
        double tolerance = TOLERANCE_PERCENT / 100.0;
        return setUpP50.value() <= 1 + tolerance && connectsPerSecond.value() >= 1 - tolerance ? "MET" : "MISSED";
    }

    private Figure ratio(ToDoubleFunction<Row> figure) {
        return readings(fallback, figure).over(readings(strict, figure));
    }

    private Readings readings(String path, ToDoubleFunction<Row> figure) {
        Map<Integer, Double> byRound = new TreeMap<>();
        rows.getOrDefault(path, Map.of()).forEach((round, row) -> byRound.put(round, figure.applyAsDouble(row)));
        return Readings.of(byRound);
    }
}
