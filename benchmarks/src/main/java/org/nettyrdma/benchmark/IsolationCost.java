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
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

import com.ibm.disni.util.MemoryUtils;
import org.nettyrdma.channel.rdma.RdmaByteBufAllocator;
import org.nettyrdma.channel.rdma.internal.NativeLibrary;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.example.ExampleOptions;

/**
 * What it costs to keep each connection's receive ring out of the other connections' reach, on raw verbs,
 * for the two designs that do it:
 * <ol>
 *   <li><b>window</b>: one PD per device, as today; the ring is registered {@code LOCAL_WRITE | MW_BIND},
 *       without remote access, and a type-2 memory window bound to the connection's QP is the only way
 *       in, for that QP's peer only;</li>
 *   <li><b>PD per connection</b>: the connection's ring, receive slots and send buffer are registered in
 *       a PD of its own, and so must be every slab of the shared send pool ({@link RdmaByteBufAllocator},
 *       {@value RdmaByteBufAllocator#SLAB_SIZE}-byte slabs) that the connection sends from.</li>
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
 * ({@link JitWarmUp}). Prints every figure as the median of the rounds with their minimum and maximum
 * ({@link IsolationReport}).
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
    /** How long a verb, a connection or a stream may go without progress before the run fails. */
    static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(20);

    private static final String USAGE = "usage: IsolationCost [--host ADDRESS] [--connections N, default 16]"
            + " [--slabs N, default 8] [--setups N, default 8] [--rounds N >= 3, default 3]"
            + " [--warmup SECONDS, default 2] [--time SECONDS, default 3]";
    private static final double MIB = 1 << 20;
    private static final String DISNI_LOG_LEVEL = "org.slf4j.simpleLogger.log.com.ibm.disni";

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
        Watchdog.start("isolation-cost", benchmark.deadlineSeconds());
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
        IsolationReport report = new IsolationReport(this);
        ByteBuffer slabMemory = RdmaNative.allocateMemory(slabs * RdmaByteBufAllocator.SLAB_SIZE);
        try (IsolationServer server = IsolationServer.listen(host)) {
            out.println("warm-up: a stream of each design per round");
            JitWarmUp.untilQuiet(() -> {
                for (IsolationDesign design : IsolationDesign.values()) {
                    try (IsolationLink link = IsolationLink.connect(server, design)) {
                        link.stream(warmupNanos);
                    }
                }
            }, out);
            for (int round = 1; round <= rounds; round++) {
                for (IsolationDesign design : IsolationDesign.order(round)) {
                    IsolationSetUp setUp = medianSetUp(server, design);
                    IsolationMemory memory = IsolationMemory.measure(server, design, connections, slabMemory, slabs);
                    double mibPerSecond;
                    try (IsolationLink link = IsolationLink.connect(server, design)) {
                        mibPerSecond = link.stream(measureNanos) / MIB / (measureNanos / 1e9);
                    }
                    report.add(design, setUp, memory, mibPerSecond);
                    out.printf(Locale.ROOT, "round %d %s: set-up %.0f us (design's verbs %.0f us), %d MRs, stream"
                                    + " %.1f MB/s%n", round, design.label, setUp.all() / 1e3,
                            design.ownVerbs(setUp) / 1e3, memory.memoryRegions(), mibPerSecond);
                }
            }
            report.print(out, server.deviceName);
        } finally {
            RdmaNative.freeMemory(MemoryUtils.getAddress(slabMemory));
        }
    }

    /** Sets up {@link #setups} connections of {@code design}, then closes them; returns the median of each verb. */
    private IsolationSetUp medianSetUp(IsolationServer server, IsolationDesign design) throws IOException {
        List<IsolationLink> links = new ArrayList<>();
        try {
            for (int i = 0; i < setups; i++) {
                links.add(IsolationLink.connect(server, design));
            }
        } finally {
            closeAll(links);
        }
        List<IsolationSetUp> all = links.stream().map(link -> link.target.setUp).toList();
        return new IsolationSetUp(median(all, IsolationSetUp::allocPd), median(all, IsolationSetUp::regSlots),
                median(all, IsolationSetUp::regRing), median(all, IsolationSetUp::regSend),
                median(all, IsolationSetUp::createQp), median(all, IsolationSetUp::allocMw),
                median(all, IsolationSetUp::bind));
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
        return (long) IsolationReport.median(IsolationReport.values(values, field));
    }
}
