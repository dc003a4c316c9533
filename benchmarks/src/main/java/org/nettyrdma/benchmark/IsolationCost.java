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

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToDoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCPostRecv;
import com.ibm.disni.verbs.SVCPostSend;
import com.ibm.disni.verbs.impl.NatObject;
import org.nettyrdma.channel.rdma.internal.NativeLibrary;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.channel.rdma.internal.RdmaProtocol;
import org.nettyrdma.channel.rdma.internal.RegisteredMemoryPool;
import org.nettyrdma.example.ExampleOptions;

/**
 * What it costs to keep each connection's receive ring out of the other connections' reach, on raw verbs,
 * for the two designs that do it:
 * <ol>
 *   <li><b>window</b>: one PD per device, as today; the ring is registered {@code LOCAL_WRITE | MW_BIND},
 *       without remote access, and a type-2 memory window bound to the connection's QP is the only way
 *       in, for that QP's peer only;</li>
 *   <li><b>PD per connection</b>: the connection's ring, receive slots and send buffer are registered in
 *       a PD of its own, and so must be every slab of the shared send pool ({@link RegisteredMemoryPool},
 *       {@value RegisteredMemoryPool#SLAB_SIZE}-byte slabs) that the connection sends from.</li>
 * </ol>
 *
 * <p>One process is both ends, over RDMA CM on {@code --host}. Each of {@code --rounds} rounds (at least
 * 3) measures both designs, in alternating order, three ways:
 * <ul>
 *   <li>set-up: {@code --setups} connections, the server side of each timed verb by verb (the PD, the
 *       three registrations of the transport's default sizes, the QP; the window's allocation and its bind
 *       from post to completion); the round's figure is the median connection;</li>
 *   <li>memory: {@code --connections} connections' registrations sharing {@code --slabs} slabs, counted
 *       by the kernel ({@code rdma resource show}: MRs and PDs; memory windows are not counted there), by
 *       the pinned-memory account ({@code VmPin}) and the kernel's unreclaimable slab memory
 *       ({@code SUnreclaim}), and the time the slab registrations take;</li>
 *   <li>stream: one connection of each design writing 64 KiB RDMA Writes with immediate into its ring, as
 *       many in flight as the 1 MiB ring holds, for {@code --time} seconds, through the window's rkey
 *       or through the ring MR's own. One thread drives both ends (posting writes, reposting the
 *       receives they take), so the two streams differ only in the rkey the target checks.</li>
 * </ul>
 * Before the rounds, both streams run in {@code --warmup}-second rounds until the JIT compiler is quiet
 * ({@link JitWarmUp}). Prints every figure as the median of the rounds with their minimum and maximum.
 *
 * <pre>
 * java ... org.nettyrdma.benchmark.IsolationCost --host 10.77.0.1 --rounds 5
 * </pre>
 */
public final class IsolationCost {

    /** The transport's default receive slots: 64 of 8 KiB ({@code RdmaSocketChannelConfig}). */
    static final int SLOTS_BYTES = 64 * 8192;
    /** The transport's default receive ring and send buffer, 1 MiB each. */
    static final int RING_BYTES = 1 << 20;
    static final int SEND_BYTES = 1 << 20;
    static final int MESSAGE_BYTES = 64 * 1024;
    /** Writes in flight at most: as many as the ring holds. */
    static final int IN_FLIGHT = RING_BYTES / MESSAGE_BYTES;
    /** One write in this many asks for a completion, which frees the send queue entries before it. */
    static final int SIGNAL_INTERVAL = 4;
    /** Receives the stream's target keeps posted: each write with immediate takes one. */
    static final int STREAM_RECEIVES = 2 * IN_FLIGHT;

    private static final String USAGE = "usage: IsolationCost [--host ADDRESS] [--connections N, default 16]"
            + " [--slabs N, default 8] [--setups N, default 8] [--rounds N >= 3, default 3]"
            + " [--warmup SECONDS, default 2] [--time SECONDS, default 3]";
    private static final double MIB = 1 << 20;
    private static final String DISNI_LOG_LEVEL = "org.slf4j.simpleLogger.log.com.ibm.disni";
    private static final int WRITER_SEND_DEPTH = 128;
    private static final int SERVER_SEND_DEPTH = 128;
    private static final int SERVER_RECEIVE_DEPTH = 64;
    private static final int CQ_ENTRIES = 8192;
    private static final long BIND_WR_ID = -2;
    private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(20);
    private static final int WC_SUCCESS = IbvWC.IbvWcStatus.IBV_WC_SUCCESS.ordinal();
    private static final int WC_BIND_MW = IbvWC.IbvWcOpcode.IBV_WC_BIND_MW.getOpcode();
    private static final Pattern KERNEL_COUNT = Pattern.compile("\\b(pd|mr) (\\d+)");

    /** The two designs, in the order the tables show them. */
    enum Design {
        WINDOW("(i) window", "3 reg_mr + alloc_mw + bind"),
        PD_PER_CONNECTION("(ii) PD per connection", "alloc_pd + 3 reg_mr + create QP");

        final String label;
        final String ownVerbs;

        Design(String label, String ownVerbs) {
            this.label = label;
            this.ownVerbs = ownVerbs;
        }
    }

    /** The server side's verbs of one connection's set-up, in nanoseconds; 0 where the design has none. */
    record SetUp(long allocPd, long regSlots, long regRing, long regSend, long createQp, long allocMw, long bind) {
        long registrations() {
            return regSlots + regRing + regSend;
        }

        /** The verbs that differ between the designs, as {@link Design#ownVerbs} names them. */
        long designVerbs(Design design) {
            return design == Design.WINDOW ? registrations() + allocMw + bind : allocPd + registrations() + createQp;
        }

        long all() {
            return allocPd + registrations() + createQp + allocMw + bind;
        }
    }

    /** What {@code connections} connections sharing {@code slabs} slabs hold, as one round measured it. */
    record Memory(int memoryRegions, int protectionDomains, int windows, long registeredBytes, long pinnedKib,
                  long kernelSlabKib, double slabRegistrationMillis) {
    }

    final InetAddress host;
    final int connections;
    final int slabs;
    final int setups;
    final int rounds;
    final long warmupNanos;
    final long measureNanos;

    /**
     * Makes the benchmark on {@code host}: memory for {@code connections} connections sharing {@code slabs}
     * slabs, {@code setups} timed connection set-ups per design and round, {@code rounds} rounds (at least
     * 3), and the seconds of each warm-up round and of each measured stream.
     */
    public IsolationCost(InetAddress host, int connections, int slabs, int setups, int rounds, double warmupSeconds,
                         double measureSeconds) {
        if (connections < 1 || slabs < 1 || setups < 1) {
            throw new IllegalArgumentException("connections, slabs, setups: " + connections + ", " + slabs + ", "
                    + setups + " (expected: >= 1 each)");
        }
        if (rounds < 3) {
            throw new IllegalArgumentException("rounds: " + rounds + " (expected: >= 3)");
        }
        if (!(warmupSeconds > 0) || !(measureSeconds > 0)) {
            throw new IllegalArgumentException("warmup, time: " + warmupSeconds + ", " + measureSeconds
                    + " (expected: > 0 each)");
        }
        this.host = host;
        this.connections = connections;
        this.slabs = slabs;
        this.setups = setups;
        this.rounds = rounds;
        this.warmupNanos = (long) (warmupSeconds * 1e9);
        this.measureNanos = (long) (measureSeconds * 1e9);
    }

    /** Makes the benchmark from the command line's options; a mistake is an {@link IllegalArgumentException}. */
    static IsolationCost fromOptions(ExampleOptions options) throws IOException {
        String address = options.host();
        int connections = options.integer("connections", 16);
        int slabs = options.integer("slabs", 8);
        int setups = options.integer("setups", 8);
        int rounds = options.integer("rounds", 3);
        double warmup = options.seconds("warmup", 2);
        double time = options.seconds("time", 3);
        options.checkAllRead();
        return new IsolationCost(InetAddress.getByName(address), connections, slabs, setups, rounds, warmup, time);
    }

    /** Runs the benchmark; exits with status 1 if it failed, 2 on a bad argument, 3 if the deadline passed. */
    public static void main(String[] args) throws Exception {
        // DiSNI logs every allocPd and createQP at INFO: inside the timed set-up, that would be measured too.
        // Before DiSNI's first class loads, which reads it; a -D on the command line wins.
        if (System.getProperty(DISNI_LOG_LEVEL) == null) {
            System.setProperty(DISNI_LOG_LEVEL, "warn");
        }
        ExampleOptions options = ExampleOptions.parse(USAGE, args);
        IsolationCost benchmark;
        try {
            benchmark = fromOptions(options);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage() + '\n' + USAGE);
            System.exit(2);
            return;
        }
        NativeLibrary.ensureLoaded();
        TransportBenchmark.startWatchdog("isolation-cost", benchmark.deadlineSeconds());
        int status = 0;
        try {
            benchmark.run(System.out);
        } catch (IOException | RuntimeException e) {
            System.out.println("isolation-cost error: " + TransportBenchmark.describe(e));
            status = 1;
        }
        // exit(), not a return: a thread stuck in a verb must not keep the program alive.
        System.exit(status);
    }

    /** Returns the seconds after which a run must have finished, whatever went wrong in it. */
    long deadlineSeconds() {
        long stream = TimeUnit.NANOSECONDS.toSeconds(2 * (JitWarmUp.MAX_ROUNDS * warmupNanos + rounds * measureNanos));
        long perRound = 2L * (setups + 1) * 10 + connections * (long) slabs + 60;
        return 120 + stream + rounds * perRound;
    }

    /** Measures every round and prints the tables. */
    public void run(PrintStream out) throws IOException, InterruptedException {
        out.printf(Locale.ROOT, "isolation-env host=%s java=%s cpus=%d connections=%d slabs=%d setups=%d rounds=%d"
                        + " warmup_s=%.1f time_s=%.1f%n", host.getHostAddress(), System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors(), connections, slabs, setups, rounds, warmupNanos / 1e9,
                measureNanos / 1e9);
        Map<Design, List<SetUp>> setUpRounds = new EnumMap<>(Design.class);
        Map<Design, List<Memory>> memoryRounds = new EnumMap<>(Design.class);
        Map<Design, List<Double>> streamRounds = new EnumMap<>(Design.class);
        for (Design design : Design.values()) {
            setUpRounds.put(design, new ArrayList<>());
            memoryRounds.put(design, new ArrayList<>());
            streamRounds.put(design, new ArrayList<>());
        }
        ByteBuffer slabMemory = RdmaNative.allocateMemory(slabs * RegisteredMemoryPool.SLAB_SIZE);
        try (Server server = Server.listen(host)) {
            out.println("warm-up: a stream of each design per round");
            JitWarmUp.untilQuiet(() -> {
                for (Design design : Design.values()) {
                    try (Link link = Link.connect(server, design)) {
                        link.stream(warmupNanos);
                    }
                }
            }, out);
            for (int round = 1; round <= rounds; round++) {
                Design[] order = round % 2 == 1 ? Design.values()
                        : new Design[] {Design.PD_PER_CONNECTION, Design.WINDOW};
                for (Design design : order) {
                    SetUp setUp = medianSetUp(server, design);
                    Memory memory = server.memory(design, connections, slabMemory, slabs);
                    double mibPerSecond;
                    try (Link link = Link.connect(server, design)) {
                        mibPerSecond = link.stream(measureNanos) / MIB / (measureNanos / 1e9);
                    }
                    setUpRounds.get(design).add(setUp);
                    memoryRounds.get(design).add(memory);
                    streamRounds.get(design).add(mibPerSecond);
                    out.printf(Locale.ROOT, "round %d %s: set-up %.0f us (design's verbs %.0f us), %d MRs, stream"
                                    + " %.1f MB/s%n", round, design.label, setUp.all() / 1e3,
                            setUp.designVerbs(design) / 1e3, memory.memoryRegions(), mibPerSecond);
                }
            }
            printTables(out, server.deviceName, setUpRounds, memoryRounds, streamRounds);
        } finally {
            RdmaNative.freeMemory(MemoryUtils.getAddress(slabMemory));
        }
    }

    /** Sets up {@link #setups} connections of {@code design}, then closes them; returns the median of each verb. */
    private SetUp medianSetUp(Server server, Design design) throws IOException {
        List<Link> links = new ArrayList<>();
        try {
            for (int i = 0; i < setups; i++) {
                links.add(Link.connect(server, design));
            }
        } finally {
            closeAll(links);
        }
        List<SetUp> all = links.stream().map(link -> link.target.setUp).toList();
        return new SetUp(median(all, SetUp::allocPd), median(all, SetUp::regSlots), median(all, SetUp::regRing),
                median(all, SetUp::regSend), median(all, SetUp::createQp), median(all, SetUp::allocMw),
                median(all, SetUp::bind));
    }

    private static void closeAll(List<? extends AutoCloseable> resources) throws IOException {
        IOException failure = null;
        for (AutoCloseable resource : resources) {
            try {
                resource.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = e instanceof IOException io ? io : new IOException(e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private static <T> long median(List<T> values, ToDoubleFunction<T> field) {
        return (long) median(values.stream().mapToDouble(field).toArray());
    }

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

    private void printTables(PrintStream out, String device, Map<Design, List<SetUp>> setUps,
                             Map<Design, List<Memory>> memories, Map<Design, List<Double>> streams) {
        String row = "%-34s | %-26s | %-26s%n";
        out.println();
        out.printf(Locale.ROOT, "isolation-cost on %s (%s): median of %d rounds (min-max of the rounds)%n", device,
                host.getHostAddress(), rounds);
        out.printf(Locale.ROOT, "set-up, server side, us per connection (each round: the median of %d)%n", setups);
        out.printf(row, "verb", Design.WINDOW.label, Design.PD_PER_CONNECTION.label);
        List<VerbRow> verbs = List.of(new VerbRow("alloc_pd", SetUp::allocPd),
                new VerbRow("reg_mr slots " + (SLOTS_BYTES >> 10) + " KiB", SetUp::regSlots),
                new VerbRow("reg_mr ring " + (RING_BYTES >> 10) + " KiB", SetUp::regRing),
                new VerbRow("reg_mr send " + (SEND_BYTES >> 10) + " KiB", SetUp::regSend),
                new VerbRow("create QP", SetUp::createQp), new VerbRow("alloc_mw", SetUp::allocMw),
                new VerbRow("bind (post to completion)", SetUp::bind));
        for (VerbRow verb : verbs) {
            out.printf(row, verb.name(), setUpCell(setUps.get(Design.WINDOW), verb.field()),
                    setUpCell(setUps.get(Design.PD_PER_CONNECTION), verb.field()));
        }
        out.printf(row, "the design's verbs", Design.WINDOW.ownVerbs, Design.PD_PER_CONNECTION.ownVerbs);
        out.printf(row, "  their sum", us(setUps.get(Design.WINDOW), s -> s.designVerbs(Design.WINDOW)),
                us(setUps.get(Design.PD_PER_CONNECTION), s -> s.designVerbs(Design.PD_PER_CONNECTION)));
        out.printf(row, "every verb above", us(setUps.get(Design.WINDOW), SetUp::all),
                us(setUps.get(Design.PD_PER_CONNECTION), SetUp::all));

        out.println();
        out.printf(Locale.ROOT, "memory of %d connections sharing %d slabs of %d MiB (ring, slots, send buffer"
                + " each)%n", connections, slabs, RegisteredMemoryPool.SLAB_SIZE >> 20);
        out.printf(row, "", Design.WINDOW.label, Design.PD_PER_CONNECTION.label);
        List<Memory> window = memories.get(Design.WINDOW);
        List<Memory> perPd = memories.get(Design.PD_PER_CONNECTION);
        out.printf(row, "MRs (rdma resource show)", count(window, Memory::memoryRegions),
                count(perPd, Memory::memoryRegions));
        out.printf(row, "PDs (rdma resource show)", "the device's one", count(perPd, Memory::protectionDomains));
        out.printf(row, "memory windows", count(window, Memory::windows), count(perPd, Memory::windows));
        out.printf(row, "registered MiB (sum of MR lengths)", count(window, m -> m.registeredBytes() >> 20),
                count(perPd, m -> m.registeredBytes() >> 20));
        out.printf(row, "pinned MiB (VmPin)", spread(values(window, m -> m.pinnedKib() / 1024.0), "%.0f"),
                spread(values(perPd, m -> m.pinnedKib() / 1024.0), "%.0f"));
        out.printf(row, "kernel slab KiB (SUnreclaim)", spread(values(window, Memory::kernelSlabKib), "%.0f"),
                spread(values(perPd, Memory::kernelSlabKib), "%.0f"));
        out.printf(row, "slab reg_mr ms", "once " + spread(values(window, Memory::slabRegistrationMillis), "%.1f"),
                "per conn. " + spread(values(perPd, Memory::slabRegistrationMillis), "%.1f"));

        out.println();
        out.printf(Locale.ROOT, "stream: %d KiB RDMA Writes with immediate, %d in flight, one every %d signaled,"
                + " %.1f s per round, MB/s (2^20 B)%n", MESSAGE_BYTES >> 10, IN_FLIGHT, SIGNAL_INTERVAL,
                measureNanos / 1e9);
        out.printf(row, "rkey the writer uses", "the window's", "the ring MR's");
        double[] throughWindow = streams.get(Design.WINDOW).stream().mapToDouble(Double::doubleValue).toArray();
        double[] throughMr = streams.get(Design.PD_PER_CONNECTION).stream().mapToDouble(Double::doubleValue)
                .toArray();
        out.printf(row, "MB/s", spread(throughWindow, "%.1f"), spread(throughMr, "%.1f"));
        // Both streams of a round ran back to back, under the same load of the host: their ratio is steadier.
        double[] ratios = new double[throughWindow.length];
        for (int i = 0; i < ratios.length; i++) {
            ratios[i] = throughWindow[i] / throughMr[i];
        }
        out.printf(row, "window / MR, round by round", spread(ratios, "%.2f"), "");
    }

    /** A row of the set-up table: a verb and where a {@link SetUp} has its time. */
    private record VerbRow(String name, ToDoubleFunction<SetUp> field) {
    }

    private static String setUpCell(List<SetUp> rounds, ToDoubleFunction<SetUp> field) {
        double[] values = values(rounds, field);
        return Arrays.stream(values).allMatch(v -> v == 0) ? "-" : spread(Arrays.stream(values).map(v -> v / 1e3)
                .toArray(), "%.0f");
    }

    private static String us(List<SetUp> rounds, ToDoubleFunction<SetUp> field) {
        return spread(Arrays.stream(values(rounds, field)).map(v -> v / 1e3).toArray(), "%.0f");
    }

    private static <T> double[] values(List<T> rounds, ToDoubleFunction<T> field) {
        return rounds.stream().mapToDouble(field).toArray();
    }

    /** A count the same in every round, or its spread where the rounds disagree. */
    private static String count(List<Memory> rounds, ToDoubleFunction<Memory> field) {
        double[] values = values(rounds, field);
        return Arrays.stream(values).distinct().count() == 1 ? String.format(Locale.ROOT, "%.0f", values[0])
                : spread(values, "%.0f");
    }

    /**
     * The passive side of every connection: a listening id on {@code host}, the shared PD (design (i)'s
     * only one), and one completion channel and CQ for every connection's QP, as the transport has one
     * CQ per event loop. All on the calling thread.
     */
    private static final class Server implements AutoCloseable {
        final RdmaEventChannel cmChannel;
        final RdmaCmId listenId;
        final IbvContext context;
        final String deviceName;
        final IbvPd sharedPd;
        final IbvCompChannel completionChannel;
        final IbvCQ cq;
        private final IbvWC[] completions = new IbvWC[VerbsQueuePair.POLL_BATCH];
        private final SVCPollCq poll;

        private Server(RdmaEventChannel cmChannel, RdmaCmId listenId) throws IOException {
            this.cmChannel = cmChannel;
            this.listenId = listenId;
            context = listenId.getVerbs();
            deviceName = RdmaNative.deviceName(handle(context));
            sharedPd = context.allocPd();
            completionChannel = context.createCompChannel();
            cq = context.createCQ(completionChannel, CQ_ENTRIES, 0);
            for (int i = 0; i < completions.length; i++) {
                completions[i] = new IbvWC();
            }
            poll = cq.poll(completions, completions.length);
        }

        static Server listen(InetAddress host) throws IOException {
            RdmaEventChannel cmChannel = RdmaEventChannel.createEventChannel();
            RdmaCmId id = cmChannel.createId(RdmaCm.RDMA_PS_TCP);
            id.bindAddr(new InetSocketAddress(host, 0));
            id.listen(8);
            return new Server(cmChannel, id);
        }

        InetSocketAddress address() throws IOException {
            return (InetSocketAddress) listenId.getSource();
        }

        /** Polls the shared CQ once; returns how many completions {@link #completion(int)} holds. */
        int poll() throws IOException {
            return poll.execute().getPolls();
        }

        /**
         * Polls until {@code count} flushed work requests arrived: a disconnected QP flushes its receives
         * into the shared CQ, where the next connection's poll must not find them. They are counted, not
         * matched by QP number: DiSNI's poll copies the QP number (and all but the work request id,
         * status and opcode) only from successful completions, so an error's is a previous one's.
         */
        void drain(int count) throws IOException {
            long deadline = System.nanoTime() + STALL_NANOS;
            for (int left = count; left > 0; ) {
                int polled = poll();
                for (int i = 0; i < polled; i++) {
                    IbvWC wc = completions[i];
                    if (wc.getStatus() != IbvWC.IbvWcStatus.IBV_WC_WR_FLUSH_ERR.ordinal()) {
                        throw new IOException("work request " + wc.getWr_id() + " completed with "
                                + IbvWC.IbvWcStatus.valueOf(wc.getStatus()) + " while draining a closed QP");
                    }
                    left--;
                }
                if (left > 0 && System.nanoTime() - deadline > 0) {
                    throw new IOException(left + " receives not flushed in "
                            + TimeUnit.NANOSECONDS.toSeconds(STALL_NANOS) + " s");
                }
            }
        }

        /** Returns completion {@code index} of the last poll, whatever its status. */
        IbvWC completion(int index) {
            return completions[index];
        }

        /**
         * Registers the memory of {@code connections} connections of {@code design} and the slabs they send
         * from, counts it, and frees it again.
         */
        Memory memory(Design design, int connections, ByteBuffer slabMemory, int slabs) throws IOException {
            Map<String, Integer> countsBefore = kernelCounts(deviceName);
            long pinnedBefore = procKib("/proc/self/status", "VmPin");
            long kernelSlabBefore = procKib("/proc/meminfo", "SUnreclaim");
            List<IbvPd> pds = new ArrayList<>();
            List<IbvMr> mrs = new ArrayList<>();
            List<Long> windows = new ArrayList<>();
            List<ByteBuffer> buffers = new ArrayList<>();
            double[] slabMillis = new double[design == Design.WINDOW ? 1 : connections];
            long registered = 0;
            try {
                if (design == Design.WINDOW) {
                    slabMillis[0] = registerSlabs(sharedPd, slabMemory, slabs, mrs);
                }
                for (int i = 0; i < connections; i++) {
                    IbvPd pd = sharedPd;
                    if (design == Design.PD_PER_CONNECTION) {
                        pd = context.allocPd();
                        pds.add(pd);
                        slabMillis[i] = registerSlabs(pd, slabMemory, slabs, mrs);
                    } else {
                        windows.add(RdmaNative.allocMw(handle(pd)));
                    }
                    for (int bytes : new int[] {SLOTS_BYTES, RING_BYTES, SEND_BYTES}) {
                        ByteBuffer buffer = RdmaNative.allocateMemory(bytes);
                        buffers.add(buffer);
                        mrs.add(pd.regMr(buffer, IbvMr.IBV_ACCESS_LOCAL_WRITE).execute().free().getMr());
                    }
                }
                for (IbvMr mr : mrs) {
                    registered += mr.getLength();
                }
                Map<String, Integer> counts = kernelCounts(deviceName);
                return new Memory(counts.get("mr") - countsBefore.get("mr"), counts.get("pd") - countsBefore.get("pd"),
                        windows.size(), registered,
                        procKib("/proc/self/status", "VmPin") - pinnedBefore,
                        procKib("/proc/meminfo", "SUnreclaim") - kernelSlabBefore, median(slabMillis));
            } finally {
                // Windows before the MRs under them, MRs before their PD.
                for (long window : windows) {
                    RdmaNative.deallocMw(window);
                }
                for (IbvMr mr : mrs) {
                    mr.deregMr().execute().free();
                }
                for (IbvPd pd : pds) {
                    check(deallocate(pd), "ibv_dealloc_pd");
                }
                for (ByteBuffer buffer : buffers) {
                    RdmaNative.freeMemory(MemoryUtils.getAddress(buffer));
                }
            }
        }

        /** Registers every slab in {@code pd} as the send pool does (no remote access); returns the milliseconds. */
        private static double registerSlabs(IbvPd pd, ByteBuffer slabMemory, int slabs, List<IbvMr> mrs)
                throws IOException {
            long start = System.nanoTime();
            for (int slab = 0; slab < slabs; slab++) {
                ByteBuffer memory = slabMemory.slice(slab * RegisteredMemoryPool.SLAB_SIZE,
                        RegisteredMemoryPool.SLAB_SIZE);
                mrs.add(pd.regMr(memory, 0).execute().free().getMr());
            }
            return (System.nanoTime() - start) / 1e6;
        }

        @Override
        public void close() throws IOException {
            poll.free();
            check(cq.destroyCQ(), "ibv_destroy_cq");
            check(completionChannel.destroyCompChannel(), "ibv_destroy_comp_channel");
            check(deallocate(sharedPd), "ibv_dealloc_pd");
            check(listenId.destroyId(), "rdma_destroy_id");
            check(cmChannel.destroyEventChannel(), "rdma_destroy_event_channel");
        }
    }

    /**
     * The server side of one connection of a design: its registered memory, its QP on the server's CQ,
     * and, for the window, the window bound over the ring; {@link #setUp} has the time each verb took.
     */
    private static final class Target implements AutoCloseable {
        final Design design;
        final RdmaCmId id;
        final ByteBuffer[] buffers = new ByteBuffer[3];
        final IbvMr[] mrs = new IbvMr[3];
        IbvPd pd;
        IbvQP qp;
        SVCPostRecv receive;
        long ringAddress;
        long window;
        int rkey;
        SetUp setUp;

        /**
         * Makes the registrations and the QP of {@code design} on the child id of a connect request; on a
         * failure, frees what it made, the id included.
         */
        Target(Server server, RdmaCmId id, Design design) throws IOException {
            this.design = design;
            this.id = id;
            try {
                for (int i = 0; i < buffers.length; i++) {
                    buffers[i] = RdmaNative.allocateMemory(i == 0 ? SLOTS_BYTES : i == 1 ? RING_BYTES : SEND_BYTES);
                }
                ringAddress = MemoryUtils.getAddress(buffers[1]);
                long start = System.nanoTime();
                pd = design == Design.WINDOW ? server.sharedPd : server.context.allocPd();
                long pdDone = System.nanoTime();
                mrs[0] = pd.regMr(buffers[0], IbvMr.IBV_ACCESS_LOCAL_WRITE).execute().free().getMr();
                long slotsDone = System.nanoTime();
                // The window design's ring has no remote access of its own: only a window over it does.
                mrs[1] = pd.regMr(buffers[1], IbvMr.IBV_ACCESS_LOCAL_WRITE | (design == Design.WINDOW
                        ? RdmaNative.ACCESS_MW_BIND : IbvMr.IBV_ACCESS_REMOTE_WRITE)).execute().free().getMr();
                long ringDone = System.nanoTime();
                mrs[2] = pd.regMr(buffers[2], 0).execute().free().getMr();
                long sendDone = System.nanoTime();
                IbvQPInitAttr attributes = new IbvQPInitAttr();
                attributes.setQp_type(IbvQP.IBV_QPT_RC);
                attributes.setSend_cq(server.cq);
                attributes.setRecv_cq(server.cq);
                attributes.cap().setMax_send_wr(SERVER_SEND_DEPTH);
                attributes.cap().setMax_recv_wr(SERVER_RECEIVE_DEPTH);
                attributes.cap().setMax_send_sge(1);
                attributes.cap().setMax_recv_sge(1);
                qp = id.createQP(pd, attributes);
                long qpDone = System.nanoTime();
                setUp = new SetUp(design == Design.WINDOW ? 0 : pdDone - start, slotsDone - pdDone,
                        ringDone - slotsDone, sendDone - ringDone, qpDone - sendDone, 0, 0);
                rkey = mrs[1].getRkey();
                // The writes with immediate of a stream each take a receive; their data goes to the ring.
                IbvRecvWR request = new IbvRecvWR();
                request.setSg_list(VerbsQueuePair.gather(mrs[0], 0, SLOTS_BYTES / SERVER_RECEIVE_DEPTH));
                receive = qp.postRecv(List.of(request), null);
                for (int i = 0; i < STREAM_RECEIVES; i++) {
                    receive.execute();
                }
            } catch (IOException | RuntimeException e) {
                try {
                    close();
                } catch (IOException | RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
        }

        /** Allocates the window and binds it over the whole ring on this QP, which must be connected. */
        void bindWindow(Server server) throws IOException {
            long start = System.nanoTime();
            window = RdmaNative.allocMw(handle(pd));
            long allocated = System.nanoTime();
            int current = RdmaNative.mwRkey(window);
            // ibv_inc_rkey: the low byte is the consumer's.
            int next = (current & 0xffff_ff00) | ((current + 1) & 0xff);
            RdmaNative.postBindMw(handle(qp), BIND_WR_ID, true, window, next, handle(mrs[1]), ringAddress,
                    RING_BYTES, IbvMr.IBV_ACCESS_REMOTE_WRITE);
            long deadline = start + STALL_NANOS;
            for (boolean bound = false; !bound; ) {
                int polled = server.poll();
                for (int i = 0; i < polled; i++) {
                    IbvWC wc = server.completion(i);
                    if (wc.getStatus() != WC_SUCCESS) {
                        throw new IOException("the bind failed: " + IbvWC.IbvWcStatus.valueOf(wc.getStatus()));
                    }
                    if (wc.getWr_id() != BIND_WR_ID || wc.getOpcode() != WC_BIND_MW) {
                        throw new IOException("completion " + wc.getWr_id() + " of opcode " + wc.getOpcode()
                                + " while binding (expected: the bind's)");
                    }
                    bound = true;
                }
                if (!bound && System.nanoTime() - deadline > 0) {
                    throw new IOException("the bind did not complete in " + STALL_NANOS / 1_000_000_000 + " s");
                }
            }
            long boundAt = System.nanoTime();
            rkey = next;
            setUp = new SetUp(setUp.allocPd(), setUp.regSlots(), setUp.regRing(), setUp.regSend(), setUp.createQp(),
                    allocated - start, boundAt - allocated);
        }

        /**
         * Frees everything in the order rxe needs: the window before the QP it is bound to (rxe's
         * destroy of that QP would wait for the window's reference until a timeout) and before the MR
         * under it (rxe refuses that MR's deregistration while a window is bound), MRs before their PD.
         */
        @Override
        public void close() throws IOException {
            if (receive != null) {
                receive.free();
                receive = null;
            }
            if (window != 0) {
                RdmaNative.deallocMw(window);
                window = 0;
            }
            if (qp != null) {
                qp = null;
                check(id.destroyQP(), "rdma_destroy_qp");
            }
            for (int i = 0; i < mrs.length; i++) {
                if (mrs[i] != null) {
                    mrs[i].deregMr().execute().free();
                    mrs[i] = null;
                }
            }
            if (design == Design.PD_PER_CONNECTION && pd != null) {
                check(deallocate(pd), "ibv_dealloc_pd");
            }
            pd = null;
            check(id.destroyId(), "rdma_destroy_id");
            for (int i = 0; i < buffers.length; i++) {
                if (buffers[i] != null) {
                    RdmaNative.freeMemory(MemoryUtils.getAddress(buffers[i]));
                    buffers[i] = null;
                }
            }
        }
    }

    /**
     * One connection: the writing end ({@link VerbsQueuePair}, connected on a thread of its own while this
     * one accepts) and the {@link Target} of a design; {@link #stream} drives both from the calling thread.
     */
    private static final class Link implements AutoCloseable {
        final Server server;
        final VerbsQueuePair writer;
        final Target target;
        private final SVCPostSend write;
        private final SVCPostSend.RdmaMod writeTarget;
        private final SVCPostSend signaledWrite;
        private final SVCPostSend.SendWRMod signaledRequest;
        private final SVCPostSend.RdmaMod signaledWriteTarget;

        private Link(Server server, VerbsQueuePair writer, Target target) throws IOException {
            this.server = server;
            this.writer = writer;
            this.target = target;
            ByteBuffer source = ByteBuffer.allocateDirect(MESSAGE_BYTES);
            IbvMr sourceMr = writer.register(source, IbvMr.IBV_ACCESS_LOCAL_WRITE);
            write = writer.keep(writer.qp().postSend(List.of(write(sourceMr, 0, target.rkey)), null));
            writeTarget = write.getWrMod(0).getRdmaMod();
            signaledWrite = writer.keep(writer.qp().postSend(List.of(write(sourceMr, IbvSendWR.IBV_SEND_SIGNALED,
                    target.rkey)), null));
            signaledRequest = signaledWrite.getWrMod(0);
            signaledWriteTarget = signaledRequest.getRdmaMod();
        }

        /** Connects a writer to {@code server} and sets up the target of {@code design} for it. */
        static Link connect(Server server, Design design) throws IOException {
            AtomicReference<VerbsQueuePair> connected = new AtomicReference<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            InetSocketAddress address = server.address();
            Thread connecting = new Thread(() -> {
                try {
                    VerbsQueuePair pair = VerbsQueuePair.resolve(address, WRITER_SEND_DEPTH, 1, 0,
                            VerbsQueuePair.POLL_BATCH);
                    connected.set(pair);
                    pair.connect();
                } catch (IOException | RuntimeException e) {
                    failure.set(e);
                }
            }, "isolation-cost-connect");
            connecting.setDaemon(true);
            connecting.start();
            Target target = null;
            try {
                RdmaCmEvent request = VerbsQueuePair.expect(server.cmChannel,
                        RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_REQUEST);
                target = new Target(server, request.getConnIdPriv(), design);
                RdmaNative.accept(handle(target.id), RdmaProtocol.RNR_RETRY_COUNT, 0, 0);
                VerbsQueuePair.expect(server.cmChannel, RdmaCmEvent.EventType.RDMA_CM_EVENT_ESTABLISHED);
                if (design == Design.WINDOW) {
                    target.bindWindow(server);
                }
                connecting.join(TimeUnit.NANOSECONDS.toMillis(STALL_NANOS));
                if (failure.get() != null || connecting.isAlive()) {
                    throw new IOException("the writer did not connect", failure.get());
                }
                return new Link(server, connected.get(), target);
            } catch (IOException | RuntimeException | InterruptedException e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                IOException thrown = e instanceof IOException io ? io : new IOException(e);
                if (target != null) {
                    closeQuietly(target, thrown);
                }
                if (connected.get() != null && !connecting.isAlive()) {
                    closeQuietly(connected.get(), thrown);
                }
                throw thrown;
            }
        }

        private static void closeQuietly(AutoCloseable resource, Exception cause) {
            try {
                resource.close();
            } catch (Exception e) {
                cause.addSuppressed(e);
            }
        }

        private IbvSendWR write(IbvMr source, int flags, int rkey) {
            IbvSendWR request = new IbvSendWR();
            request.setOpcode(IbvSendWR.IBV_WR_RDMA_WRITE_WITH_IMM);
            request.setSend_flags(flags);
            request.setSg_list(VerbsQueuePair.gather(source, 0, MESSAGE_BYTES));
            request.getRdma().setRemote_addr(target.ringAddress);
            request.getRdma().setRkey(rkey);
            return request;
        }

        /**
         * Streams for {@code nanos}, then until every write has completed and every receive is posted
         * again; returns the bytes that arrived in the ring.
         */
        long stream(long nanos) throws IOException {
            long posted = 0;
            long completed = 0;
            long reposted = 0;
            long start = System.nanoTime();
            long lastProgress = start;
            boolean posting = true;
            while (posting || completed < posted || reposted < posted) {
                long now = System.nanoTime();
                // Stop at a signaled write, whose completion covers the unsignaled ones before it.
                if (posting && now - start > nanos && posted % SIGNAL_INTERVAL == 0) {
                    posting = false;
                }
                while (posting && posted - completed < IN_FLIGHT && posted - reposted < STREAM_RECEIVES) {
                    long remote = target.ringAddress + (posted % IN_FLIGHT) * MESSAGE_BYTES;
                    if (posted % SIGNAL_INTERVAL == SIGNAL_INTERVAL - 1) {
                        signaledRequest.setWr_id(posted);
                        signaledWriteTarget.setRemote_addr(remote);
                        signaledWrite.execute();
                    } else {
                        writeTarget.setRemote_addr(remote);
                        write.execute();
                    }
                    posted++;
                }
                boolean progressed = false;
                int polled = writer.poll();
                for (int i = 0; i < polled; i++) {
                    completed = writer.completion(i).getWr_id() + 1;
                    progressed = true;
                }
                polled = server.poll();
                for (int i = 0; i < polled; i++) {
                    IbvWC wc = server.completion(i);
                    if (wc.getStatus() != WC_SUCCESS || wc.getOpcode() != VerbsQueuePair.WC_RECV_RDMA_WITH_IMM) {
                        throw new IOException("the target's completion: " + IbvWC.IbvWcStatus.valueOf(wc.getStatus())
                                + ", opcode " + wc.getOpcode() + " (expected: a write with immediate received)");
                    }
                    target.receive.execute();
                    reposted++;
                    progressed = true;
                }
                if (progressed) {
                    lastProgress = now;
                } else if (now - lastProgress > STALL_NANOS) {
                    throw new IOException("the stream stalled: " + posted + " writes posted, " + completed
                            + " completed, " + reposted + " received");
                }
            }
            return reposted * MESSAGE_BYTES;
        }

        /** The target disconnects first; the writer's close answers it; then the target frees its side. */
        @Override
        public void close() throws IOException {
            IOException failure = null;
            try {
                target.id.disconnect();
                writer.close();
                VerbsQueuePair.expect(server.cmChannel, RdmaCmEvent.EventType.RDMA_CM_EVENT_DISCONNECTED);
                // Every receive is posted again after each write, so all of them are flushed.
                server.drain(STREAM_RECEIVES);
            } catch (IOException e) {
                failure = e;
            }
            try {
                target.close();
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
            if (failure != null) {
                throw failure;
            }
        }
    }

    /** The kernel's MR and PD counts of {@code device} ({@code rdma resource show}). */
    static Map<String, Integer> kernelCounts(String device) throws IOException {
        Process process = new ProcessBuilder("rdma", "resource", "show", device).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        try {
            if (process.waitFor() != 0) {
                throw new IOException("rdma resource show " + device + ": " + output.trim());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        return parseCounts(output);
    }

    /** Reads "pd N ... mr N" from the first line of {@code rdma resource show}'s output. */
    static Map<String, Integer> parseCounts(String output) throws IOException {
        Map<String, Integer> counts = new HashMap<>();
        Matcher matcher = KERNEL_COUNT.matcher(output.lines().findFirst().orElse(""));
        while (matcher.find()) {
            counts.put(matcher.group(1), Integer.valueOf(matcher.group(2)));
        }
        if (!counts.containsKey("pd") || !counts.containsKey("mr")) {
            throw new IOException("no pd and mr counts in: " + output.trim());
        }
        return counts;
    }

    /** Returns the value in kB of the line {@code name:} of a {@code /proc} file. */
    private static long procKib(String file, String name) throws IOException {
        for (String line : Files.readAllLines(Path.of(file), StandardCharsets.US_ASCII)) {
            if (line.startsWith(name + ':')) {
                return Long.parseLong(line.substring(name.length() + 1).replace("kB", "").trim());
            }
        }
        throw new IOException(file + " has no " + name);
    }

    private static long handle(Object disniObject) {
        return ((NatObject) disniObject).getObjId();
    }

    /** DiSNI's deallocPd declares Exception; the verbs' failures here are IOExceptions. */
    private static int deallocate(IbvPd pd) throws IOException {
        try {
            return pd.deallocPd();
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("ibv_dealloc_pd failed", e);
        }
    }

    private static void check(int result, String verb) throws IOException {
        if (result != 0) {
            throw new IOException(verb + " failed: " + result);
        }
    }
}
