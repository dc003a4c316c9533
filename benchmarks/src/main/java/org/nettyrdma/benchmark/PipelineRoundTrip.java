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
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalIoHandler;
import io.netty.channel.local.LocalServerChannel;
import io.netty.util.ResourceLeakDetector;
import org.HdrHistogram.Histogram;
import org.nettyrdma.example.ExampleOptions;

/**
 * What Netty's own pipeline costs in {@link TransportBenchmark}'s round trip, with no transport under it:
 * the same {@link PingPong} and {@link Echo} over Netty's {@code LocalChannel}, both ends on one event
 * loop, so that a round trip is the two pipelines' work (a buffer from the allocator, the reads, the
 * writes, the flushes, the outbound buffers) and the local channel's hand-over, nothing else: about
 * what any Netty transport's pipeline adds to the floor of its device, before the transport's own work.
 *
 * <p>With {@code --kernel-work udp} each end, on every read, first sends a datagram to itself over the
 * loopback interface and reads it back: kernel work between the pipelines' turns on the same core, as a
 * transport's {@code ibv_post_send} puts rxe's work there. The figure less the datagrams' own cost (printed
 * too, measured alone) is what the same Java costs once kernel work ran in between, which can be more
 * where the kernel evicts what the Java code had cached (under an emulator such as the rxe VM's TCG, its
 * translated code and TLB). {@code docs/benchmark.md} reads the figures.
 *
 * <pre>
 * java ... org.nettyrdma.benchmark.PipelineRoundTrip --sizes 64 --warmup 4 --time 4 --kernel-work udp
 * </pre>
 */
public final class PipelineRoundTrip {

    /** The name of the figures (the {@code transport} field of its {@code bench} lines). */
    public static final String NAME = "netty-local";

    private static final String USAGE = "usage: PipelineRoundTrip [--sizes 64] [--warmup SECONDS, default 3] "
            + "[--time SECONDS, default 3] [--kernel-work none|udp]";
    private static final long TIMEOUT_SECONDS = 20;
    private static final long SETTLE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final int[] sizes;
    private final long warmupNanos;
    private final long measureNanos;
    private final boolean kernelWork;

    /**
     * Creates the measurement for each of {@code sizes}, with the seconds of warm-up and of measurement
     * per size, and with or without a datagram to itself on every read.
     */
    public PipelineRoundTrip(int[] sizes, double warmupSeconds, double measureSeconds, boolean kernelWork) {
        this.sizes = sizes.clone();
        this.warmupNanos = (long) (warmupSeconds * 1e9);
        this.measureNanos = (long) (measureSeconds * 1e9);
        this.kernelWork = kernelWork;
    }

    /** Runs the measurement; exits with status 1 if a size failed. */
    public static void main(String[] args) throws Exception {
        ExampleOptions options = ExampleOptions.parse(USAGE, args);
        int[] sizes = options.integers("sizes", 64);
        double warmup = options.seconds("warmup", 3);
        double time = options.seconds("time", 3);
        String work = options.string("kernel-work", "none");
        options.checkAllRead();
        if (!work.equals("none") && !work.equals("udp")) {
            throw new IllegalArgumentException("--kernel-work: " + work + " (expected: none or udp)\n" + USAGE);
        }
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
        List<Result> results = new PipelineRoundTrip(sizes, warmup, time, work.equals("udp")).run(System.out);
        for (Result result : results) {
            System.out.println(result.toLine());
        }
        System.exit(results.stream().anyMatch(result -> result.error() != null) ? 1 : 0);
    }

    /** Measures every size, printing a row as each finishes, and returns the results. */
    public List<Result> run(PrintStream out) throws Exception {
        String name = kernelWork ? NAME + "+udp" : NAME;
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, LocalIoHandler.newFactory());
        try (KernelWork work = kernelWork ? new KernelWork() : null) {
            LocalAddress address = new LocalAddress(PipelineRoundTrip.class);
            Channel server = new ServerBootstrap().group(group).channel(LocalServerChannel.class)
                    .childHandler(pipeline(work, Echo::new)).bind(address).sync().channel();
            LoopMeter meter = LoopMeter.of(group);
            try {
                out.printf(Locale.ROOT, "%s: PingPong and Echo over LocalChannel on one event loop%s%n", name,
                        kernelWork ? ", a datagram to itself over lo on every read" : "");
                JitWarmUp.untilQuiet(() -> {
                    for (int size : sizes) {
                        roundTrips(group, address, work, size, meter, warmupNanos, name);
                    }
                }, out);
                if (work != null) {
                    out.printf(Locale.ROOT, "the datagram alone, sent and received %d times in a row: %.2f us each%n",
                            KernelWork.ALONE, work.costMicros());
                }
                out.printf("%8s | %8s %8s %8s %9s %10s%n", "bytes", "p50 us", "p99 us", "p99.9 us", "CPU us/rt",
                        "alloc B/rt");
                List<Result> results = new ArrayList<>();
                for (int size : sizes) {
                    Result result = roundTrips(group, address, work, size, meter, measureNanos, name);
                    results.add(result);
                    Result.RoundTrip r = result.roundTrip();
                    out.println(r == null ? String.format(Locale.ROOT, "%8d | error: %s", size, result.error())
                            : String.format(Locale.ROOT, "%8d | %8.2f %8.2f %8.2f %9.2f %10.1f", size, r.p50Micros(),
                            r.p99Micros(), r.p999Micros(), r.cpuMicrosPerRoundTrip(), r.allocatedBytesPerRoundTrip()));
                }
                return results;
            } finally {
                server.close().sync();
            }
        } finally {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
    }

    private static ChannelHandler pipeline(KernelWork work, Supplier<ChannelHandler> handler) {
        return new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                if (work != null) {
                    ch.pipeline().addLast(work.handler());
                }
                ch.pipeline().addLast(handler.get());
            }
        };
    }

    private static Result roundTrips(EventLoopGroup group, LocalAddress address, KernelWork work, int size,
                                     LoopMeter meter, long nanos, String name) throws Exception {
        PingPong pingPong = new PingPong(size);
        Channel client = new Bootstrap().group(group).channel(LocalChannel.class)
                .handler(pipeline(work, () -> pingPong)).connect(address).sync().channel();
        try {
            // The connection's first round trips (the loop's first turns for it) are not measured.
            TimeUnit.NANOSECONDS.sleep(Math.min(nanos, SETTLE_NANOS));
            client.eventLoop().submit(pingPong::reset).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            LoopMeter.Sample start = meter.sample(0);
            TimeUnit.NANOSECONDS.sleep(nanos);
            LoopMeter.Sample end = meter.sample(pingPong.roundTrips());
            Histogram histogram = client.eventLoop().submit(pingPong::stop).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            long count = end.countSince(start);
            if (pingPong.failure() != null || count <= 0) {
                return new Result(name, size, null, null, pingPong.failure() != null
                        ? String.valueOf(pingPong.failure()) : "no round trip completed");
            }
            return new Result(name, size, null, new Result.RoundTrip(count,
                    histogram.getValueAtPercentile(50) / 1e3, histogram.getValueAtPercentile(99) / 1e3,
                    histogram.getValueAtPercentile(99.9) / 1e3, end.cpuNanosSince(start) / 1e3 / count,
                    end.allocatedBytesSince(start) / count, Double.NaN, Double.NaN), null);
        } finally {
            client.close().sync();
        }
    }

    /** A datagram of 64 B to itself over the loopback interface, sent and read back on the event loop. */
    private static final class KernelWork implements AutoCloseable {
        private final DatagramChannel udp;
        private final ByteBuffer datagram = ByteBuffer.allocateDirect(64);
        private final ByteBuffer received = ByteBuffer.allocateDirect(2048);

        KernelWork() throws IOException {
            udp = DatagramChannel.open();
            udp.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            udp.connect(udp.getLocalAddress());
        }

        void run() {
            try {
                datagram.clear();
                udp.write(datagram);
                received.clear();
                udp.read(received);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Datagrams {@link #costMicros()} sends in a row. */
        static final int ALONE = 100_000;

        /** Returns what one datagram costs with nothing in between, in microseconds, on the calling thread. */
        double costMicros() {
            long start = System.nanoTime();
            for (int i = 0; i < ALONE; i++) {
                run();
            }
            return (System.nanoTime() - start) / 1e3 / ALONE;
        }

        ChannelHandler handler() {
            return new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    run();
                    ctx.fireChannelRead(msg);
                }
            };
        }

        @Override
        public void close() throws IOException {
            udp.close();
        }
    }
}
