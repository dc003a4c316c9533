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
import java.util.Locale;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;

/**
 * The floor under {@link TransportBenchmark}'s round trip: the same ping-pong of one message, in plain
 * Java on DiSNI's verbs, with no Netty, no pipeline and no protocol of the transport's. One process holds
 * a server end ({@link VerbsEcho}, a thread of its own) and a client end (the calling thread), connected
 * over RDMA CM as an RC queue pair pair. The client posts a Send, polls its CQ until the answer's receive
 * completes, records the time in an HdrHistogram, posts the receive again, and sends the next; the server
 * answers each message with a Send. With {@code --wait busypoll} (the default) both ends poll their CQ
 * without a pause, as perftest's {@code ib_send_lat} and the {@code rdma-busypoll} transport do; with
 * {@code --wait events} both arm the CQ and sleep on its completion channel when it is empty, as the
 * {@code rdma} transport's event loop does.
 *
 * <p>With {@code --send-slot BYTES} (the Send floor, {@code java-verbs-send}), a message goes as
 * {@code ceil(size / BYTES)} Sends of at most {@code BYTES}, posted as one chain, into receives of
 * {@code BYTES}, as the transport's message goes in Sends of at most its {@code SLOT_SIZE} where the
 * connection has no ring (on rxe, every message); the answer arrives when its last Send's receive
 * completes. Without it, a message is one Send of its size.
 *
 * <p>For every size, on a connection of its own: rounds of {@code --warmup} seconds of round trips not
 * counted, until the JIT compiler is quiet ({@link JitWarmUp}). Then, for each measured round
 * ({@code --rounds}), every size on a new connection: one settling second, then {@code --time} seconds
 * measured. The round trip is timed as {@link PingPong} times it: from before the Send is posted until its
 * answer's completion is polled. Each round prints a table, then one
 * {@code bench transport=java-verbs ... round=N ...} line per size ({@link Result#toLine(int)}, round-trip
 * fields only) for {@link BenchmarkReport}. {@code scripts/demo} runs it in the rxe VM in rounds with the
 * transports; {@code docs/benchmark.md} reads the figures.
 *
 * <pre>
 * java ... org.nettyrdma.benchmark.VerbsPingPong --host 10.77.0.1 --sizes 64 --warmup 4 --time 4
 * java ... org.nettyrdma.benchmark.VerbsPingPong --host 10.77.0.1 --sizes 64k --send-slot 8k
 * </pre>
 */
public final class VerbsPingPong extends AbstractVerbsBenchmark {

    /** The name of the figures with both ends busy polling. */
    public static final String BUSY_POLL = "java-verbs";
    /** The name of the figures with both ends waiting on the completion channel. */
    public static final String EVENTS = "java-verbs-events";
    /** The name of the Send floor's figures ({@code --send-slot}) with both ends busy polling. */
    public static final String SEND_BUSY_POLL = "java-verbs-send";
    /** The name of the Send floor's figures ({@code --send-slot}) with both ends waiting on the completion channel. */
    public static final String SEND_EVENTS = "java-verbs-send-events";

    /** Longer round trips are recorded as this: the histogram never resizes, so never allocates. */
    private static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(60);

    /**
     * Creates a ping-pong between two ends on {@code host} for each of {@code sizes}, busy polling or
     * waiting for events, with the seconds of warm-up and of measurement per size.
     */
    public VerbsPingPong(InetAddress host, int[] sizes, boolean waitForEvents, double warmupSeconds,
                         double measureSeconds) {
        this(host, sizes, waitForEvents, OptionalInt.empty(), warmupSeconds, measureSeconds);
    }

    /**
     * Creates a ping-pong as the other constructor does, whose messages go in Sends of at most
     * {@code sendSlot} bytes if present: {@value VerbsPeer#MAX_PARTS} of them at most.
     */
    public VerbsPingPong(InetAddress host, int[] sizes, boolean waitForEvents, OptionalInt sendSlot,
                         double warmupSeconds, double measureSeconds) {
        super(host, sizes, sendSlot.isPresent() ? (int) Math.min(Integer.MAX_VALUE,
                (long) sendSlot.getAsInt() * VerbsPeer.MAX_PARTS) : Integer.MAX_VALUE, waitForEvents, sendSlot,
                warmupSeconds, measureSeconds);
    }

    /** Runs the ping-pong; exits with status 1 if a size failed, 3 if the deadline passed. */
    public static void main(String[] args) throws Exception {
        main("VerbsPingPong", args, VerbsPingPong::new);
    }

    @Override
    void printTitle(PrintStream out) {
        out.printf(Locale.ROOT, "%s: one message ping-ponged between two RC queue pairs on %s%s, no Netty; both ends"
                + " %s%n", name(), host.getHostAddress(), sendSlot.isPresent() ? ", in Sends of at most "
                + sendSlot.getAsInt() + " B" : "", waiting());
    }

    @Override
    void printColumns(PrintStream out) {
        out.printf("%8s | %8s %8s %8s %11s %9s %10s%n", "bytes", "p50 us", "p99 us", "p99.9 us", "round trips",
                "CPU us/rt", "alloc B/rt");
    }

    @Override
    String row(int size, Result result) {
        Result.RoundTrip r = result.roundTrip();
        return String.format(Locale.ROOT, "%8d | %8.1f %8.1f %8.1f %11d %9.1f %10.1f", size, r.p50Micros(),
                r.p99Micros(), r.p999Micros(), r.roundTrips(), r.cpuMicrosPerRoundTrip(),
                r.allocatedBytesPerRoundTrip());
    }

    @Override
    Result measure(int size, boolean warmUp, PrintStream out) throws IOException, InterruptedException {
        int slotSize = sendSlot.orElse(size);
        Result.RoundTrip figures = connection(listener -> new VerbsEcho(listener, size, slotSize, waitForEvents),
                "verbs-echo", "server end",
                (server, echo, echoThread) -> clientEnd(server, echoThread, size, slotSize, warmUp, out));
        return new Result(name(), size, null, figures, null);
    }

    /** Connects the client end to {@code server}, ping-pongs, and stops the server end. */
    private Result.RoundTrip clientEnd(InetSocketAddress server, Thread echoThread, int size, int slotSize,
                                       boolean warmUp, PrintStream out) throws IOException {
        try (VerbsPeer client = VerbsPeer.connect(server, size, slotSize, waitForEvents)) {
            Result.RoundTrip figures = pingPong(client, echoThread, warmUp, out);
            stop(client);
            return figures;
        }
    }

    /**
     * With {@code warmUp}, warms up and returns {@code null}; else settles, then measures, and returns the
     * measured window's figures.
     */
    private Result.RoundTrip pingPong(VerbsPeer client, Thread server, boolean warmUp, PrintStream out)
            throws IOException {
        Histogram histogram = new Histogram(HIGHEST_NANOS, 3);
        if (warmUp) {
            // The same rule as the transports' warm-up, though this loop needs far less compiling.
            JitWarmUp.untilQuiet(() -> roundTrips(client, warmupNanos, histogram), out);
            return null;
        }
        roundTrips(client, settleNanos, histogram);
        histogram.reset();
        LoopMeter meter = LoopMeter.of(Thread.currentThread(), server);
        LoopMeter.Sample start = meter.sample(0);
        long roundTrips = roundTrips(client, measureNanos, histogram);
        LoopMeter.Sample end = meter.sample(roundTrips);
        return new Result.RoundTrip(roundTrips, percentile(histogram, 50), percentile(histogram, 99),
                percentile(histogram, 99.9), end.cpuNanosSince(start) / 1e3 / roundTrips,
                meter.workAllocatedBytes(start, end) / roundTrips, Double.NaN, Double.NaN);
    }

    private static double percentile(Histogram histogram, double percentile) {
        return TransportBenchmark.micros(histogram.getValueAtPercentile(percentile));
    }

    /** Ping-pongs for {@code nanos}, recording every round trip; returns how many there were. */
    private static long roundTrips(VerbsPeer client, long nanos, Histogram histogram) throws IOException {
        long roundTrips = 0;
        long end = System.nanoTime() + nanos;
        long answeredAt;
        do {
            long sentAt = System.nanoTime();
            client.send(VerbsPeer.PING);
            int slot = client.awaitReceive();
            answeredAt = System.nanoTime();
            client.repostReceive(slot);
            histogram.recordValue(Math.min(answeredAt - sentAt, HIGHEST_NANOS));
            roundTrips++;
        } while (answeredAt - end < 0);
        return roundTrips;
    }

    /** Sends {@link VerbsPeer#STOP} and waits for its answer: then the server end is closing too. */
    private static void stop(VerbsPeer client) throws IOException {
        client.send(VerbsPeer.STOP);
        byte answer = client.kind(client.awaitReceive());
        if (answer != VerbsPeer.STOP) {
            throw new IOException("the server end answered the stop with a message of kind " + answer);
        }
    }
}
