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
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.ResourceLeakDetector;
import org.HdrHistogram.Histogram;
import org.nettyrdma.benchmark.ScaleRound.CloseSample;
import org.nettyrdma.benchmark.ScaleRound.IdleStep;
import org.nettyrdma.benchmark.ScaleRound.StreamPoint;
import org.nettyrdma.example.ExampleOptions;
import org.nettyrdma.example.Transport;

/**
 * Measures how one server copes with many connections (issue 24), over RDMA and over epoll side by side:
 * the memory idle connections hold, how fast connections are set up, how many active connections share
 * the throughput, and what idle connections cost a round trip beside them. This process is the client;
 * each round starts a {@link ScaleServer} in a JVM of its own, so that its pinned memory as the kernel
 * counts it is the server's. The transports alternate round by round, so that a drift of the host's
 * load falls on all of them.
 *
 * <p>One round of one transport, on one server process:
 * <ol>
 *   <li>a round-trip connection opens first and rests, so that a server that later refuses connections
 *       still has it;</li>
 *   <li>warm-up streams, not counted, at each size: the server's JVM is new;</li>
 *   <li>for each size and each count of active connections: that many connections stream one way for a
 *       settling time and the measured window; the server reads each one's bytes at both ends of it;</li>
 *   <li>the round trip alone, 64 B ping-pong: a warm-up, then the measured window;</li>
 *   <li>the idle ramp: connections that send nothing, opened with several connects in flight up to each
 *       count of {@code --counts}, the server's memory read at each, until one fails; beside the first count
 *       of at least {@code --round-trip-idle} (or where the ramp stopped) the round trip is measured again
 *       on the first connection;</li>
 *   <li>the idle connections close all at once, the server's registered memory, memory regions and
 *       {@code VmPin} read every half second until they settle: they should only fall.</li>
 * </ol>
 * With {@code --connect-warmup N}, each round first opens N connections, as the idle ramp does, and
 * closes them, uncounted: the set-up figures are then those of JVMs whose set-up code was compiled, as in
 * a server that has run for a while, where without it they include the JIT compiling that code.
 * With {@code --connect-floor}, each round starts with the device's floor under set-up: the C program
 * connects as many times as the ramp's largest count, as many in flight, over raw RDMA CM
 * ({@link ConnectFloor}).
 * Every wait is bounded; a step that fails is reported with its error and the round goes on where it can.
 * {@code scripts/scale-bench} runs it in the rxe VM; docs/benchmark.md explains the figures.
 *
 * <pre>
 * java ... org.nettyrdma.benchmark.ScaleBenchmark --host 10.77.0.1 --counts 1,100,1000 --rounds 3
 * </pre>
 */
public final class ScaleBenchmark {

    private static final String USAGE = "usage: ScaleBenchmark [--host ADDRESS] [--transports rdma,epoll] "
            + "[--rounds 3 (at least 3 for a median)] [--counts 1,100,1000,10000 idle connections] "
            + "[--active 1,8,64,256 streaming connections] [--sizes 4k,64k] [--warmup SECONDS, default 2] "
            + "[--time SECONDS measured, default 3] [--in-flight 16 connects at once] "
            + "[--round-trip-idle 1000 idle connections beside the second round trip] "
            + "[--connect-floor PROGRAM: cm-connect-floor, run at the start of each round] "
            + "[--connect-warmup N: connects opened and closed before the streams, not counted; default 0]";
    private static final int ROUND_TRIP_BYTES = 64;
    /** The client's event loops: one per vCPU of the project's VM, as the server's. */
    private static final int THREADS = 2;
    /** A task on a loop, a close, a server's count: what takes longer is stuck. */
    private static final long TIMEOUT_SECONDS = 60;
    private static final double MIB = 1 << 20;
    /** Connections of the warm-up streams, which are not counted. */
    private static final int WARM_UP_ACTIVE = 8;
    /** Lets a refusal that closes connections just after they opened show before the count is read. */
    private static final long SETTLE_MILLIS = 500;
    /** How often the server is read while the idle connections close at once. */
    private static final long CLOSE_SAMPLE_MILLIS = 500;
    /**
     * How long the server's memory must stay the same, none of the connections held, for the close to be
     * over: a queue pair is torn down after its channel closed, and its loop's receive queue with the last.
     */
    private static final long CLOSE_SETTLED_MILLIS = 5_000;

    private final String host;
    private final int[] counts;
    private final int[] actives;
    private final int[] sizes;
    private final long warmupMillis;
    private final long measureMillis;
    private final int inFlight;
    private final int roundTripIdle;
    private final int connectWarmUp;

    private ScaleBenchmark(String host, int[] counts, int[] actives, int[] sizes, double warmupSeconds,
                           double measureSeconds, int inFlight, int roundTripIdle, int connectWarmUp) {
        this.host = host;
        this.counts = counts;
        this.actives = actives;
        this.sizes = sizes;
        this.warmupMillis = (long) (warmupSeconds * 1000);
        this.measureMillis = (long) (measureSeconds * 1000);
        this.inFlight = inFlight;
        this.roundTripIdle = roundTripIdle;
        this.connectWarmUp = connectWarmUp;
    }

    /**
     * Runs the rounds, printing each round's own figures on stderr as it ends, then the report on stdout;
     * exits with status 1 if a round ended early.
     */
    public static void main(String[] args) throws Exception {
        ExampleOptions options = ExampleOptions.parse(USAGE, args);
        String host = options.host();
        List<Transport> transports = options.transports("rdma,epoll");
        int rounds = options.integer("rounds", 3);
        int[] counts = ascending("counts", options.integers("counts", 1, 100, 1000, 10_000));
        int[] actives = ascending("active", options.integers("active", 1, 8, 64, 256));
        int[] sizes = options.integers("sizes", 4096, 65536);
        double warmup = options.seconds("warmup", 2);
        double time = options.seconds("time", 3);
        int inFlight = options.integer("in-flight", 16);
        int roundTripIdle = options.integer("round-trip-idle", 1000);
        String connectFloor = options.string("connect-floor", null);
        int connectWarmUp = options.integer("connect-warmup", 0);
        options.checkAllRead();
        if (rounds < 1 || inFlight < 1) {
            throw new IllegalArgumentException("--rounds and --in-flight: at least 1\n" + USAGE);
        }
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
        long start = System.nanoTime();
        ScaleBenchmark benchmark = new ScaleBenchmark(host, counts, actives, sizes, warmup, time, inFlight,
                roundTripIdle, connectWarmUp);
        ScaleReport report = new ScaleReport(counts, actives, sizes, inFlight);
        boolean complete = true;
        for (int round = 1; round <= rounds; round++) {
            if (connectFloor != null) {
                progress("round " + round + ", " + ConnectFloor.NAME + ": " + counts[counts.length - 1] + " connects");
                ConnectFloor floor = ConnectFloor.run(connectFloor, round, host, counts[counts.length - 1], inFlight);
                report.addFloor(floor);
                System.err.println("round " + round + ' ' + ConnectFloor.NAME + ": " + (floor.error() != null
                        ? floor.error() : String.format(Locale.ROOT, "%d connects, p50 %.1f ms, p99 %.1f ms,"
                        + " %.1f connects/s", floor.connects(), floor.setUpP50Ms(), floor.setUpP99Ms(),
                        floor.connectsPerSecond())));
            }
            for (Transport transport : transports) {
                ScaleRound figures = benchmark.run(transport, round);
                complete &= figures.error == null;
                report.add(figures);
                // stderr: scripts/scale-bench holds stdout back until the end, while stderr reaches the
                // host as it is written, so a client killed in a later round keeps this one's figures.
                ScaleReport.printRound(figures, System.err);
            }
        }
        printHeader(host, transports, rounds, counts, actives, sizes, warmup, time, inFlight);
        report.print(System.out);
        System.out.println();
        System.out.println(String.format(Locale.ROOT, "Ran for %.1f minutes.",
                (System.nanoTime() - start) / 60e9));
        System.exit(complete ? 0 : 1);
    }

    private static int[] ascending(String name, int[] values) {
        int[] sorted = values.clone();
        Arrays.sort(sorted);
        if (sorted.length == 0 || sorted[0] < 1) {
            throw new IllegalArgumentException("--" + name + ": " + Arrays.toString(values) + " (expected: >= 1 each)");
        }
        return sorted;
    }

    private static void printHeader(String host, List<Transport> transports, int rounds, int[] counts,
                                    int[] actives, int[] sizes, double warmup, double time, int inFlight)
            throws IOException {
        System.out.println("Scale: one server process per round (the transport's defaults), the client in this one; "
                + transports.stream().map(Transport::displayName).reduce((a, b) -> a + ", " + b).orElse("")
                + " alternating, " + rounds + (rounds == 1 ? " round" : " rounds") + ", on " + host);
        System.out.println("  idle counts " + Arrays.toString(counts) + ", active " + Arrays.toString(actives)
                + ", sizes " + Arrays.toString(sizes) + " B, warm-up " + warmup + " s, measured " + time
                + " s, " + inFlight + " connects in flight");
        String tcg = System.getenv("RXE_VM_TCG_THREAD");
        System.out.println("  java " + System.getProperty("java.version") + ", "
                + Runtime.getRuntime().availableProcessors() + " CPUs, MemTotal "
                + ScaleReport.bytes(KernelCounts.procKib("/proc/meminfo", "MemTotal") * ScaleReport.KIB)
                + (System.getenv("RXE_VM_ACCEL") != null ? ", accel " + System.getenv("RXE_VM_ACCEL") : "")
                + (tcg != null ? ", tcg thread=" + tcg : ""));
        System.out.println();
    }

    /** Runs one round of {@code transport}: its own server process, from start to end. */
    private ScaleRound run(Transport transport, int round) throws InterruptedException {
        ScaleRound figures = new ScaleRound(transport.displayName(), round);
        progress("round " + round + ", " + transport.displayName() + ": starting the server");
        EventLoopGroup group = transport.newEventLoopGroup(THREADS);
        try (ScaleServerProcess server = ScaleServerProcess.start(transport, host)) {
            InetSocketAddress echo = new InetSocketAddress(host, server.echoPort());
            InetSocketAddress sink = new InetSocketAddress(host, server.sinkPort());
            PingPong pingPong = new PingPong(ROUND_TRIP_BYTES);
            Channel roundTrip = bootstrap(group, transport, pingPong).connect(echo)
                    .syncUninterruptibly().channel();
            // Opened first, so that a server that stops taking connections later still has this one;
            // it rests until the server's JIT has seen the streams.
            stop(pingPong, roundTrip);
            for (int size : sizes) {
                // Not counted: a new server JVM's first streams run partly interpreted.
                progress("round " + round + ", " + transport.displayName() + ": warm-up, streaming " + size + " B");
                stream(group, transport, server, sink, Math.min(WARM_UP_ACTIVE, actives[actives.length - 1]), size);
            }
            if (connectWarmUp > 0) {
                warmUpConnects(group, transport, server, sink, round);
            }
            for (int size : sizes) {
                for (int active : actives) {
                    progress("round " + round + ", " + transport.displayName() + ": " + active + " streaming "
                            + size + " B");
                    figures.streams.add(stream(group, transport, server, sink, active, size));
                }
            }
            try {
                progress("round " + round + ", " + transport.displayName() + ": round trip alone");
                double[] alone = measureRoundTrip(pingPong, roundTrip);
                figures.roundTripAloneP50Us = alone[0];
                figures.roundTripAloneP99Us = alone[1];
            } catch (IOException | ExecutionException | TimeoutException e) {
                figures.roundTripError = "alone: " + e.getMessage();
            }
            idleRamp(group, transport, server, sink, pingPong, roundTrip, figures);
            roundTrip.close().await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (IOException | RuntimeException e) {
            figures.error = String.valueOf(e);
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
        return figures;
    }

    /** Opens {@link #connectWarmUp} connections as the idle ramp does, not counted, and closes them. */
    private void warmUpConnects(EventLoopGroup group, Transport transport, ScaleServerProcess server,
                                InetSocketAddress sink, int round) throws IOException, InterruptedException {
        progress("round " + round + ", " + transport.displayName() + ": warm-up, " + connectWarmUp + " connects");
        ConnectBurst burst = new ConnectBurst(bootstrap(group, transport, Idle.INSTANCE), sink, inFlight);
        try {
            if (!burst.openUpTo(connectWarmUp)) {
                throw new IOException("the connects' warm-up failed: " + burst.failure());
            }
        } finally {
            burst.closeAll(TIMEOUT_SECONDS);
        }
        awaitChildren(server, 0);
    }

    private void idleRamp(EventLoopGroup group, Transport transport, ScaleServerProcess server,
                          InetSocketAddress sink, PingPong pingPong, Channel roundTrip, ScaleRound figures)
            throws IOException, InterruptedException {
        figures.idleBaseline = idleStep(0, awaitSettled(server), null);
        ConnectBurst burst = new ConnectBurst(bootstrap(group, transport, Idle.INSTANCE), sink, inFlight);
        boolean besideMeasured = false;
        try {
            for (int count : counts) {
                progress("round " + figures.round + ", " + transport.displayName() + ": " + count + " idle");
                boolean all = burst.openUpTo(count);
                Thread.sleep(SETTLE_MILLIS);
                Map<String, String> memory = awaitChildren(server, burst.open());
                int held = Integer.parseInt(memory.get("children"));
                String error = null;
                if (!all || held < count) {
                    error = burst.failure() != null ? burst.failure()
                            : held + " of " + count + " open at the server, " + burst.open() + " at the client";
                }
                figures.idle.add(idleStep(count, memory, error));
                if (!besideMeasured && (count >= roundTripIdle || error != null || count == counts[counts.length - 1])) {
                    besideMeasured = true;
                    measureBeside(pingPong, roundTrip, figures, held);
                }
                if (error != null) {
                    break;
                }
            }
            Histogram setUp = burst.setUpNanos();
            figures.connects = setUp.getTotalCount();
            if (figures.connects > 0) {
                figures.setUpP50Ms = setUp.getValueAtPercentile(50) / 1e6;
                figures.setUpP99Ms = setUp.getValueAtPercentile(99) / 1e6;
                figures.connectsPerSecond = figures.connects / (burst.wallNanos() / 1e9);
            }
        } finally {
            closeAtOnce(server, burst, figures);
        }
    }

    /**
     * Closes the idle connections all at once, as a client fleet that restarts does, and reads the server
     * every {@link #CLOSE_SAMPLE_MILLIS} meanwhile, from just before until it holds none of them and its
     * registered bytes and {@code VmPin} stayed the same for {@link #CLOSE_SETTLED_MILLIS}: a close that
     * registers memory shows as a rise.
     */
    private static void closeAtOnce(ScaleServerProcess server, ConnectBurst burst, ScaleRound figures)
            throws InterruptedException {
        figures.closedAtOnce = burst.size();
        long start = System.nanoTime();
        long deadline = start + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        List<ChannelFuture> closes = null;
        try {
            figures.closing.add(closeSample(server, 0));
            closes = burst.startClosing();
            start = System.nanoTime();
            long changedAt = 0;
            for (;;) {
                Thread.sleep(CLOSE_SAMPLE_MILLIS);
                CloseSample last = figures.closing.get(figures.closing.size() - 1);
                CloseSample now = closeSample(server, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                figures.closing.add(now);
                if (now.children() != 0 || now.registeredBytes() != last.registeredBytes()
                        || now.vmPinKib() != last.vmPinKib()) {
                    changedAt = now.millis();
                } else if (now.millis() - changedAt >= CLOSE_SETTLED_MILLIS) {
                    break;
                }
                if (System.nanoTime() - deadline > 0) {
                    figures.closingError = "not settled " + TIMEOUT_SECONDS + " s after the close";
                    break;
                }
            }
        } catch (IOException | RuntimeException e) {
            figures.closingError = String.valueOf(e);
        } finally {
            if (closes == null) {
                burst.closeAll(TIMEOUT_SECONDS);
            } else {
                for (ChannelFuture close : closes) {
                    close.await(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                }
            }
        }
    }

    private static CloseSample closeSample(ScaleServerProcess server, long millis) throws IOException {
        Map<String, String> memory = server.memory();
        return new CloseSample(millis, Integer.parseInt(memory.get("children")), number(memory, "registered_B"),
                number(memory, "all_regions"), number(memory, "vmpin_kB"));
    }

    private void measureBeside(PingPong pingPong, Channel roundTrip, ScaleRound figures, int idle)
            throws InterruptedException {
        progress("round " + figures.round + ", " + figures.transport + ": round trip beside " + idle + " idle");
        figures.roundTripBeside = idle;
        try {
            double[] beside = measureRoundTrip(pingPong, roundTrip);
            figures.roundTripBesideP50Us = beside[0];
            figures.roundTripBesideP99Us = beside[1];
        } catch (IOException | ExecutionException | TimeoutException e) {
            String why = "beside " + idle + " idle: " + e.getMessage();
            figures.roundTripError = figures.roundTripError == null ? why : figures.roundTripError + "; " + why;
        }
    }

    private static IdleStep idleStep(int asked, Map<String, String> memory, String error) {
        return new IdleStep(asked, Integer.parseInt(memory.get("children")), number(memory, "registered_B"),
                number(memory, "channel_B"), number(memory, "vmpin_kB"), number(memory, "rss_kB"), error);
    }

    private static long number(Map<String, String> fields, String name) {
        String value = fields.get(name);
        return value != null ? Long.parseLong(value) : -1;
    }

    /** Resumes the round trips of a stopped {@code pingPong}; returns p50 and p99 in us of a measured window. */
    private double[] measureRoundTrip(PingPong pingPong, Channel channel)
            throws IOException, InterruptedException, ExecutionException, TimeoutException {
        channel.eventLoop().submit(pingPong::resume).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        Thread.sleep(warmupMillis);
        channel.eventLoop().submit(pingPong::reset).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        Thread.sleep(measureMillis);
        Histogram histogram = channel.eventLoop().submit(pingPong::stop).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (pingPong.failure() != null) {
            throw new IOException(String.valueOf(pingPong.failure()));
        }
        if (histogram.getTotalCount() == 0) {
            throw new IOException("no round trip completed in the measured " + measureMillis + " ms"
                    + (channel.isActive() ? "" : ", the connection closed"));
        }
        return new double[] {histogram.getValueAtPercentile(50) / 1e3, histogram.getValueAtPercentile(99) / 1e3};
    }

    private StreamPoint stream(EventLoopGroup group, Transport transport, ScaleServerProcess server,
                               InetSocketAddress sink, int active, int size) throws InterruptedException {
        List<Streamer> streamers = Collections.synchronizedList(new ArrayList<>());
        ConnectBurst burst = new ConnectBurst(bootstrap(group, transport, new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                Streamer streamer = new Streamer(size);
                streamers.add(streamer);
                ch.pipeline().addLast(streamer);
            }
        }), sink, inFlight);
        try {
            boolean all = burst.openUpTo(active);
            String error = all ? null : "connected " + burst.size() + " of " + active + ": " + burst.failure();
            Thread.sleep(warmupMillis);
            Map<String, Long> before = server.sinkBytes();
            long start = System.nanoTime();
            Thread.sleep(measureMillis);
            Map<String, Long> after = server.sinkBytes();
            double seconds = (System.nanoTime() - start) / 1e9;
            streamers.forEach(Streamer::stop);
            for (Streamer streamer : streamers) {
                if (streamer.failure() != null && error == null) {
                    error = "a streaming connection failed: " + streamer.failure();
                }
            }
            double total = 0;
            double slowest = Double.MAX_VALUE;
            double fastest = 0;
            int connected = 0;
            for (Map.Entry<String, Long> end : after.entrySet()) {
                Long begin = before.get(end.getKey());
                if (begin == null) {
                    continue;
                }
                double mbps = (end.getValue() - begin) / MIB / seconds;
                total += mbps;
                slowest = Math.min(slowest, mbps);
                fastest = Math.max(fastest, mbps);
                connected++;
            }
            if (connected == 0) {
                return new StreamPoint(active, size, 0, Double.NaN, Double.NaN, Double.NaN,
                        error != null ? error : "no connection streamed through the measured window");
            }
            return new StreamPoint(active, size, connected, total, slowest, fastest, error);
        } catch (IOException e) {
            return new StreamPoint(active, size, 0, Double.NaN, Double.NaN, Double.NaN, String.valueOf(e));
        } finally {
            streamers.forEach(Streamer::stop);
            burst.closeAll(TIMEOUT_SECONDS);
            try {
                // The next step starts on a server with no connection left of this one.
                awaitChildren(server, 0);
            } catch (IOException e) {
                progress("the server still holds connections of the last streams: " + e.getMessage());
            }
        }
    }

    private static void stop(PingPong pingPong, Channel channel) throws InterruptedException {
        try {
            channel.eventLoop().submit(pingPong::stop).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the round-trip connection's loop did not stop it", e);
        }
    }

    /**
     * Polls the server until its registered memory and connections read the same twice a second apart:
     * a closed RDMA connection keeps its memory until its last sends completed, and the idle ramp's
     * baseline must not count the streams' connections still draining.
     */
    private static Map<String, String> awaitSettled(ScaleServerProcess server) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        Map<String, String> last = awaitChildren(server, 0);
        for (;;) {
            Thread.sleep(1000);
            Map<String, String> now = server.memory();
            boolean same = now.get("children").equals(last.get("children"))
                    && String.valueOf(now.get("registered_B")).equals(String.valueOf(last.get("registered_B")));
            if (same || System.nanoTime() - deadline > 0) {
                return now;
            }
            last = now;
        }
    }

    /** Polls the server until it holds {@code expected} sink connections, for at most the timeout; returns its last memory line. */
    private static Map<String, String> awaitChildren(ScaleServerProcess server, int expected)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        for (;;) {
            Map<String, String> memory = server.memory();
            if (Integer.parseInt(memory.get("children")) == expected || System.nanoTime() - deadline > 0) {
                return memory;
            }
            Thread.sleep(200);
        }
    }

    private static Bootstrap bootstrap(EventLoopGroup group, Transport transport, ChannelHandler handler) {
        return new Bootstrap().group(group).channel(transport.socketChannelClass()).handler(handler);
    }

    private static void progress(String line) {
        System.err.println("scale: " + line);
    }

    /** An idle client connection: it sends nothing and drops what it reads; an error closes it. */
    @ChannelHandler.Sharable
    private static final class Idle extends ChannelInboundHandlerAdapter {
        static final Idle INSTANCE = new Idle();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
