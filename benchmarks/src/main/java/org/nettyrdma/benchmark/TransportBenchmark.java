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
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.ResourceLeakDetector;
import org.HdrHistogram.Histogram;
import org.nettyrdma.channel.rdma.RdmaChannelOption;
import org.nettyrdma.channel.rdma.RdmaIoHandlerConfig;
import org.nettyrdma.channel.rdma.RdmaLoopMetrics;
import org.nettyrdma.channel.rdma.RdmaMemoryMetrics;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.example.ExampleOptions;
import org.nettyrdma.example.Transport;

/**
 * Measures one Netty pipeline over RDMA, NIO or epoll, in one process: a server and a client on the
 * same address, each with an event loop of its own. For every message size, two phases, each on a new
 * connection:
 *
 * <ul>
 *   <li><b>stream</b>: the client writes messages one way as fast as the channel stays writable; the
 *       server counts and releases them. Throughput (MB/s, 2^20 bytes), process CPU time per MB, bytes
 *       the event loop threads allocated per message, and, over RDMA, registered memory per channel.</li>
 *   <li><b>round trip</b>: the client sends a message and waits for the server's echo before the next;
 *       percentiles of the round trip (HdrHistogram), CPU time and allocation per round trip.</li>
 * </ul>
 *
 * <p>Warm-up rounds run every phase of every size first, for {@code --warmup} seconds each, and are not
 * counted. They repeat until the JIT compiler was nearly idle through one ({@link JitWarmUp}): it needs
 * tens of seconds under an emulator. Then each measured pass runs every phase again on new connections,
 * each after one settling second, for {@code --time} seconds, and an idle connection's loops for 10 s.
 * {@code --rounds} says how many passes follow the one warm-up, or that each waits for its line on
 * standard input ({@link MeasuredRounds}), as {@code scripts/demo} runs it.
 *
 * <p>Every wait is bounded: a connection that stops moving is reported as an error for that size, and
 * a {@link Watchdog} halts the program when the warm-up or a pass outlives its deadline. Each pass
 * prints a table, then one {@code bench ... round=N ...} line per size ({@link Result#toLine(int)}) for
 * scripts, and {@code bench-round-end}; the warm-up ends with {@code bench-ready}. {@code scripts/demo}
 * runs it in the rxe VM next to perftest; {@code docs/benchmark.md} explains the figures.
 *
 * <pre>
 * java ... org.nettyrdma.benchmark.TransportBenchmark --transport rdma --host 10.77.0.1 --sizes 64,4k,64k
 * </pre>
 */
public final class TransportBenchmark {

    private static final String USAGE = "usage: TransportBenchmark [--transport rdma|rdma-nopoll|rdma-busypoll|nio|epoll] "
            + "[--host ADDRESS] [--sizes 64,4k,64k] [--warmup SECONDS per phase, default 3] "
            + "[--time SECONDS per phase, default 3] [--receive copy|in-place, default copy: over RDMA, "
            + "whether ring data is handed up where it landed (RdmaChannelOption.RECEIVE_IN_PLACE)] "
            + "[--slot-size BYTES, e.g. 32k: over RDMA, both ends' receive slots (RdmaChannelOption.SLOT_SIZE), "
            + "default the transport's] "
            + MeasuredRounds.USAGE;
    private static final int[] DEFAULT_SIZES = {64, 4096, 65536};
    /** Connecting, closing, a task on a loop: what takes longer is stuck. */
    private static final long TIMEOUT_SECONDS = 20;
    /** How long the idle phase leaves a connection alone ({@code bench-idle}). */
    private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** The message the idle phase's connection echoes before it goes quiet. */
    private static final int IDLE_MESSAGE = 64;
    private static final double MIB = 1 << 20;
    /** A new connection's first moments (its first messages, the loops' first wake-ups) are not measured. */
    private static final long SETTLE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Transport transport;
    private final InetAddress host;
    private final int[] sizes;
    private final long warmupNanos;
    private final long measureNanos;
    private boolean receiveInPlace;
    /** Both ends' {@link RdmaChannelOption#SLOT_SIZE}, or 0 for the transport's default. */
    private int slotSize;

    /**
     * Creates a benchmark of {@code transport} between two channels on {@code host}, for each of
     * {@code sizes}, with the time per phase of the warm-up pass and of the measured pass.
     */
    public TransportBenchmark(Transport transport, InetAddress host, int[] sizes, double warmupSeconds,
                              double measureSeconds) {
        if (sizes.length == 0 || Arrays.stream(sizes).anyMatch(size -> size < 1)) {
            throw new IllegalArgumentException("sizes: " + Arrays.toString(sizes) + " (expected: >= 1 each)");
        }
        this.transport = transport;
        this.host = host;
        this.sizes = sizes.clone();
        this.warmupNanos = (long) (warmupSeconds * 1e9);
        this.measureNanos = (long) (measureSeconds * 1e9);
    }

    /**
     * Makes the RDMA channels hand ring data up where the peer wrote it, without the copy
     * ({@link RdmaChannelOption#RECEIVE_IN_PLACE}); it matters only where a connection opens a ring.
     */
    public TransportBenchmark receiveInPlace(boolean inPlace) {
        this.receiveInPlace = inPlace;
        return this;
    }

    /**
     * Gives both RDMA channels receive slots of {@code bytes} ({@link RdmaChannelOption#SLOT_SIZE}), or
     * the transport's default with 0: a Send carries at most a slot, so a stream of large messages
     * takes one completion per slot at each end.
     */
    public TransportBenchmark slotSize(int bytes) {
        this.slotSize = bytes;
        return this;
    }

    /** Runs the benchmark; exits with status 1 if a phase failed, 3 if the deadline passed. */
    public static void main(String[] args) throws Exception {
        ExampleOptions options = ExampleOptions.parse(USAGE, args);
        Transport transport = options.transport();
        String host = options.host();
        int[] sizes = options.integers("sizes", DEFAULT_SIZES);
        double warmup = options.seconds("warmup", 3);
        double time = options.seconds("time", 3);
        String receive = options.string("receive", "copy");
        int slotSize = options.integer("slot-size", 0);
        if (!receive.equals("copy") && !receive.equals("in-place")) {
            throw new IllegalArgumentException("--receive: " + receive + " (expected: copy or in-place)\n" + USAGE);
        }
        MeasuredRounds rounds = MeasuredRounds.parse(options.string("rounds", "1"), System.in);
        options.checkAllRead();

        if (System.getProperty("io.netty.leakDetection.level") == null) {
            // The detector records a stack trace for one buffer in 128: garbage a production setup does not make.
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
        TransportBenchmark benchmark = new TransportBenchmark(transport, resolve(host), sizes, warmup, time)
                .receiveInPlace(receive.equals("in-place")).slotSize(slotSize);
        List<Result> results = benchmark.run(System.out, rounds, Watchdog.of(transport.displayName()));
        if (transport == Transport.RDMA) {
            System.out.println("bench-end transport=rdma registered_B_after_shutdown=" + registeredBufferBytes());
        }
        // exit(), not a return: a transport that left a thread behind must not keep the benchmark alive.
        System.exit(results.stream().anyMatch(result -> result.error() != null) ? 1 : 0);
    }

    private static InetAddress resolve(String host) throws UnknownHostException {
        return InetAddress.getByName(host);
    }

    /**
     * Returns the bytes of memory regions the transport's connections and shared receive queues hold
     * now, read through the public metrics rather than the registered memory's own classes.
     */
    static long registeredBufferBytes() {
        RdmaMemoryMetrics memory = RdmaMemoryMetrics.snapshot();
        return memory.connectionBytes() + memory.sharedReceiveBytes();
    }

    /** Returns the seconds after which the warm-up must have finished, whatever went wrong in it. */
    long warmUpDeadlineSeconds() {
        long phases = 2L * sizes.length;
        long warmingUp = JitWarmUp.MAX_ROUNDS * (TimeUnit.NANOSECONDS.toSeconds(warmupNanos) + 2);
        return 60 + phases * (warmingUp + 3 * TIMEOUT_SECONDS);
    }

    /** Returns the seconds after which a measured pass, its idle phase included, must have finished. */
    long roundDeadlineSeconds() {
        long phases = 2L * sizes.length;
        long measuring = TimeUnit.NANOSECONDS.toSeconds(settleNanos() + measureNanos) + 2;
        long idling = TimeUnit.NANOSECONDS.toSeconds(IDLE_NANOS) + 2 + 2 * TIMEOUT_SECONDS;
        return 60 + phases * (measuring + 3 * TIMEOUT_SECONDS) + idling;
    }

    private long settleNanos() {
        return Math.min(SETTLE_NANOS, warmupNanos);
    }

    /**
     * Warms up, then runs a measured pass of every size for each of {@code rounds}, printing a table row as
     * each size finishes and each pass's lines at its end, and returns the results of every pass. A failed
     * phase is a result with an error, not an exception. {@code watchdog} is armed for the warm-up and for
     * each pass, and disarmed while the next round is awaited.
     *
     * @throws Exception if the servers cannot be started, or {@code rounds} cannot be read
     */
    public List<Result> run(PrintStream out, MeasuredRounds rounds, Watchdog watchdog) throws Exception {
        out.println(environmentLine());
        watchdog.arm(warmUpDeadlineSeconds(), 0);
        long warmUpStart = System.nanoTime();
        EventLoopGroup serverGroup = transport.newEventLoopGroup(1);
        EventLoopGroup clientGroup = transport.newEventLoopGroup(1);
        try {
            Rig rig = new Rig(serverGroup, clientGroup);
            out.printf(Locale.ROOT, "%s between two channels on %s, one event loop each; MB = 2^20 bytes%n",
                    transport.displayName(), host.getHostAddress());
            out.printf(Locale.ROOT, "warm-up: every phase of every size for %.1f s, in rounds until the JIT compiler"
                    + " is quiet (at most %d), not counted%n", warmupNanos / 1e9, JitWarmUp.MAX_ROUNDS);
            int warmUpRounds = JitWarmUp.untilQuiet(() -> {
                for (int size : sizes) {
                    Result warmup = rig.measure(size, warmupNanos, 0);
                    if (warmup.error() != null) {
                        out.println("  warm-up, " + size + " B: " + warmup.error());
                    }
                }
            }, out);
            // The loops' polling once warmed up: a default adaptive bound has measured the machine by now.
            out.printf(Locale.ROOT, "bench-ready transport=%s warmup_rounds=%d seconds=%.1f%s%n", transport.displayName(),
                    warmUpRounds, (System.nanoTime() - warmUpStart) / 1e9,
                    transport.isRdma() ? loopPolling(transport.rdmaLoopConfig()) : "");
            watchdog.disarm();
            List<Result> results = new ArrayList<>();
            for (int round; (round = rounds.next()) > 0; ) {
                watchdog.arm(roundDeadlineSeconds(), round);
                results.addAll(measuredPass(rig, round, out));
                watchdog.disarm();
            }
            rig.close();
            return results;
        } finally {
            shutDown(serverGroup);
            shutDown(clientGroup);
        }
    }

    /**
     * Runs every phase of every size on new connections, then the idle phase, and prints the pass's
     * {@code bench}, {@code bench-idle} and {@code bench-round-end} lines, all of them marked with
     * {@code round}; returns the results.
     */
    private List<Result> measuredPass(Rig rig, int round, PrintStream out) throws InterruptedException {
        long start = System.nanoTime();
        out.printf(Locale.ROOT, "measured pass, round %d: every phase of every size on a new connection, %.1f s"
                + " settling, %.1f s measured%n", round, settleNanos() / 1e9, measureNanos / 1e9);
        out.printf("%8s | %9s %9s %11s %12s | %8s %8s %8s %9s %10s | %s%n", "bytes", "MB/s", "CPU ms/MB",
                "alloc B/msg", "copied B/msg", "p50 us", "p99 us", "p99.9 us", "CPU us/rt", "alloc B/rt",
                "registered/channel");
        List<Result> results = new ArrayList<>();
        for (int size : sizes) {
            Result result = rig.measure(size, settleNanos(), measureNanos);
            results.add(result);
            out.println(row(result));
        }
        out.println(rig.idle(IDLE_NANOS, round));
        for (Result result : results) {
            out.println(result.toLine(round));
        }
        out.printf(Locale.ROOT, "bench-round-end transport=%s round=%d seconds=%.1f%n", transport.displayName(), round,
                (System.nanoTime() - start) / 1e9);
        return results;
    }

    private String environmentLine() {
        return String.format(Locale.ROOT, "bench-env transport=%s host=%s java=%s cpus=%d allocator=%s leak_detection=%s"
                        + " sizes=%s warmup_s=%.1f time_s=%.1f receive=%s slot_size=%s", transport.displayName(),
                host.getHostAddress(),
                System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(),
                ByteBufAllocator.DEFAULT.getClass().getSimpleName(),
                ResourceLeakDetector.getLevel().name().toLowerCase(Locale.ROOT),
                Arrays.stream(sizes).mapToObj(Integer::toString).collect(Collectors.joining(",")),
                warmupNanos / 1e9, measureNanos / 1e9, receiveInPlace ? "in-place" : "copy",
                slotSize == 0 ? "default" : Integer.toString(slotSize));
    }

    /** The RDMA loops' polling, for the ready line: busy polling's budget, else the adaptive bound. */
    static String loopPolling(RdmaIoHandlerConfig loops) {
        return loops.getBusyPollMicros() > 0 ? " busy_poll_us=" + loops.getBusyPollMicros()
                : " adaptive_poll_us=" + loops.getAdaptivePollMicros();
    }

    private static String row(Result result) {
        Result.Stream s = result.stream();
        Result.RoundTrip r = result.roundTrip();
        String line = String.format(Locale.ROOT, "%8d | %9s %9s %11s %12s | %8s %8s %8s %9s %10s | %s",
                result.size(), s == null ? "-" : fixed(s.mibPerSecond(), 2), s == null ? "-" : fixed(s.cpuMillisPerMib(), 1),
                s == null ? "-" : fixed(s.allocatedBytesPerMessage(), 1),
                s == null ? "-" : fixed(s.copiedBytesPerMessage(), 1),
                r == null ? "-" : fixed(r.p50Micros(), 1), r == null ? "-" : fixed(r.p99Micros(), 1),
                r == null ? "-" : fixed(r.p999Micros(), 1), r == null ? "-" : fixed(r.cpuMicrosPerRoundTrip(), 1),
                r == null ? "-" : fixed(r.allocatedBytesPerRoundTrip(), 1),
                s == null || s.registeredBytesPerChannel() < 0 ? "-" : s.registeredBytesPerChannel() + " B");
        return result.error() == null ? line : line + "\n         error: " + result.error();
    }

    private static String fixed(double value, int decimals) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    private static void shutDown(EventLoopGroup group) throws InterruptedException {
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    private static void pause(long nanos) throws InterruptedException {
        TimeUnit.NANOSECONDS.sleep(nanos);
    }

    /** The servers, the meter and the connections of one run. Used by the benchmark's thread only. */
    private final class Rig {
        private final EventLoopGroup clientGroup;
        private final LoopMeter meter;
        private final BlockingQueue<Sink> sinks = new LinkedBlockingQueue<>();
        private final BlockingQueue<Echo> echoes = new LinkedBlockingQueue<>();
        private final Channel sinkServer;
        private final Channel echoServer;

        Rig(EventLoopGroup serverGroup, EventLoopGroup clientGroup) throws Exception {
            this.clientGroup = clientGroup;
            meter = LoopMeter.of(serverGroup, clientGroup);
            sinkServer = bind(serverGroup, new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel ch) {
                    Sink sink = new Sink();
                    ch.pipeline().addLast(sink);
                    sinks.add(sink);
                }
            });
            echoServer = bind(serverGroup, new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel ch) {
                    Echo echo = new Echo();
                    ch.pipeline().addLast(echo);
                    echoes.add(echo);
                }
            });
        }

        private Channel bind(EventLoopGroup group, ChannelHandler childHandler) throws InterruptedException {
            ServerBootstrap bootstrap = new ServerBootstrap();
            if (receiveInPlace && transport.isRdma()) {
                bootstrap.childOption(RdmaChannelOption.RECEIVE_IN_PLACE, true);
            }
            if (slotSize > 0 && transport.isRdma()) {
                bootstrap.childOption(RdmaChannelOption.SLOT_SIZE, slotSize);
            }
            return bootstrap
                    .group(group)
                    .channel(transport.serverSocketChannelClass())
                    .childHandler(childHandler)
                    .bind(new InetSocketAddress(host, 0)).sync().channel();
        }

        /** Runs both phases; returns their figures, or, with {@code window} 0, only runs them (a warm-up). */
        Result measure(int size, long settle, long window) throws InterruptedException {
            List<String> errors = new ArrayList<>();
            Result.Stream stream = null;
            Result.RoundTrip roundTrip = null;
            try {
                stream = stream(size, settle, window);
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                errors.add("stream: " + describe(e));
            }
            try {
                roundTrip = roundTrip(size, settle, window);
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                errors.add("round trip: " + describe(e));
            }
            return new Result(transport.displayName(), size, stream, roundTrip,
                    errors.isEmpty() ? null : String.join("; ", errors));
        }

        private Result.Stream stream(int size, long settle, long window) throws IOException, InterruptedException {
            sinks.clear();
            Streamer streamer = new Streamer(size);
            Channel client = connect(sinkServer.localAddress(), streamer);
            Sink sink = null;
            Result.Stream figures;
            try {
                sink = sinks.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                if (sink == null) {
                    throw new IOException("the server accepted no connection in " + TIMEOUT_SECONDS + " s");
                }
                pause(settle);
                long stallsAtStart = creditStalls(client);
                long copiedAtStart = copiedBytes(client, sink.channel());
                LoopMeter.Sample start = meter.sample(sink.bytes());
                pause(window);
                LoopMeter.Sample end = meter.sample(sink.bytes());
                long stalls = stallsAtStart < 0 ? -1 : creditStalls(client) - stallsAtStart;
                long copied = copiedAtStart < 0 ? -1 : copiedBytes(client, sink.channel()) - copiedAtStart;
                long registered = registeredBytes();
                checkHealthy(client, streamer.failure(), sink.failure());
                if (end.count() == 0) {
                    throw new IOException("no byte arrived: the connection is stuck");
                }
                figures = window == 0 ? null : streamFigures(size, start, end, registered, stalls, copied);
            } catch (IOException | InterruptedException | RuntimeException e) {
                streamer.stop();
                closeQuietly(client, sink == null ? null : sink.channel());
                throw e;
            }
            streamer.stop();
            close(client, sink.channel());
            return figures;
        }

        /**
         * Returns the {@code bench-idle} line of {@code round}: the CPU the two event loops used, each as a
         * share of a core, while a connection that has just echoed for a second sits idle for {@code idleNanos}.
         */
        String idle(long idleNanos, int round) throws InterruptedException {
            echoes.clear();
            PingPong pingPong = new PingPong(IDLE_MESSAGE);
            Channel client = null;
            Echo echo = null;
            try {
                client = connect(echoServer.localAddress(), pingPong);
                echo = echoes.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                if (echo == null) {
                    throw new IOException("the server accepted no connection in " + TIMEOUT_SECONDS + " s");
                }
                pause(TimeUnit.SECONDS.toNanos(1));
                onLoop(client, pingPong::stop);
                // What was in flight arrives, and the loops' polls after it run out.
                pause(TimeUnit.SECONDS.toNanos(1));
                LoopMeter.Sample start = meter.sample(0);
                pause(idleNanos);
                LoopMeter.Sample end = meter.sample(0);
                checkHealthy(client, pingPong.failure(), echo.failure());
                double share = (end.loopCpuNanos() - start.loopCpuNanos()) / (end.secondsSince(start) * 1e9)
                        / meter.threads();
                close(client, echo.channel());
                return String.format(Locale.ROOT, "bench-idle transport=%s round=%d seconds=%.1f loops=%d"
                        + " loop_cpu_pct=%.3f", transport.displayName(), round, end.secondsSince(start), meter.threads(),
                        100 * share);
            } catch (IOException | InterruptedException | ExecutionException | TimeoutException
                     | RuntimeException e) {
                if (client != null) {
                    closeQuietly(client, echo == null ? null : echo.channel());
                }
                return "bench-idle transport=" + transport.displayName() + " round=" + round + " error=" + e;
            }
        }

        private Result.RoundTrip roundTrip(int size, long settle, long window)
                throws IOException, InterruptedException, ExecutionException, TimeoutException {
            echoes.clear();
            PingPong pingPong = new PingPong(size);
            Channel client = connect(echoServer.localAddress(), pingPong);
            Echo echo = null;
            Result.RoundTrip figures;
            try {
                echo = echoes.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                if (echo == null) {
                    throw new IOException("the server accepted no connection in " + TIMEOUT_SECONDS + " s");
                }
                pause(settle);
                checkHealthy(client, pingPong.failure(), echo.failure());
                // A warm-up (no window) asks whether the settling time saw a round trip: after the reset
                // below, one of 64 KiB may still be on its way when the count is read.
                long settled = pingPong.roundTrips();
                onLoop(client, () -> {
                    pingPong.reset();
                    return null;
                });
                LoopMeter.Sample start = meter.sample(0);
                long[] loopsAtStart = loopCounts(client, echo.channel());
                pause(window);
                LoopMeter.Sample end = meter.sample(pingPong.roundTrips());
                long[] loopsAtEnd = loopCounts(client, echo.channel());
                Histogram histogram = onLoop(client, pingPong::stop);
                checkHealthy(client, pingPong.failure(), echo.failure());
                if (window > 0) {
                    figures = roundTripFigures(start, end, histogram, loopsAtStart, loopsAtEnd);
                } else if (settled == 0) {
                    throw new IOException("no round trip completed in " + TimeUnit.NANOSECONDS.toMillis(settle)
                            + " ms: the connection is stuck");
                } else {
                    figures = null;
                }
            } catch (IOException | InterruptedException | ExecutionException | TimeoutException
                     | RuntimeException e) {
                closeQuietly(client, echo == null ? null : echo.channel());
                throw e;
            }
            close(client, echo.channel());
            return figures;
        }

        private Result.Stream streamFigures(int size, LoopMeter.Sample start, LoopMeter.Sample end, long registered,
                                            long creditStalls, long copied) throws IOException {
            long bytes = end.countSince(start);
            if (bytes <= 0) {
                throw new IOException("no byte arrived in the measured time: the connection is stuck");
            }
            double mib = bytes / MIB;
            double messages = bytes / (double) size;
            // Both channels of the one open connection are in this process.
            return new Result.Stream(mib / end.secondsSince(start), (long) messages,
                    end.cpuNanosSince(start) / 1e6 / mib, end.allocatedBytesSince(start) / messages,
                    registered < 0 ? -1 : registered / 2, end.loopKernelShareSince(start), creditStalls,
                    copied < 0 ? Double.NaN : copied / messages);
        }

        private Result.RoundTrip roundTripFigures(LoopMeter.Sample start, LoopMeter.Sample end, Histogram histogram,
                                                  long[] loopsAtStart, long[] loopsAtEnd) throws IOException {
            long roundTrips = end.countSince(start);
            if (roundTrips <= 0) {
                throw new IOException("no round trip completed in the measured time: the connection is stuck");
            }
            double wakeUps = Double.NaN;
            double completions = Double.NaN;
            if (loopsAtStart != null && loopsAtEnd != null) {
                wakeUps = (loopsAtEnd[0] - loopsAtStart[0]) / (double) roundTrips;
                completions = (loopsAtEnd[1] - loopsAtStart[1]) / (double) roundTrips;
            }
            return new Result.RoundTrip(roundTrips, micros(histogram.getValueAtPercentile(50)),
                    micros(histogram.getValueAtPercentile(99)), micros(histogram.getValueAtPercentile(99.9)),
                    end.cpuNanosSince(start) / 1e3 / roundTrips, end.allocatedBytesSince(start) / roundTrips,
                    wakeUps, completions);
        }

        /**
         * Returns the bytes the connection copied so far: the writer's into registered memory before
         * sending, and the reader's out of receive memory before its pipeline read them; -1 for TCP.
         */
        private long copiedBytes(Channel writer, Channel reader) {
            return writer instanceof RdmaSocketChannel rdmaWriter && reader instanceof RdmaSocketChannel rdmaReader
                    ? rdmaWriter.metrics().copiedBytes() + rdmaReader.metrics().receiveCopiedBytes() : -1;
        }

        /** Returns the writer's credit stalls so far, or -1 for TCP. */
        private long creditStalls(Channel writer) {
            return writer instanceof RdmaSocketChannel rdma ? rdma.metrics().creditStalls() : -1;
        }

        /**
         * Returns the wake-ups and completions of the client's and the server's event loops together
         * (each connection end has a loop of its own), or {@code null} for TCP.
         */
        private long[] loopCounts(Channel client, Channel server) {
            if (!(client instanceof RdmaSocketChannel) || !(server instanceof RdmaSocketChannel)) {
                return null;
            }
            RdmaLoopMetrics a = ((RdmaSocketChannel) client).loopMetrics();
            RdmaLoopMetrics b = ((RdmaSocketChannel) server).loopMetrics();
            return new long[] {a.wakeUps() + b.wakeUps(), a.completions() + b.completions()};
        }

        private Channel connect(SocketAddress address, ChannelHandler handler) throws IOException, InterruptedException {
            Bootstrap bootstrap = new Bootstrap();
            if (receiveInPlace && transport.isRdma()) {
                bootstrap.option(RdmaChannelOption.RECEIVE_IN_PLACE, true);
            }
            if (slotSize > 0 && transport.isRdma()) {
                bootstrap.option(RdmaChannelOption.SLOT_SIZE, slotSize);
            }
            ChannelFuture connect = bootstrap
                    .group(clientGroup)
                    .channel(transport.socketChannelClass())
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS))
                    .handler(handler)
                    .connect(address);
            if (!connect.await(TIMEOUT_SECONDS + 5, TimeUnit.SECONDS)) {
                connect.channel().close();
                throw new IOException("connect to " + address + " did not complete in " + TIMEOUT_SECONDS + " s");
            }
            if (!connect.isSuccess()) {
                throw new IOException("connect to " + address + " failed", connect.cause());
            }
            return connect.channel();
        }

        private <T> T onLoop(Channel channel, Callable<T> task)
                throws InterruptedException, ExecutionException, TimeoutException {
            return channel.eventLoop().submit(task).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }

        /** Closes the client and waits until the server's end closed too, so that nothing lingers. */
        private void close(Channel client, Channel serverChild) throws IOException, InterruptedException {
            boolean closed = client.close().await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            closed &= serverChild.closeFuture().await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (!closed) {
                throw new IOException("the connection did not close in " + TIMEOUT_SECONDS + " s");
            }
        }

        private void closeQuietly(Channel client, Channel serverChild) throws InterruptedException {
            client.close().await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (serverChild != null) {
                serverChild.close().await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            }
        }

        void close() throws InterruptedException {
            sinkServer.close().await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            echoServer.close().await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }

        private long registeredBytes() {
            return transport.isRdma() ? registeredBufferBytes() : -1;
        }
    }

    private static void checkHealthy(Channel client, Throwable... failures) throws IOException {
        for (Throwable failure : failures) {
            if (failure != null) {
                throw new IOException("a channel failed", failure);
            }
        }
        if (!client.isActive()) {
            throw new IOException("the connection closed");
        }
    }

    static double micros(long nanos) {
        return nanos / 1e3;
    }

    /** Returns the message of {@code t} followed by its causes'. */
    static String describe(Throwable t) {
        StringBuilder text = new StringBuilder(String.valueOf(t.getMessage()));
        for (Throwable cause = t.getCause(); cause != null; cause = cause.getCause()) {
            text.append(": ").append(cause);
        }
        return text.toString();
    }
}
