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

/**
 * The floor under {@link TransportBenchmark}'s stream: one connection writing messages of one size one way,
 * in plain Java on DiSNI's verbs, with no Netty, no pipeline and no protocol of the transport's. One process
 * holds a receiving end ({@link VerbsWriteSink}, a thread of its own) and a writing end
 * ({@link VerbsWriter}, the calling thread), connected over RDMA CM as an RC queue pair pair. The receiving
 * end registers a ring of 1 MiB, the transport's default, and sends its address; the writer posts RDMA
 * Writes with immediate into consecutive positions of it, at most {@code min(1 MiB / size, 1024, 128)} in
 * flight, and the receiving end counts each as its receive completes and returns credit every quarter of
 * the ring, so that no write overwrites one not yet counted. With {@code --wait busypoll} (the default)
 * both ends poll their CQ without a pause, as perftest's {@code ib_write_bw} does; with
 * {@code --wait events} both sleep on their completion channel when there is nothing to do, as the
 * {@code rdma} transport's event loop does.
 *
 * <p>With {@code --send-slot BYTES} (the Send floor, {@code java-verbs-send}) the data goes by Sends
 * instead, as the transport's does where a connection has no ring (on rxe, all of it): the receiving end
 * ({@link VerbsSendSink}) posts a receive into each of {@value VerbsSendSink#CREDIT} slots of {@code BYTES},
 * the transport's default credit, and the sending end ({@link VerbsSender}) posts Sends of
 * {@code min(size, BYTES)} bytes, one per receive it has credit for, at most 64 in flight; credit comes back
 * every quarter of the slots, so no Send ever finds no receive posted. Messages are counted as the bytes
 * that arrived over the size. Set against perftest's {@code ib_send_bw} as the Write floor is set against
 * {@code ib_write_bw}.
 *
 * <p>For every size, on a connection of its own: {@code --warmup} seconds of writes not counted (in rounds
 * until the JIT compiler is quiet, {@link JitWarmUp}). Then, for each measured round ({@code --rounds}),
 * every size on a new connection: one settling second, then {@code --time} seconds measured, the stream
 * running on throughout. Throughput counts the bytes that arrived at the receiving end, in MB (2^20
 * bytes) per second, and CPU time is the whole process's, as {@link TransportBenchmark} counts them. Each
 * round prints a table, then one {@code bench transport=java-verbs ... round=N ...} line per size
 * ({@link Result#toLine(int)}, stream fields only) for {@link BenchmarkReport}, which puts it next to
 * {@link VerbsPingPong}'s round trip of the same name and round. {@code scripts/demo} runs it in the rxe
 * VM in rounds with the transports.
 *
 * <pre>
 * java ... org.nettyrdma.benchmark.VerbsWriteStream --host 10.77.0.1 --sizes 64k --warmup 4 --time 4
 * java ... org.nettyrdma.benchmark.VerbsWriteStream --host 10.77.0.1 --sizes 4k,64k --send-slot 8k
 * </pre>
 */
public final class VerbsWriteStream extends AbstractVerbsBenchmark {

    private static final double MIB = 1 << 20;

    /**
     * Creates a stream between two ends on {@code host} for each of {@code sizes} (1 byte to the ring's
     * 1 MiB), busy polling or waiting for events, with the seconds of warm-up and of measurement per size.
     */
    public VerbsWriteStream(InetAddress host, int[] sizes, boolean waitForEvents, double warmupSeconds,
                            double measureSeconds) {
        this(host, sizes, waitForEvents, OptionalInt.empty(), warmupSeconds, measureSeconds);
    }

    /**
     * Creates a stream as the other constructor does, by Sends of at most {@code sendSlot} bytes if present
     * (then a size has no bound but the integers').
     */
    public VerbsWriteStream(InetAddress host, int[] sizes, boolean waitForEvents, OptionalInt sendSlot,
                            double warmupSeconds, double measureSeconds) {
        super(host, sizes, sendSlot.isPresent() ? Integer.MAX_VALUE : VerbsWriteSink.RING_BYTES, waitForEvents,
                sendSlot, warmupSeconds, measureSeconds);
    }

    /** Runs the stream; exits with status 1 if a size failed, 3 if the deadline passed. */
    public static void main(String[] args) throws Exception {
        main("VerbsWriteStream", args, VerbsWriteStream::new);
    }

    @Override
    void printTitle(PrintStream out) {
        String verb = sendSlot.isPresent() ? String.format(Locale.ROOT, "Sends of at most %d B into %d receive slots"
                + " of as many bytes", sendSlot.getAsInt(), VerbsSendSink.CREDIT) : String.format(Locale.ROOT,
                "RDMA Writes with immediate into a %d KiB ring", VerbsWriteSink.RING_BYTES >> 10);
        out.printf(Locale.ROOT, "%s: %s between two RC queue pairs on %s, no Netty; both ends %s; MB = 2^20 bytes%n",
                name(), verb, host.getHostAddress(), waiting());
    }

    @Override
    void printColumns(PrintStream out) {
        out.printf("%8s | %9s %9s %11s %8s %9s %9s %8s %13s%n", "bytes", "MB/s", "CPU ms/MB", "alloc B/msg",
                "kernel %", "messages", "in flight", "signal", "credit stalls");
    }

    @Override
    String row(int size, Result result) {
        Result.Stream s = result.stream();
        int credit = sendSlot.isPresent() ? VerbsSendSink.CREDIT : VerbsWriteSink.window(size);
        int inFlight = AbstractVerbsStreamer.maxInFlight(credit);
        return String.format(Locale.ROOT, "%8d | %9.2f %9.1f %11.1f %8.0f %9d %9d %8s %13d", size,
                s.mibPerSecond(), s.cpuMillisPerMib(), s.allocatedBytesPerMessage(), 100 * s.loopKernelShare(),
                s.messages(), inFlight, "1/" + AbstractVerbsStreamer.signalInterval(inFlight), s.creditStalls());
    }

    @Override
    Result measure(int size, boolean warmUp, PrintStream out) throws IOException, InterruptedException {
        Result.Stream figures = connection(listener -> receivingEnd(listener, size),
                sendSlot.isPresent() ? "verbs-send-sink" : "verbs-write-sink", "receiving end",
                (server, sink, sinkThread) -> sendingEnd(server, sink, sinkThread, size, warmUp, out));
        return new Result(name(), size, figures, null, null);
    }

    /** Returns the receiving end of one size's connection: Sends into slots with a send slot, else Writes. */
    private AbstractVerbsSink receivingEnd(VerbsListener listener, int size) {
        return sendSlot.isPresent() ? new VerbsSendSink(listener, sendSlot.getAsInt(), sendBytes(size), waitForEvents)
                : new VerbsWriteSink(listener, size, waitForEvents);
    }

    /** Returns the bytes of one Send with a send slot: a message, or a slot of it where it is larger. */
    private int sendBytes(int size) {
        return Math.min(size, sendSlot.getAsInt());
    }

    /** Connects the sending end to {@code server}, streams, and stops the receiving end. */
    private Result.Stream sendingEnd(InetSocketAddress server, AbstractVerbsSink sink, Thread sinkThread, int size,
                                     boolean warmUp, PrintStream out) throws IOException {
        try (AbstractVerbsStreamer streamer = sendSlot.isPresent()
                ? VerbsSender.connect(server, sendBytes(size), waitForEvents)
                : VerbsWriter.connect(server, size, waitForEvents)) {
            Result.Stream figures = stream(streamer, sink, sinkThread, size, warmUp, out);
            streamer.stop();
            return figures;
        }
    }

    /**
     * With {@code warmUp}, warms up and returns {@code null}; else settles, then measures, and returns the
     * measured window's figures.
     */
    private Result.Stream stream(AbstractVerbsStreamer writer, AbstractVerbsSink sink, Thread receiver, int size,
                                 boolean warmUp, PrintStream out) throws IOException {
        if (warmUp) {
            JitWarmUp.untilQuiet(() -> writer.stream(warmupNanos), out);
            return null;
        }
        writer.stream(settleNanos);
        LoopMeter meter = LoopMeter.of(Thread.currentThread(), receiver);
        long stallsAtStart = writer.creditStalls();
        LoopMeter.Sample start = meter.sample(sink.bytes());
        writer.stream(measureNanos);
        LoopMeter.Sample end = meter.sample(sink.bytes());
        long bytes = end.countSince(start);
        if (bytes <= 0) {
            throw new IOException("no byte arrived in the measured time: the connection is stuck");
        }
        double mib = bytes / MIB;
        double messages = bytes / (double) size;
        // Registered memory is left out (-1): the two ends register differently, unlike two channels.
        return new Result.Stream(mib / end.secondsSince(start), (long) messages, end.cpuNanosSince(start) / 1e6 / mib,
                meter.workAllocatedBytes(start, end) / messages, -1, end.loopKernelShareSince(start),
                writer.creditStalls() - stallsAtStart, Double.NaN);
    }
}
