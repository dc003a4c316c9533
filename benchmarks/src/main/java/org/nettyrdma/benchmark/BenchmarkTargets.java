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

import static org.nettyrdma.benchmark.BenchmarkReport.JAVA_VERBS;
import static org.nettyrdma.benchmark.BenchmarkReport.JAVA_VERBS_EVENTS;
import static org.nettyrdma.benchmark.BenchmarkReport.JAVA_VERBS_SEND;
import static org.nettyrdma.benchmark.BenchmarkReport.RDMA;
import static org.nettyrdma.benchmark.BenchmarkReport.RDMA_BUSYPOLL;
import static org.nettyrdma.benchmark.BenchmarkReport.RDMA_NOPOLL;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedSet;

/**
 * The project's targets (docs/benchmark.md#targets), met or missed, judged on the medians of one run's
 * rounds and printed with their spread. A target whose figures come from fewer than {@link #MIN_ROUNDS}
 * rounds is still judged on what there is, and its line says which programs fell short. Not thread-safe.
 */
final class BenchmarkTargets {

    /** The fewest rounds a median needs (docs/benchmark.md, how a change is judged). */
    static final int MIN_ROUNDS = 3;

    /** The default loops' round trip against busy polling's, at every size: at most this. */
    private static final double TARGET_ADAPTIVE_LATENCY_RATIO = 1.5;
    /** The sizes at which the default loops' round trip is at most epoll's. */
    private static final int[] TARGET_BELOW_EPOLL_SIZES = {64, 4096};
    /** The most of a core, in %, a default loop may use while its connection is idle. */
    private static final double TARGET_IDLE_LOOP_PCT = 1.0;
    private static final int TARGET_BANDWIDTH_SIZE = 65536;
    private static final double TARGET_BANDWIDTH_RATIO = 0.9;
    private static final int TARGET_LATENCY_SIZE = 64;
    private static final double TARGET_LATENCY_RATIO = 1.5;

    private final BenchmarkRun run;
    private final StringBuilder out;

    private BenchmarkTargets(BenchmarkRun run, StringBuilder out) {
        this.run = run;
        this.out = out;
    }

    /** Appends the targets of {@code run}, heading first. */
    static void render(BenchmarkRun run, StringBuilder out) {
        out.append("\nTargets (docs/benchmark.md), judged on the medians of the rounds\n");
        BenchmarkTargets targets = new BenchmarkTargets(run, out);
        targets.bandwidth();
        targets.latency();
        targets.adaptivePolling();
        targets.garbage();
        targets.registeredMemory();
        targets.copies();
    }

    /**
     * 64 KiB against ib_write_bw, which busy-polls its CQ and whose receiver has no work at all: the
     * like-for-like figure is the busy-polling transport's, where measured, with the sleeping loops'
     * figure, the floor's and the Send floor's (against ib_send_bw) beside it.
     */
    private void bandwidth() {
        String transport = run.readings(RDMA_BUSYPOLL, TARGET_BANDWIDTH_SIZE, "MBps").rounds() > 0 ? RDMA_BUSYPOLL
                : RDMA;
        Readings bandwidth = run.readings(transport, TARGET_BANDWIDTH_SIZE, "MBps");
        Figure perf = run.perftestFigure("ib_write_bw", TARGET_BANDWIDTH_SIZE, "MBps");
        Figure ratio = bandwidth.over(perf.value());
        String sleeping = "";
        Readings sleepingBandwidth = run.readings(RDMA, TARGET_BANDWIDTH_SIZE, "MBps");
        if (RDMA_BUSYPOLL.equals(transport) && sleepingBandwidth.rounds() > 0) {
            sleeping = String.format(Locale.ROOT, " (rdma, loops that sleep: %s MB/s, %s x)",
                    sleepingBandwidth.figure().format(2), sleepingBandwidth.over(perf.value()).format(2));
        }
        // Context only: the target is judged on the transport against perftest. The busy-polling floor
        // where measured (ib_write_bw busy-polls too, and it is the most Java on verbs can do), else the
        // waiting one.
        String floor = run.readings(JAVA_VERBS, TARGET_BANDWIDTH_SIZE, "MBps").rounds() > 0 ? JAVA_VERBS
                : JAVA_VERBS_EVENTS;
        String context = floorContext("floor", floor, "", perf, transport, bandwidth)
                // Where the transport has no ring (rxe), every byte goes by Send: the floor of that path.
                + floorContext("Send floor", JAVA_VERBS_SEND, "ib_send_bw ",
                        run.perftestFigure("ib_send_bw", TARGET_BANDWIDTH_SIZE, "MBps"), transport, bandwidth);
        target(ratio.value() >= TARGET_BANDWIDTH_RATIO, !ratio.isMeasured(), String.format(Locale.ROOT,
                "64 KiB throughput >= %.1f x ib_write_bw: %s %s MB/s is %s x %s MB/s%s", TARGET_BANDWIDTH_RATIO,
                transport, bandwidth.figure().format(2), ratio.format(2), perf.format(2), sleeping) + context,
                Map.of(transport, bandwidth));
    }

    /**
     * Returns the 64 KiB stream of {@code floor} as context, {@code "; label: floor F MB/s is R x tool P MB/s,
     * transport is Q x floor"}, against perftest's {@code perf}, or nothing where the floor was not measured.
     * {@code tool} names perftest's tool, a space after it, where it is not the one the target's line names,
     * and is empty where it is.
     */
    private String floorContext(String label, String floor, String tool, Figure perf, String transport,
                                Readings bandwidth) {
        Readings floorBandwidth = run.readings(floor, TARGET_BANDWIDTH_SIZE, "MBps");
        return floorBandwidth.rounds() == 0 ? "" : String.format(Locale.ROOT, "; %s: %s %s MB/s is %s x %s%s MB/s,"
                + " %s is %s x %s", label, floor, floorBandwidth.figure().format(2),
                floorBandwidth.over(perf.value()).format(2), tool, perf.format(2), transport,
                bandwidth.over(floorBandwidth).format(2), floor);
    }

    /**
     * 64 B against ib_send_lat's round trip; ib_send_lat busy-polls its CQ, so the like-for-like figure is
     * the busy-polling transport's, where measured, with the floor that polls or waits as it does beside it.
     */
    private void latency() {
        String transport = run.readings(RDMA_BUSYPOLL, TARGET_LATENCY_SIZE, "rtt_p50_us").rounds() > 0
                ? RDMA_BUSYPOLL : RDMA;
        Readings latency = run.readings(transport, TARGET_LATENCY_SIZE, "rtt_p50_us");
        Figure perf = BenchmarkReport.sendLatencyRoundTrip(run, TARGET_LATENCY_SIZE);
        Figure ratio = latency.over(perf.value());
        // Context only: busy polling against busy polling, waiting against waiting.
        String floor = RDMA_BUSYPOLL.equals(transport) ? JAVA_VERBS : JAVA_VERBS_EVENTS;
        Readings floorLatency = run.readings(floor, TARGET_LATENCY_SIZE, "rtt_p50_us");
        String context = floorLatency.rounds() == 0 ? "" : String.format(Locale.ROOT,
                "; floor: %s p50 %s us is %s x %s us, %s is %s x %s", floor, floorLatency.figure().format(1),
                floorLatency.over(perf.value()).format(2), perf.format(1), transport,
                latency.over(floorLatency).format(2), floor);
        target(ratio.value() <= TARGET_LATENCY_RATIO, !ratio.isMeasured(), String.format(Locale.ROOT,
                "64 B round trip <= %.1f x ib_send_lat's: %s p50 %s us is %s x %s us", TARGET_LATENCY_RATIO, transport,
                latency.figure().format(1), ratio.format(2), perf.format(1)) + context, Map.of(transport, latency));
    }

    /**
     * The default loops, which poll adaptively, against loops that busy-poll, loops that never poll, and
     * epoll, all measured in this run: the round trip and its CPU at each size, the 64 B p99, an idle
     * loop, the stream.
     */
    private void adaptivePolling() {
        perSize("round trip p50, default loops <= epoll's at 64 B and 4 KiB", "rtt_p50_us", "epoll",
                TARGET_BELOW_EPOLL_SIZES, 1);
        int[] everySize = run.sizes().stream().mapToInt(Integer::intValue).toArray();
        perSize(String.format(Locale.ROOT, "round trip p50, default loops <= %.1f x busy polling's at every size",
                TARGET_ADAPTIVE_LATENCY_RATIO), "rtt_p50_us", RDMA_BUSYPOLL, everySize, TARGET_ADAPTIVE_LATENCY_RATIO);
        perSize("CPU per round trip, default loops <= busy polling's at every size", "cpu_us_per_rtt", RDMA_BUSYPOLL,
                everySize, 1);

        Readings adaptiveP99 = run.readings(RDMA, TARGET_LATENCY_SIZE, "rtt_p99_us");
        Readings nopollP99 = run.readings(RDMA_NOPOLL, TARGET_LATENCY_SIZE, "rtt_p99_us");
        atMost(adaptiveP99, nopollP99, String.format(Locale.ROOT, "64 B round trip p99, default loops <= loops that"
                + " never poll: rdma %s us, rdma-nopoll %s us", adaptiveP99.figure().format(1),
                nopollP99.figure().format(1)), programs(RDMA, adaptiveP99, RDMA_NOPOLL, nopollP99));

        Readings idle = run.idleReadings(RDMA, "loop_cpu_pct");
        StringBuilder others = new StringBuilder();
        for (String transport : new String[] {RDMA_NOPOLL, RDMA_BUSYPOLL, "epoll"}) {
            Figure share = run.idleReadings(transport, "loop_cpu_pct").figure();
            if (share.isMeasured()) {
                others.append(String.format(Locale.ROOT, "; %s %s %%", transport, share.format(3)));
            }
        }
        Figure idleShare = idle.figure();
        target(idleShare.value() <= TARGET_IDLE_LOOP_PCT, !idleShare.isMeasured(), String.format(Locale.ROOT,
                "an idle default loop <= %.0f %% of a core: rdma %s %% over %s s%s", TARGET_IDLE_LOOP_PCT,
                idleShare.format(3), median(run.idleReadings(RDMA, "seconds")), others), Map.of(RDMA, idle));

        Readings stream = run.readings(RDMA, TARGET_BANDWIDTH_SIZE, "MBps");
        Figure perf = run.perftestFigure("ib_write_bw", TARGET_BANDWIDTH_SIZE, "MBps");
        Figure ratio64k = stream.over(perf.value());
        target(ratio64k.value() >= TARGET_BANDWIDTH_RATIO, !ratio64k.isMeasured(), String.format(Locale.ROOT,
                "64 KiB stream, default loops >= %.1f x ib_write_bw: rdma %s MB/s is %s x %s MB/s",
                TARGET_BANDWIDTH_RATIO, stream.figure().format(2), ratio64k.format(2), perf.format(2)),
                Map.of(RDMA, stream));
    }

    /**
     * The target that, at each of {@code sizes}, the default loops' median of {@code key} is at most
     * {@code ratio} times {@code other}'s; the line gives both medians and their ratio at each size.
     */
    private void perSize(String title, String key, String other, int[] sizes, double ratio) {
        boolean met = sizes.length > 0;
        boolean measured = sizes.length > 0;
        StringBuilder detail = new StringBuilder();
        Map<String, Readings> judged = new LinkedHashMap<>();
        for (int size : sizes) {
            Readings mine = run.readings(RDMA, size, key);
            Readings theirs = run.readings(other, size, key);
            fewest(judged, RDMA, mine);
            fewest(judged, other, theirs);
            measured &= mine.rounds() > 0 && theirs.rounds() > 0;
            // NaN, a figure not measured, meets nothing.
            met &= mine.figure().value() <= ratio * theirs.figure().value();
            detail.append(String.format(Locale.ROOT, "%s%d B %s %s, %s %s us (%s x)", detail.length() == 0 ? "" : "; ",
                    size, RDMA, median(mine), other, median(theirs), mine.over(theirs).format(2)));
        }
        target(met, !measured, title + ": " + detail, judged);
    }

    /** The target that {@code mine}'s median is at most {@code theirs}'. */
    private void atMost(Readings mine, Readings theirs, String text, Map<String, Readings> judged) {
        double a = mine.figure().value();
        double b = theirs.figure().value();
        target(a <= b, Double.isNaN(a) || Double.isNaN(b), text, judged);
    }

    /**
     * Met when, at every size and in both phases, the median of what RDMA allocates per message is at most
     * 1 byte above epoll's with the same pipeline: what epoll allocates is Netty's own (its recyclers'
     * queues), not a transport's.
     */
    private void garbage() {
        double worstExcess = Double.NEGATIVE_INFINITY;
        StringBuilder detail = new StringBuilder();
        boolean measured = run.ran(RDMA);
        Map<String, Readings> judged = new LinkedHashMap<>();
        for (int size : run.sizes()) {
            for (String key : new String[] {"alloc_B_per_msg", "alloc_B_per_rtt"}) {
                Readings mine = run.readings(RDMA, size, key);
                Readings theirs = run.readings("epoll", size, key);
                fewest(judged, RDMA, mine);
                fewest(judged, "epoll", theirs);
                if (mine.rounds() == 0 || theirs.rounds() == 0) {
                    measured = false;
                    continue;
                }
                worstExcess = Math.max(worstExcess, mine.figure().value() - theirs.figure().value());
            }
            detail.append(String.format(Locale.ROOT, "%s%d B: %s/%s", detail.length() == 0 ? "" : ", ", size,
                    median(run.readings(RDMA, size, "alloc_B_per_msg")),
                    median(run.readings(RDMA, size, "alloc_B_per_rtt"))));
        }
        target(worstExcess <= 1, !measured, "no garbage per message in the steady state: rdma allocates "
                + "(B/msg / B/round trip, medians) " + detail + "; at most "
                + Figure.single(worstExcess).format(1) + " B more than epoll with the same pipeline", judged);
    }

    /**
     * Met when the connections registered the same amount in every round and at every size, whatever their
     * traffic, and nothing outlived them.
     */
    private void registeredMemory() {
        SortedSet<Long> perChannel = run.registeredPerChannel(RDMA);
        List<String> left = run.registeredAfterShutdown();
        boolean measured = !perChannel.isEmpty() && !left.isEmpty();
        boolean met = perChannel.size() == 1 && left.stream().allMatch("0"::equals);
        Map<String, Readings> judged = new LinkedHashMap<>();
        for (int size : run.sizes()) {
            fewest(judged, RDMA, run.readings(RDMA, size, "registered_B_per_channel"));
        }
        target(met, !measured, "bounded registered memory per connection: "
                + (perChannel.isEmpty() ? "-" : perChannel.size() == 1
                        ? Figure.single(perChannel.first() / (double) (1 << 20)).format(2)
                                + " MiB per channel at every size, in every round"
                        : "varies: " + perChannel + " B per channel")
                + ", " + (left.isEmpty() ? "-" : String.join(", ", left)) + " B left after shutdown", judged);
    }

    /**
     * Met when the default loops' 64 KiB stream, whose buffers come from the channel's registered
     * allocator, copied nothing at either end in any round: Sends and Writes read them where they are,
     * and the reader hands its receive slots up in place.
     */
    private void copies() {
        Readings copied = run.readings(RDMA, TARGET_BANDWIDTH_SIZE, "copied_B_per_msg");
        double most = copied.byRound().values().stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        target(most == 0, copied.rounds() == 0, "64 KiB stream of registered buffers carried without a copy at"
                + " either end: rdma copied " + Figure.single(most).format(1) + " B per message in its worst round", Map.of(RDMA, copied));
    }

    /**
     * Appends a target's line: MET, MISSED or NOT MEASURED, its text, and which of the {@code judged}
     * programs' figures came from fewer than {@link #MIN_ROUNDS} rounds.
     */
    private void target(boolean met, boolean notMeasured, String text, Map<String, Readings> judged) {
        StringBuilder fewer = new StringBuilder();
        judged.forEach((program, readings) -> {
            if (readings.rounds() > 0 && readings.rounds() < MIN_ROUNDS) {
                fewer.append(fewer.length() == 0 ? "" : ", ").append(program).append(' ').append(readings.rounds());
            }
        });
        out.append(String.format(Locale.ROOT, "  %-13s %s%s%n", notMeasured ? "NOT MEASURED" : met ? "MET" : "MISSED",
                text, fewer.length() == 0 ? "" : " [fewer than " + MIN_ROUNDS + " rounds: " + fewer + "]"));
    }

    /**
     * Keeps, for {@code program}, the readings of the fewest rounds among those the target uses; readings of
     * no round at all count as not measured, not as fewer.
     */
    private static void fewest(Map<String, Readings> judged, String program, Readings readings) {
        judged.merge(program, readings, (a, b) -> a.rounds() == 0 || (b.rounds() > 0 && b.rounds() < a.rounds())
                ? b : a);
    }

    private static Map<String, Readings> programs(String a, Readings aReadings, String b, Readings bReadings) {
        Map<String, Readings> judged = new LinkedHashMap<>();
        judged.put(a, aReadings);
        judged.put(b, bReadings);
        return judged;
    }

    /** Returns the median alone, without its spread, where a line lists many figures. */
    private static String median(Readings readings) {
        return Figure.single(readings.figure().value()).format(1);
    }
}
