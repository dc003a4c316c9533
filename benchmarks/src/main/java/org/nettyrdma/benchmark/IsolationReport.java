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
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

import org.nettyrdma.channel.rdma.RdmaByteBufAllocator;

/**
 * The rounds of an {@link IsolationCost} run, design by design, and the tables printed from them: each
 * figure the median of the rounds with their minimum and maximum.
 */
final class IsolationReport {

    private static final String ROW = "%-34s | %-26s | %-26s%n";

    private final IsolationCost cost;
    private final Map<IsolationDesign, List<IsolationSetUp>> setUps = new EnumMap<>(IsolationDesign.class);
    private final Map<IsolationDesign, List<IsolationMemory>> memories = new EnumMap<>(IsolationDesign.class);
    private final Map<IsolationDesign, List<Double>> streams = new EnumMap<>(IsolationDesign.class);

    /** Starts the report of a run of {@code cost}, whose settings the headings name. */
    IsolationReport(IsolationCost cost) {
        this.cost = cost;
        for (IsolationDesign design : IsolationDesign.values()) {
            setUps.put(design, new ArrayList<>());
            memories.put(design, new ArrayList<>());
            streams.put(design, new ArrayList<>());
        }
    }

    /** Adds one round's figures of {@code design}. */
    void add(IsolationDesign design, IsolationSetUp setUp, IsolationMemory memory, double mibPerSecond) {
        setUps.get(design).add(setUp);
        memories.get(design).add(memory);
        streams.get(design).add(mibPerSecond);
    }

    /** Prints the set-up, memory and stream tables of the rounds measured on {@code device}. */
    void print(PrintStream out, String device) {
        out.println();
        out.printf(Locale.ROOT, "isolation-cost on %s (%s): median of %d rounds (min-max of the rounds)%n", device,
                cost.host.getHostAddress(), cost.rounds);
        printSetUps(out);
        out.println();
        printMemory(out);
        out.println();
        printStreams(out);
    }

    private void printSetUps(PrintStream out) {
        IsolationDesign window = IsolationDesign.WINDOW;
        IsolationDesign perPd = IsolationDesign.PD_PER_CONNECTION;
        out.printf(Locale.ROOT, "set-up, server side, us per connection (each round: the median of %d)%n",
                cost.setups);
        out.printf(ROW, "verb", window.label, perPd.label);
        List<VerbRow> verbs = List.of(new VerbRow("alloc_pd", IsolationSetUp::allocPd),
                new VerbRow("reg_mr slots " + (IsolationCost.SLOTS_BYTES >> 10) + " KiB", IsolationSetUp::regSlots),
                new VerbRow("reg_mr ring " + (IsolationCost.RING_BYTES >> 10) + " KiB", IsolationSetUp::regRing),
                new VerbRow("reg_mr send " + (IsolationCost.SEND_BYTES >> 10) + " KiB", IsolationSetUp::regSend),
                new VerbRow("create QP", IsolationSetUp::createQp), new VerbRow("alloc_mw", IsolationSetUp::allocMw),
                new VerbRow("bind (post to completion)", IsolationSetUp::bind));
        for (VerbRow verb : verbs) {
            out.printf(ROW, verb.name(), setUpCell(setUps.get(window), verb.field()),
                    setUpCell(setUps.get(perPd), verb.field()));
        }
        out.printf(ROW, "the design's verbs", window.ownVerbsLabel, perPd.ownVerbsLabel);
        out.printf(ROW, "  their sum", us(setUps.get(window), window::ownVerbs),
                us(setUps.get(perPd), perPd::ownVerbs));
        out.printf(ROW, "every verb above", us(setUps.get(window), IsolationSetUp::all),
                us(setUps.get(perPd), IsolationSetUp::all));
    }

    private void printMemory(PrintStream out) {
        out.printf(Locale.ROOT, "memory of %d connections sharing %d slabs of %d MiB (ring, slots, send buffer"
                + " each)%n", cost.connections, cost.slabs, RdmaByteBufAllocator.SLAB_SIZE >> 20);
        out.printf(ROW, "", IsolationDesign.WINDOW.label, IsolationDesign.PD_PER_CONNECTION.label);
        List<IsolationMemory> window = memories.get(IsolationDesign.WINDOW);
        List<IsolationMemory> perPd = memories.get(IsolationDesign.PD_PER_CONNECTION);
        out.printf(ROW, "MRs (rdma resource show)", count(window, IsolationMemory::memoryRegions),
                count(perPd, IsolationMemory::memoryRegions));
        out.printf(ROW, "PDs (rdma resource show)", "the device's one",
                count(perPd, IsolationMemory::protectionDomains));
        out.printf(ROW, "memory windows", count(window, IsolationMemory::windows),
                count(perPd, IsolationMemory::windows));
        out.printf(ROW, "registered MiB (sum of MR lengths)", count(window, m -> m.registeredBytes() >> 20),
                count(perPd, m -> m.registeredBytes() >> 20));
        out.printf(ROW, "pinned MiB (VmPin)", spread(values(window, m -> m.pinnedKib() / 1024.0), "%.0f"),
                spread(values(perPd, m -> m.pinnedKib() / 1024.0), "%.0f"));
        out.printf(ROW, "kernel slab KiB (SUnreclaim)", spread(values(window, IsolationMemory::kernelSlabKib), "%.0f"),
                spread(values(perPd, IsolationMemory::kernelSlabKib), "%.0f"));
        out.printf(ROW, "slab reg_mr ms",
                "once " + spread(values(window, IsolationMemory::slabRegistrationMillis), "%.1f"),
                "per conn. " + spread(values(perPd, IsolationMemory::slabRegistrationMillis), "%.1f"));
    }

    private void printStreams(PrintStream out) {
        out.printf(Locale.ROOT, "stream: %d KiB RDMA Writes with immediate, %d in flight, one every %d signaled,"
                + " %.1f s per round, MB/s (2^20 B)%n", IsolationCost.MESSAGE_BYTES >> 10, IsolationCost.IN_FLIGHT,
                IsolationCost.SIGNAL_INTERVAL, cost.measureNanos / 1e9);
        out.printf(ROW, "rkey the writer uses", "the window's", "the ring MR's");
        double[] throughWindow = values(streams.get(IsolationDesign.WINDOW), Double::doubleValue);
        double[] throughMr = values(streams.get(IsolationDesign.PD_PER_CONNECTION), Double::doubleValue);
        out.printf(ROW, "MB/s", spread(throughWindow, "%.1f"), spread(throughMr, "%.1f"));
        // Both streams of a round ran back to back, under the same load of the host: their ratio is steadier.
        double[] ratios = new double[throughWindow.length];
        for (int i = 0; i < ratios.length; i++) {
            ratios[i] = throughWindow[i] / throughMr[i];
        }
        out.printf(ROW, "window / MR, round by round", spread(ratios, "%.2f"), "");
    }

    /** Returns the median of {@code values}: the middle one, or the mean of the two in the middle. */
    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    /** Returns "median (min-max)" of {@code values} in {@code format}. */
    static String spread(double[] values, String format) {
        double min = Arrays.stream(values).min().orElse(Double.NaN);
        double max = Arrays.stream(values).max().orElse(Double.NaN);
        return String.format(Locale.ROOT, format + " (" + format + "-" + format + ")", median(values), min, max);
    }

    /** A row of the set-up table: a verb and where an {@link IsolationSetUp} has its time. */
    private record VerbRow(String name, ToDoubleFunction<IsolationSetUp> field) {
    }

    private static String setUpCell(List<IsolationSetUp> rounds, ToDoubleFunction<IsolationSetUp> field) {
        double[] values = values(rounds, field);
        return Arrays.stream(values).allMatch(v -> v == 0) ? "-" : spread(Arrays.stream(values).map(v -> v / 1e3)
                .toArray(), "%.0f");
    }

    private static String us(List<IsolationSetUp> rounds, ToDoubleFunction<IsolationSetUp> field) {
        return spread(Arrays.stream(values(rounds, field)).map(v -> v / 1e3).toArray(), "%.0f");
    }

    static <T> double[] values(List<T> rounds, ToDoubleFunction<T> field) {
        return rounds.stream().mapToDouble(field).toArray();
    }

    /** A count the same in every round, or its spread where the rounds disagree. */
    private static String count(List<IsolationMemory> rounds, ToDoubleFunction<IsolationMemory> field) {
        double[] values = values(rounds, field);
        return Arrays.stream(values).distinct().count() == 1 ? String.format(Locale.ROOT, "%.0f", values[0])
                : spread(values, "%.0f");
    }
}
