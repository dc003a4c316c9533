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

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

import org.nettyrdma.benchmark.ScaleRound.CloseSample;
import org.nettyrdma.benchmark.ScaleRound.IdleStep;
import org.nettyrdma.benchmark.ScaleRound.StreamPoint;

/**
 * Prints what {@link ScaleBenchmark} measured, the transports side by side: idle connections and the
 * memory they hold (one reading per count, from the first round that has one), connection set-up,
 * the throughput of many active connections and its fairness, the round trip beside idle
 * connections, then the targets of issue 24 met or missed for RDMA. Timed figures are the median of
 * the rounds with their spread ({@link Spread}). docs/benchmark.md explains every column. One round's
 * figures alone print as it ends ({@link #printRound}).
 */
final class ScaleReport {

    static final long KIB = 1 << 10;
    static final long MIB = 1 << 20;
    /** The targets. */
    static final long IDLE_TARGET_BYTES = 64 * KIB;
    static final int THOUSAND = 1000;
    static final long THOUSAND_TARGET_BYTES = 128 * MIB;
    static final int TEN_THOUSAND = 10_000;
    static final int MANY_ACTIVE = 64;
    static final double MANY_ACTIVE_SHARE = 0.9;
    static final double FAIR_SHARE = 0.5;

    /** The lowest share of the raw RDMA CM floor's connects per second that the transport's meet. */
    static final double CONNECT_FLOOR_SHARE = 0.8;

    private final Map<String, List<ScaleRound>> rounds = new LinkedHashMap<>();
    /** What the raw RDMA CM connect loop measured, a round each; empty when it did not run. */
    private final List<ConnectFloor> floors = new ArrayList<>();
    private final int[] counts;
    private final int[] actives;
    private final int[] sizes;
    private final int inFlight;

    ScaleReport(int[] counts, int[] actives, int[] sizes, int inFlight) {
        this.counts = counts.clone();
        this.actives = actives.clone();
        this.sizes = sizes.clone();
        this.inFlight = inFlight;
    }

    /** Adds a round's figure of the raw RDMA CM floor under set-up. */
    void addFloor(ConnectFloor floor) {
        floors.add(floor);
    }

    /** Adds a round's figures; transports print in the order of their first round. */
    void add(ScaleRound round) {
        rounds.computeIfAbsent(round.transport, transport -> new ArrayList<>()).add(round);
    }

    void print(PrintStream out) {
        int roundCount = rounds.values().stream().mapToInt(List::size).max().orElse(0);
        out.println("Timed figures: median [min-max] of " + roundCount + " interleaved round(s); memory: one reading"
                + " per count, from the first round that has it. MB = 2^20 bytes.");
        printRoundErrors(out);
        printIdle(out);
        printClosing(out);
        printSetUp(out);
        printStreams(out);
        printRoundTrip(out);
        printTargets(out);
    }

    /**
     * Prints the figures of one round alone, as measured (no medians), one line each and every line led by
     * {@code round N TRANSPORT:}: the benchmark prints them as the round ends, so that a run cut short
     * still has every round it finished.
     */
    static void printRound(ScaleRound round, PrintStream out) {
        String lead = "round " + round.round + ' ' + round.transport + ": ";
        if (round.error != null) {
            out.println(lead + "ended early: " + round.error);
        }
        if (round.idleBaseline != null) {
            out.println(lead + "idle baseline: " + idleFigures(round.idleBaseline));
        }
        for (IdleStep step : round.idle) {
            out.println(lead + "idle " + step.asked() + ": " + idleFigures(step));
        }
        for (CloseSample sample : round.closing) {
            out.println(lead + "closing " + round.closedAtOnce + " idle at once, " + closeFigures(sample));
        }
        if (!round.closing.isEmpty()) {
            out.println(lead + closingTarget(round));
        }
        out.println(lead + "set-up: " + round.connects + " connects, p50 " + figure(round.setUpP50Ms, 1)
                + " ms, p99 " + figure(round.setUpP99Ms, 1) + " ms, " + figure(round.connectsPerSecond, 1)
                + " connects/s");
        for (StreamPoint point : round.streams) {
            out.println(lead + "stream " + point.active() + " x " + point.size() + " B: " + point.connected()
                    + " connected, " + figure(point.aggregateMBps(), 2) + " MB/s, slowest "
                    + figure(point.slowestMBps(), 2) + ", fastest " + figure(point.fastestMBps(), 2) + " MB/s"
                    + (point.error() != null ? "; " + point.error() : ""));
        }
        out.println(lead + "round trip: alone p50 " + figure(round.roundTripAloneP50Us, 1) + " us, p99 "
                + figure(round.roundTripAloneP99Us, 1) + " us; beside " + round.roundTripBeside + " idle p50 "
                + figure(round.roundTripBesideP50Us, 1) + " us, p99 " + figure(round.roundTripBesideP99Us, 1)
                + " us" + (round.roundTripError != null ? "; " + round.roundTripError : ""));
    }

    /** Returns a step's memory figures; registered memory only where the transport has any (not epoll). */
    private static String idleFigures(IdleStep step) {
        String registered = step.registeredBytes() < 0 ? ""
                : ", registered " + bytes(step.registeredBytes()) + ", channel " + bytes(step.channelBytes());
        return "held " + step.held() + registered + ", VmPin " + bytes(step.vmPinKib() * KIB) + ", RSS "
                + bytes(step.rssKib() * KIB) + (step.stopped() ? ", stopped: " + step.error() : "");
    }

    /** Returns a reading of the server while the idle connections closed. */
    private static String closeFigures(CloseSample sample) {
        String registered = sample.registeredBytes() < 0 ? ""
                : ", registered " + bytes(sample.registeredBytes()) + ", " + sample.regions() + " regions";
        return String.format(Locale.ROOT, "+%.1f s: held %d", sample.millis() / 1e3, sample.children()) + registered
                + ", VmPin " + bytes(sample.vmPinKib() * KIB);
    }

    /**
     * Returns the verdict on the close of {@code round}'s idle connections: {@code VmPin} and the
     * registered bytes only fell, reading after reading, with the peak of each over its reading before
     * the close.
     */
    static String closingTarget(ScaleRound round) {
        String target = "while " + round.closedAtOnce + " idle connections close at once, VmPin and registered"
                + " memory only fall";
        Boolean onlyFell = round.onlyFellWhileClosing();
        if (onlyFell == null) {
            return verdict(null, target, round.closingError != null ? round.closingError : "fewer than two readings");
        }
        CloseSample open = round.closing.get(0);
        CloseSample last = round.closing.get(round.closing.size() - 1);
        long peakPin = round.closing.stream().mapToLong(CloseSample::vmPinKib).max().orElse(0);
        long peakRegistered = round.closing.stream().mapToLong(CloseSample::registeredBytes).max().orElse(0);
        String registered = open.registeredBytes() < 0 ? "" : "; registered " + bytes(open.registeredBytes())
                + " open, peak " + bytes(peakRegistered) + ", " + bytes(last.registeredBytes()) + " at the end";
        return verdict(onlyFell, target, "VmPin " + bytes(open.vmPinKib() * KIB) + " open, peak "
                + bytes(peakPin * KIB) + ", " + bytes(last.vmPinKib() * KIB) + " after "
                + String.format(Locale.ROOT, "%.1f s", last.millis() / 1e3) + registered
                + (round.closingError != null ? "; " + round.closingError : ""));
    }

    /** Returns {@code value} with {@code decimals} decimals, or {@code -} for {@code NaN} (not measured). */
    private static String figure(double value, int decimals) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%." + decimals + 'f', value);
    }

    private void printRoundErrors(PrintStream out) {
        forEachRound(round -> {
            if (round.error != null) {
                out.println("  round " + round.round + ' ' + round.transport + " ended early: " + round.error);
            }
        });
    }

    private void printIdle(PrintStream out) {
        out.println();
        out.println("Idle connections to one server, the client in another process: the server's memory");
        out.println(String.format(Locale.ROOT, "%7s %-9s %7s %12s %12s %12s %11s %11s %10s  %s", "N", "transport",
                "held", "registered", "reg/idle", "channel/idle", "VmPin", "RSS", "RSS/idle", "stopped"));
        for (int count : counts) {
            rounds.forEach((transport, list) -> {
                ScaleRound round = firstWithIdle(list);
                IdleStep step = round != null ? round.idleStep(count) : null;
                if (step == null) {
                    return;
                }
                IdleStep base = round.idleBaseline;
                boolean registered = step.registeredBytes() >= 0;
                out.println(String.format(Locale.ROOT, "%7d %-9s %7d %12s %12s %12s %11s %11s %10s  %s", count,
                        transport, step.held(), registered ? bytes(step.registeredBytes()) : "-",
                        registered ? bytes(round.registeredPerIdle(step)) : "-",
                        registered && step.held() > 0 ? bytes((double) step.channelBytes() / step.held()) : "-",
                        bytes(step.vmPinKib() * KIB), bytes(step.rssKib() * KIB),
                        base != null && step.held() > 0
                                ? bytes((double) (step.rssKib() - base.rssKib()) * KIB / step.held()) : "-",
                        step.stopped() ? "at " + step.held() + ": " + step.error() : ""));
            });
        }
        out.println("  held: open at the server; registered: the server's registered memory (RdmaMemoryMetrics),"
                + " reg/idle: what the idle connections added to it, each; channel/idle: their"
                + " RdmaChannelMetrics.registeredBytes(), each; VmPin, RSS: /proc/PID/status of the server,"
                + " RSS/idle: what the idle connections added, each");
    }

    private void printClosing(PrintStream out) {
        out.println();
        out.println("The idle connections closing at once: the server read every half second (first round of each"
                + " transport)");
        out.println(String.format(Locale.ROOT, "  %-9s %8s %7s %12s %8s %11s", "transport", "time", "held",
                "registered", "regions", "VmPin"));
        rounds.forEach((transport, list) -> {
            ScaleRound round = list.stream().filter(r -> !r.closing.isEmpty()).findFirst().orElse(null);
            if (round == null) {
                return;
            }
            for (CloseSample sample : round.closing) {
                boolean registered = sample.registeredBytes() >= 0;
                out.println(String.format(Locale.ROOT, "  %-9s %8s %7d %12s %8s %11s", transport,
                        String.format(Locale.ROOT, "+%.1f s", sample.millis() / 1e3), sample.children(),
                        registered ? bytes(sample.registeredBytes()) : "-",
                        registered ? String.valueOf(sample.regions()) : "-", bytes(sample.vmPinKib() * KIB)));
            }
            out.println("  " + transport + ": " + closingTarget(round));
        });
        out.println("  time: since the close of all of them (+0.0 s: just before); held: open at the server;"
                + " registered, regions: RdmaMemoryMetrics (every kind); VmPin: /proc/PID/status of the server");
    }

    private void printSetUp(PrintStream out) {
        out.println();
        out.println("Connection set-up to one server, " + inFlight + " connects in flight (every connect of the"
                + " idle ramp)");
        out.println(String.format(Locale.ROOT, "  %-9s %16s %26s %26s %28s", "transport", "connects", "p50 ms",
                "p99 ms", "connects/s"));
        rounds.forEach((transport, list) -> out.println(String.format(Locale.ROOT, "  %-9s %16s %26s %26s %28s",
                transport, Spread.of(values(list, round -> round.connects)).format(0),
                Spread.of(values(list, round -> round.setUpP50Ms)).format(1),
                Spread.of(values(list, round -> round.setUpP99Ms)).format(1),
                Spread.of(values(list, round -> round.connectsPerSecond)).format(1))));
        if (!floors.isEmpty()) {
            out.println(String.format(Locale.ROOT, "  %-9s %16s %26s %26s %28s", ConnectFloor.NAME,
                    Spread.of(floors.stream().mapToDouble(ConnectFloor::connects).toArray()).format(0),
                    Spread.of(floors.stream().mapToDouble(ConnectFloor::setUpP50Ms).toArray()).format(1),
                    Spread.of(floors.stream().mapToDouble(ConnectFloor::setUpP99Ms).toArray()).format(1),
                    Spread.of(floors.stream().mapToDouble(ConnectFloor::connectsPerSecond).toArray()).format(1)));
            out.println("  " + ConnectFloor.NAME + ": the device's floor, cm-connect-floor (C on librdmacm): the same"
                    + " connects, as many in flight, a queue pair each and held open; no JVM, no message");
            floors.stream().filter(floor -> floor.error() != null).forEach(floor ->
                    out.println("  " + ConnectFloor.NAME + " round " + floor.round() + ": " + floor.error()));
        }
    }

    /** The transport's connects per second within {@link #CONNECT_FLOOR_SHARE} of the raw RDMA CM floor's. */
    String connectFloorTarget() {
        String target = "rdma connects/s >= " + CONNECT_FLOOR_SHARE + " x the raw RDMA CM floor's (" + ConnectFloor.NAME
                + ")";
        List<ScaleRound> rdma = rounds.get("rdma");
        double floor = Spread.of(floors.stream().mapToDouble(ConnectFloor::connectsPerSecond).toArray()).median();
        double transport = rdma == null ? Double.NaN
                : Spread.of(values(rdma, round -> round.connectsPerSecond)).median();
        if (Double.isNaN(floor) || Double.isNaN(transport)) {
            return verdict(null, target, floors.isEmpty() ? "the floor did not run" : "no figure");
        }
        return verdict(transport >= CONNECT_FLOOR_SHARE * floor, target, String.format(Locale.ROOT,
                "%.1f against %.1f connects/s, %s (medians)", transport, floor, ratio(transport / floor)));
    }

    private void printStreams(PrintStream out) {
        out.println();
        out.println("Throughput: active connections, each streaming one way to the server; MB/s read at the server");
        out.println(String.format(Locale.ROOT, "%7s %6s %-9s %16s %28s %20s %20s %20s", "bytes", "active",
                "transport", "connected", "aggregate MB/s", "x one alone", "slowest/fastest", "slowest/fair"));
        for (int size : sizes) {
            for (int active : actives) {
                for (Map.Entry<String, List<ScaleRound>> entry : rounds.entrySet()) {
                    List<ScaleRound> list = entry.getValue();
                    List<String> errors = new ArrayList<>();
                    for (ScaleRound round : list) {
                        StreamPoint point = round.stream(active, size);
                        if (point != null && point.error() != null) {
                            errors.add("round " + round.round + ": " + point.error());
                        }
                    }
                    out.println(String.format(Locale.ROOT, "%7d %6d %-9s %16s %28s %20s %20s %20s%s", size, active,
                            entry.getKey(), Spread.of(streamValues(list, active, size, StreamPoint::connected)).format(0),
                            Spread.of(streamValues(list, active, size, StreamPoint::aggregateMBps)).format(2),
                            aloneRatio(list, active, size).format(2),
                            Spread.of(streamValues(list, active, size, StreamPoint::slowestToFastest)).format(2),
                            Spread.of(streamValues(list, active, size, StreamPoint::slowestShareOfFair)).format(2),
                            errors.isEmpty() ? "" : "  " + String.join("; ", errors)));
                }
            }
        }
        out.println("  x one alone: the aggregate over one connection's in the same round; slowest/fair: the"
                + " slowest connection over the aggregate divided by the connections");
    }

    private void printRoundTrip(PrintStream out) {
        out.println();
        out.println("Round trip of 64 B on one connection, us: alone, and with idle connections open beside it");
        out.println(String.format(Locale.ROOT, "  %-9s %22s %24s %16s %22s %24s", "transport", "alone p50", "alone p99",
                "idle", "beside p50", "beside p99"));
        rounds.forEach((transport, list) -> {
            out.println(String.format(Locale.ROOT, "  %-9s %22s %24s %16s %22s %24s", transport,
                    Spread.of(values(list, round -> round.roundTripAloneP50Us)).format(1),
                    Spread.of(values(list, round -> round.roundTripAloneP99Us)).format(1),
                    Spread.of(values(list, round -> round.roundTripBeside)).format(0),
                    Spread.of(values(list, round -> round.roundTripBesideP50Us)).format(1),
                    Spread.of(values(list, round -> round.roundTripBesideP99Us)).format(1)));
            for (ScaleRound round : list) {
                if (round.roundTripError != null) {
                    out.println("    round " + round.round + ": " + round.roundTripError);
                }
            }
        });
    }

    private void printTargets(PrintStream out) {
        out.println();
        out.println("Targets (issues 24 and 39), judged for rdma; epoll's figure, where shown, is context");
        List<ScaleRound> rdma = rounds.get("rdma");
        if (rdma == null) {
            out.println("  NOT MEASURED  rdma did not run");
            return;
        }
        ScaleRound memory = firstWithIdle(rdma);
        out.println("  " + idleTarget(memory));
        out.println("  " + totalTarget(memory, THOUSAND, THOUSAND_TARGET_BYTES));
        out.println("  " + heldTarget(memory, TEN_THOUSAND));
        ScaleRound closed = rdma.stream().filter(round -> !round.closing.isEmpty()).findFirst().orElse(null);
        out.println("  " + (closed != null ? closingTarget(closed)
                : verdict(null, "idle connections closing at once: VmPin and registered memory only fall",
                        "no round closed any")));
        for (int size : sizes) {
            out.println("  " + activeTarget(size));
        }
        for (int size : sizes) {
            out.println("  " + fairTarget(size));
        }
        out.println("  " + connectFloorTarget());
    }

    /** An idle connection pins at most 64 KiB of registered memory, read at the largest count held. */
    static String idleTarget(ScaleRound memory) {
        String target = "idle connection <= " + bytes(IDLE_TARGET_BYTES) + " registered";
        IdleStep largest = memory == null ? null : memory.idle.stream().filter(step -> step.held() > 0)
                .reduce((first, second) -> second).orElse(null);
        double perIdle = memory == null ? Double.NaN : memory.registeredPerIdle(largest);
        if (Double.isNaN(perIdle)) {
            return verdict(null, target, "no idle connection held");
        }
        return verdict(perIdle <= IDLE_TARGET_BYTES, target, bytes(perIdle) + " per idle connection with "
                + largest.held() + " held, " + ratio(perIdle / IDLE_TARGET_BYTES) + " the target");
    }

    /** {@code count} idle connections stay under {@code limit} registered in total. */
    static String totalTarget(ScaleRound memory, int count, long limit) {
        String target = count + " idle connections < " + bytes(limit) + " registered in total";
        return atCount(memory, count, target, step -> verdict(step.registeredBytes() < limit, target,
                bytes(step.registeredBytes()) + ", " + ratio((double) step.registeredBytes() / limit) + " the target"));
    }

    /** One server holds {@code count} idle connections. */
    static String heldTarget(ScaleRound memory, int count) {
        String target = "one server holds " + count + " connections";
        return atCount(memory, count, target, step -> verdict(step.held() >= count, target, "held " + step.held()));
    }

    /**
     * Judges the ramp's step of {@code count}: missed where the ramp stopped at or before it, not measured
     * where {@code --counts} lacks it.
     */
    private static String atCount(ScaleRound memory, int count, String target, Function<IdleStep, String> judge) {
        IdleStep stop = stoppedAtOrBefore(memory, count);
        if (stop != null) {
            return verdict(false, target, "the ramp stopped at " + stop.held() + ": " + stop.error());
        }
        IdleStep step = memory == null ? null : memory.idleStep(count);
        return step == null ? verdict(null, target, "--counts has no " + count) : judge.apply(step);
    }

    private String activeTarget(int size) {
        String target = MANY_ACTIVE + " active at " + size + " B >= " + MANY_ACTIVE_SHARE + " x one alone";
        Spread rdma = aloneRatio(rounds.get("rdma"), MANY_ACTIVE, size);
        if (rdma.isEmpty()) {
            return verdict(null, target, "no round measured " + MANY_ACTIVE + " and 1 active at " + size + " B");
        }
        return verdict(rdma.median() >= MANY_ACTIVE_SHARE, target, "rdma " + rdma.format(2) + " x" + context(
                list -> aloneRatio(list, MANY_ACTIVE, size), " x"));
    }

    private String fairTarget(int size) {
        String target = "slowest of " + MANY_ACTIVE + " active at " + size + " B >= " + FAIR_SHARE
                + " of its fair share";
        Spread rdma = Spread.of(streamValues(rounds.get("rdma"), MANY_ACTIVE, size, StreamPoint::slowestShareOfFair));
        if (rdma.isEmpty()) {
            return verdict(null, target, "no round measured " + MANY_ACTIVE + " active at " + size + " B");
        }
        return verdict(rdma.median() >= FAIR_SHARE, target, "rdma " + rdma.format(2) + context(
                list -> Spread.of(streamValues(list, MANY_ACTIVE, size, StreamPoint::slowestShareOfFair)), ""));
    }

    /** Returns "; epoll ..." for the transports beside rdma, or nothing. */
    private String context(Function<List<ScaleRound>, Spread> figure, String unit) {
        StringBuilder context = new StringBuilder();
        rounds.forEach((transport, list) -> {
            Spread spread = figure.apply(list);
            if (!transport.equals("rdma") && !spread.isEmpty()) {
                context.append("; ").append(transport).append(' ').append(spread.format(2)).append(unit);
            }
        });
        return context.toString();
    }

    /** Returns the step where the ramp stopped if it asked for at most {@code count}, else {@code null}. */
    private static IdleStep stoppedAtOrBefore(ScaleRound memory, int count) {
        if (memory == null) {
            return null;
        }
        return memory.idle.stream().filter(step -> step.stopped() && step.asked() <= count).findFirst().orElse(null);
    }

    /** Returns the ratio of {@code active} connections' aggregate over one connection's, per round. */
    private static Spread aloneRatio(List<ScaleRound> list, int active, int size) {
        if (list == null) {
            return Spread.of();
        }
        return Spread.of(list.stream().mapToDouble(round -> {
            StreamPoint many = round.stream(active, size);
            StreamPoint one = round.stream(1, size);
            return many != null && one != null && one.aggregateMBps() > 0
                    ? many.aggregateMBps() / one.aggregateMBps() : Double.NaN;
        }).toArray());
    }

    private static double[] streamValues(List<ScaleRound> list, int active, int size,
                                         ToDoubleFunction<StreamPoint> figure) {
        if (list == null) {
            return new double[0];
        }
        return list.stream().mapToDouble(round -> {
            StreamPoint point = round.stream(active, size);
            return point != null && point.connected() > 0 ? figure.applyAsDouble(point) : Double.NaN;
        }).toArray();
    }

    private static double[] values(List<ScaleRound> list, ToDoubleFunction<ScaleRound> figure) {
        return list.stream().mapToDouble(figure).toArray();
    }

    private static ScaleRound firstWithIdle(List<ScaleRound> list) {
        return list.stream().filter(round -> !round.idle.isEmpty()).findFirst().orElse(null);
    }

    private void forEachRound(Consumer<ScaleRound> action) {
        rounds.values().forEach(list -> list.forEach(action));
    }

    /** Returns {@code MET}, {@code MISSED} or, for {@code null}, {@code NOT MEASURED}, the target and the figure. */
    static String verdict(Boolean met, String target, String figure) {
        String word = met == null ? "NOT MEASURED" : met ? "MET" : "MISSED";
        return String.format(Locale.ROOT, "%-13s %s: %s", word, target, figure);
    }

    private static String ratio(double ratio) {
        return String.format(Locale.ROOT, "%.2f x", ratio);
    }

    /** Returns {@code bytes} in B, KiB or MiB, or {@code -} for {@code NaN}. */
    static String bytes(double bytes) {
        if (Double.isNaN(bytes)) {
            return "-";
        }
        double magnitude = Math.abs(bytes);
        if (magnitude >= MIB) {
            return String.format(Locale.ROOT, "%.2f MiB", bytes / MIB);
        }
        if (magnitude >= KIB) {
            return String.format(Locale.ROOT, "%.1f KiB", bytes / KIB);
        }
        return String.format(Locale.ROOT, "%.0f B", bytes);
    }
}
