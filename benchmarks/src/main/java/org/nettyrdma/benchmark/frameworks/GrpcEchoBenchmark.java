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

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.netty.util.ResourceLeakDetector;
import org.HdrHistogram.Histogram;
import org.nettyrdma.benchmark.JitWarmUp;
import org.nettyrdma.example.ExampleOptions;
import org.nettyrdma.example.Transport;

/**
 * The gRPC example's echo service over RDMA and over epoll side by side, in one process: gRPC-java's
 * Netty server and channel on an event loop each, as a user would run them, only the transport
 * switched. Two phases per transport, each on a new server and channel:
 * <ul>
 *   <li><b>unary round trip</b>: echo calls of the smallest of {@code --sizes} one after another;
 *       p50 and p99 of the time from a call's start to its answer;</li>
 *   <li><b>stream</b>: one bidirectional stream with {@code --window} messages of the largest of
 *       {@code --sizes} in flight; MiB/s that came back.</li>
 * </ul>
 * Warm-up rounds of every phase of every transport run first, until the JIT compiler was nearly idle
 * through one ({@link JitWarmUp}), and are not counted. Then the measured rounds: in each, every
 * transport in turn, so that a drift of the host's load falls on all of them; in a round each phase
 * first runs for one settling second, then is measured for {@code --time} seconds. Prints each round,
 * a table of medians with their spread and one {@code framework grpc ...} line
 * ({@link GrpcEchoReport}). docs/grpc.md has the figures of one run and how to repeat it.
 *
 * <pre>
 * java ... org.nettyrdma.benchmark.frameworks.GrpcEchoBenchmark --host 10.77.0.1 --rounds 3
 * </pre>
 */
public final class GrpcEchoBenchmark {

    private static final String USAGE = "usage: GrpcEchoBenchmark [--host ADDRESS] [--transports rdma,epoll] "
            + "[--rounds 3 (at least 3 for a median)] [--sizes 64,1m: unary round trip at the smallest, stream at "
            + "the largest] [--window 2 messages in flight on the stream] [--warmup SECONDS per phase, default 2] "
            + "[--time SECONDS per phase, default 3] [--allocator grpc|netty|registered, default grpc]";
    private static final long SETTLE_MILLIS = 1000;
    private static final double MIB = 1 << 20;

    private final String host;
    private final byte[] unaryMessage;
    private final byte[] streamMessage;
    private final int window;
    private final GrpcEchoRig.Allocator allocator;

    private GrpcEchoBenchmark(String host, int unaryBytes, int streamBytes, int window, GrpcEchoRig.Allocator allocator) {
        this.host = host;
        Random random = new Random(1);
        this.unaryMessage = new byte[unaryBytes];
        this.streamMessage = new byte[streamBytes];
        random.nextBytes(unaryMessage);
        random.nextBytes(streamMessage);
        this.window = window;
        this.allocator = allocator;
    }

    /** Runs the rounds and prints the report; exits with status 1 if a phase failed. */
    public static void main(String[] args) throws Exception {
        ExampleOptions options = ExampleOptions.parse(USAGE, args);
        String host = options.host();
        List<Transport> transports = options.transports("rdma,epoll");
        int rounds = options.integer("rounds", 3);
        int[] sizes = options.integers("sizes", 64, 1 << 20);
        int window = options.integer("window", 2);
        double warmup = options.seconds("warmup", 2);
        double time = options.seconds("time", 3);
        String allocatorName = options.string("allocator", "grpc");
        options.checkAllRead();
        GrpcEchoRig.Allocator allocator;
        try {
            allocator = GrpcEchoRig.Allocator.valueOf(allocatorName.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--allocator: " + allocatorName + " (expected: grpc, netty or "
                    + "registered)\n" + USAGE, e);
        }
        if (rounds < 1 || window < 1 || sizes.length == 0) {
            throw new IllegalArgumentException("--rounds, --window and --sizes: at least 1\n" + USAGE);
        }
        if (allocator == GrpcEchoRig.Allocator.NETTY) {
            // Read by gRPC each time it makes a channel: from now on its channels take Netty's default.
            System.setProperty("io.grpc.netty.useCustomAllocator", "false");
        }
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
        int unaryBytes = Arrays.stream(sizes).min().getAsInt();
        int streamBytes = Arrays.stream(sizes).max().getAsInt();
        GrpcEchoBenchmark benchmark = new GrpcEchoBenchmark(host, unaryBytes, streamBytes, window, allocator);
        long start = System.nanoTime();
        printHeader(host, transports, rounds, unaryBytes, streamBytes, window, warmup, time, allocator);

        long warmupMillis = (long) (warmup * 1000);
        JitWarmUp.untilQuiet(() -> {
            for (Transport transport : transports) {
                benchmark.round(0, transport, warmupMillis, 0);
            }
        }, System.out);

        GrpcEchoReport report = new GrpcEchoReport(transports.stream().map(Transport::displayName).toList(),
                unaryBytes, streamBytes, allocator.name().toLowerCase(Locale.ROOT));
        long measureMillis = (long) (time * 1000);
        for (int round = 1; round <= rounds; round++) {
            for (Transport transport : transports) {
                GrpcEchoReport.Round figures = benchmark.round(round, transport, SETTLE_MILLIS, measureMillis);
                progress(figures.line());
                report.add(figures);
            }
        }
        report.print(System.out);
        System.out.println(String.format(Locale.ROOT, "Ran for %.1f minutes.", (System.nanoTime() - start) / 60e9));
        System.exit(report.complete() ? 0 : 1);
    }

    /**
     * Runs both phases of {@code transport} on a new server and channel: each for {@code settleMillis}
     * not counted, then for {@code measureMillis} (none: the warm-up).
     */
    private GrpcEchoReport.Round round(int round, Transport transport, long settleMillis, long measureMillis)
            throws InterruptedException {
        double p50 = Double.NaN;
        double p99 = Double.NaN;
        long calls = 0;
        double mibPerSecond = Double.NaN;
        try (GrpcEchoRig rig = new GrpcEchoRig(transport, host, allocator)) {
            UnaryRoundTrips settling = new UnaryRoundTrips(rig.channel(), unaryMessage);
            settling.start();
            Thread.sleep(settleMillis);
            settling.stop();
            if (measureMillis > 0) {
                UnaryRoundTrips measured = new UnaryRoundTrips(rig.channel(), unaryMessage);
                measured.start();
                Thread.sleep(measureMillis);
                Histogram histogram = measured.stop();
                p50 = histogram.getValueAtPercentile(50) / 1e3;
                p99 = histogram.getValueAtPercentile(99) / 1e3;
                calls = histogram.getTotalCount();
            }
            StreamPump stream = new StreamPump(rig.channel(), streamMessage, window);
            stream.start();
            Thread.sleep(settleMillis);
            if (measureMillis > 0) {
                long before = stream.echoedBytes();
                long begun = System.nanoTime();
                Thread.sleep(measureMillis);
                long echoed = stream.echoedBytes() - before;
                mibPerSecond = echoed / MIB / ((System.nanoTime() - begun) / 1e9);
            }
            stream.stop();
        } catch (Exception e) {
            return new GrpcEchoReport.Round(round, transport.displayName(), p50, p99, calls, mibPerSecond,
                    String.valueOf(e));
        }
        return new GrpcEchoReport.Round(round, transport.displayName(), p50, p99, calls, mibPerSecond, null);
    }

    private static void printHeader(String host, List<Transport> transports, int rounds, int unaryBytes,
                                    int streamBytes, int window, double warmup, double time,
                                    GrpcEchoRig.Allocator allocator) {
        System.out.println("gRPC echo (gRPC-java's Netty server and channel, the example's service) over "
                + transports.stream().map(Transport::displayName).reduce((a, b) -> a + ", " + b).orElse("")
                + " in turn, " + rounds + (rounds == 1 ? " round" : " rounds") + ", on " + host);
        System.out.printf(Locale.ROOT, "  unary round trip of %d B, stream of %d B messages, %d in flight; warm-up %.1f s "
                + "per phase until the JIT compiler is quiet, then %.1f s settling and %.1f s measured; allocator %s%n",
                unaryBytes, streamBytes, window, warmup, SETTLE_MILLIS / 1e3, time,
                allocator.name().toLowerCase(Locale.ROOT));
        String tcg = System.getenv("RXE_VM_TCG_THREAD");
        System.out.println("  java " + System.getProperty("java.version") + ", "
                + Runtime.getRuntime().availableProcessors() + " CPUs"
                + (System.getenv("RXE_VM_ACCEL") != null ? ", accel " + System.getenv("RXE_VM_ACCEL") : "")
                + (tcg != null ? ", tcg thread=" + tcg : ""));
    }

    private static void progress(String line) {
        System.err.println("grpc-bench: " + line);
    }
}
