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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

import org.nettyrdma.benchmark.Spread;

/**
 * The figures of {@link GrpcEchoBenchmark}'s rounds, per transport, and their report: one line per round,
 * a table of medians with the lowest and highest round ({@link Spread}), and one summary line for
 * scripts, {@code framework grpc key=value ...}, whose format stays as it is:
 *
 * <pre>
 * framework grpc rounds=3 unary_bytes=64 stream_bytes=1048576 allocator=grpc
 *     unary_p50_us=rdma:M[MIN-MAX],epoll:M[MIN-MAX] unary_p99_us=... stream_mib_s=...
 * </pre>
 *
 * (one line). A figure no round measured reads {@code -}.
 */
final class GrpcEchoReport {

    /** What one round of one transport measured; {@code NaN} where it failed, with the error. */
    record Round(int round, String transport, double p50Micros, double p99Micros, long calls, double mibPerSecond,
                 String error) {
        String line() {
            return String.format(Locale.ROOT, "round %d %-6s unary p50 %8.1f us p99 %8.1f us (%d calls), "
                    + "stream %8.1f MiB/s%s", round, transport, p50Micros, p99Micros, calls, mibPerSecond,
                    error != null ? " ERROR " + error : "");
        }
    }

    private final Map<String, List<Round>> rounds = new LinkedHashMap<>();
    private final int unaryBytes;
    private final int streamBytes;
    private final String allocator;

    GrpcEchoReport(List<String> transports, int unaryBytes, int streamBytes, String allocator) {
        transports.forEach(transport -> rounds.put(transport, new ArrayList<>()));
        this.unaryBytes = unaryBytes;
        this.streamBytes = streamBytes;
        this.allocator = allocator;
    }

    void add(Round round) {
        rounds.get(round.transport()).add(round);
    }

    /** Returns {@code true} if every round measured everything. */
    boolean complete() {
        return rounds.values().stream().flatMap(List::stream).allMatch(round -> round.error() == null);
    }

    void print(PrintStream out) {
        out.println();
        rounds.values().stream().flatMap(List::stream).sorted((a, b) -> Integer.compare(a.round(), b.round()))
                .forEach(round -> out.println(round.line()));
        out.println();
        out.printf(Locale.ROOT, "median [lowest-highest] of %d rounds | unary %d B p50 us | unary p99 us | stream %d B MiB/s%n",
                rounds.values().iterator().next().size(), unaryBytes, streamBytes);
        for (Map.Entry<String, List<Round>> transport : rounds.entrySet()) {
            out.printf(Locale.ROOT, "%-6s | %s | %s | %s%n", transport.getKey(),
                    spread(transport.getValue(), Round::p50Micros).format(1),
                    spread(transport.getValue(), Round::p99Micros).format(1),
                    spread(transport.getValue(), Round::mibPerSecond).format(1));
        }
        out.println();
        out.println(summaryLine());
    }

    /** The one line scripts read; see the class comment. */
    String summaryLine() {
        return String.format(Locale.ROOT, "framework grpc rounds=%d unary_bytes=%d stream_bytes=%d allocator=%s "
                + "unary_p50_us=%s unary_p99_us=%s stream_mib_s=%s", rounds.values().iterator().next().size(),
                unaryBytes, streamBytes, allocator, figure(Round::p50Micros), figure(Round::p99Micros),
                figure(Round::mibPerSecond));
    }

    private String figure(ToDoubleFunction<Round> value) {
        return rounds.entrySet().stream()
                .map(transport -> transport.getKey() + ':' + spread(transport.getValue(), value).format(1).replace(" ", ""))
                .collect(Collectors.joining(","));
    }

    private static Spread spread(List<Round> rounds, ToDoubleFunction<Round> value) {
        return Spread.of(rounds.stream().mapToDouble(value).toArray());
    }
}
