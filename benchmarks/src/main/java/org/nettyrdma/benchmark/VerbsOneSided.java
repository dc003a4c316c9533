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
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPostSend;
import org.HdrHistogram.Histogram;
import org.nettyrdma.channel.rdma.internal.NativeLibrary;
import org.nettyrdma.channel.rdma.internal.WorkRequests;
import org.nettyrdma.example.ExampleOptions;

/**
 * The floor under {@link OneSidedBenchmark}'s RDMA Read and fetch-and-add: the same operations, one at a
 * time on one RC queue pair, in plain Java, with no Netty and nothing of the transport but the way it
 * writes a work request ({@link WorkRequests}; DiSNI's own post call writes no atomic fields). One
 * process holds the target end (a thread of its own, which registers a 64 KiB table and an 8-byte word
 * for remote read and atomics, sends their address and key in one Send, and waits for the disconnect)
 * and the initiator (the calling thread), connected over RDMA CM.
 *
 * <p>The initiator posts one signaled request and polls its CQ without a pause until the request
 * completes, as perftest's {@code ib_read_lat} and {@code ib_atomic_lat} do; each operation is timed
 * from before the post until its completion is polled, into an HdrHistogram. Rounds of {@code --warmup}
 * seconds of every phase run until the JIT compiler is quiet ({@link JitWarmUp}); then each of
 * {@code --rounds} rounds measures every phase for {@code --time} seconds, in turn. Each round prints
 * one line per phase, {@code bench transport=java-verbs op=read size=64 round=1 p50_us=... p99_us=...
 * ops=...}; the run ends with each phase's median p50 over the rounds, with their spread. How the transport compares with
 * it and with perftest is in {@code docs/benchmark.md}; run it in the rxe VM
 * ({@code docs/vm-runner.md}).
 *
 * <pre>
 * java ... org.nettyrdma.benchmark.VerbsOneSided --host 10.77.0.1 --sizes 64 --rounds 3
 * </pre>
 */
public final class VerbsOneSided {

    /** The name of the figures: busy polling, as {@link VerbsPingPong#BUSY_POLL}. */
    public static final String NAME = "java-verbs";

    private static final String USAGE = "usage: VerbsOneSided [--host ADDRESS] [--sizes 64 (Read sizes, "
            + "at most 64k)] [--warmup SECONDS, default 4] [--time SECONDS measured, default 4] [--rounds 3]";
    /** As {@link OneSidedGetServer}'s table. */
    private static final int TABLE_SIZE = 64 << 10;
    /** The word after the table: 8-byte aligned, as an atomic needs. */
    private static final int WORD_OFFSET = TABLE_SIZE;
    private static final int EXPOSED_SIZE = TABLE_SIZE + Long.BYTES;
    /** The target's Send: the table's address, then the key. */
    private static final int ADVERT_SIZE = Long.BYTES + Integer.BYTES;
    private static final int ACCESS = IbvMr.IBV_ACCESS_LOCAL_WRITE | IbvMr.IBV_ACCESS_REMOTE_READ
            | IbvMr.IBV_ACCESS_REMOTE_ATOMIC;
    /** One request in flight, and the target's one Send. */
    private static final int QUEUE_DEPTH = 4;
    private static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(60);
    /** A request whose completion takes longer is stuck. */
    private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(20);
    /** Empty polls between two looks at the clock: a clock read costs more than a poll. */
    private static final int POLLS_PER_CLOCK_READ = 1 << 14;

    private VerbsOneSided() {
    }

    /** Runs the phases; exits with status 1 if one failed. */
    public static void main(String[] args) throws Exception {
        ExampleOptions options = ExampleOptions.parse(USAGE, args);
        InetAddress host = InetAddress.getByName(options.host());
        int[] sizes = options.integers("sizes", 64);
        double warmup = options.seconds("warmup", 4);
        double time = options.seconds("time", 4);
        int rounds = options.integer("rounds", 3);
        options.checkAllRead();
        checkSizes(sizes);
        // DiSNI's verbs calls reach the project's libdisni.so only once it is loaded.
        NativeLibrary.ensureLoaded();
        System.exit(run(host, sizes, (long) (warmup * 1e9), (long) (time * 1e9), rounds, System.out) ? 0 : 1);
    }

    /** Refuses a Read size the table cannot serve. */
    static void checkSizes(int[] sizes) {
        for (int size : sizes) {
            if (size < 1 || size > TABLE_SIZE) {
                throw new IllegalArgumentException("--sizes: " + size + " (expected: 1 to " + TABLE_SIZE + ")\n"
                        + USAGE);
            }
        }
    }

    /**
     * Measures every phase in {@code rounds} rounds after the warm-up, printing to {@code out}; returns
     * {@code false} if the target end failed or the word does not hold the number of adds made.
     */
    static boolean run(InetAddress host, int[] sizes, long warmupNanos, long measureNanos, int rounds,
                               PrintStream out) throws Exception {
        out.printf(Locale.ROOT, "%s: RDMA Read and fetch-and-add, one at a time on one RC queue pair on %s, no "
                + "Netty; busy polling%n", NAME, host.getHostAddress());
        try (VerbsListener listener = VerbsListener.listen(host)) {
            // The target waits for the disconnect through the whole run: every warm-up round and every
            // measured one, each of every phase, and a minute of slack.
            long phases = (long) (JitWarmUp.MAX_ROUNDS + rounds) * (sizes.length + 1);
            long bound = phases * TimeUnit.NANOSECONDS.toMillis(Math.max(warmupNanos, measureNanos)) + 60_000;
            Target target = new Target(listener, (int) Math.min(Integer.MAX_VALUE, bound));
            Thread targetThread = new Thread(target, "verbs-one-sided-target");
            targetThread.start();
            Map<String, List<Double>> p50s = new LinkedHashMap<>();
            try (Initiator initiator = Initiator.connect(listener.address(), maxOf(sizes))) {
                Histogram histogram = new Histogram(HIGHEST_NANOS, 3);
                JitWarmUp.untilQuiet(() -> {
                    for (int size : sizes) {
                        initiator.reads(size, warmupNanos, histogram);
                    }
                    initiator.adds(warmupNanos, histogram);
                }, out);
                for (int round = 1; round <= rounds; round++) {
                    for (int size : sizes) {
                        histogram.reset();
                        long ops = initiator.reads(size, measureNanos, histogram);
                        record(out, "read", size, round, ops, histogram, p50s);
                    }
                    histogram.reset();
                    long ops = initiator.adds(measureNanos, histogram);
                    record(out, "fetch-and-add", Long.BYTES, round, ops, histogram, p50s);
                }
                long word = initiator.readWord();
                out.printf(Locale.ROOT, "%s fetch-and-add: the word holds %d after %d adds%n", NAME, word,
                        initiator.addsMade);
                if (word != initiator.addsMade) {
                    out.println("error=the word holds " + word + ", not the " + initiator.addsMade + " adds made");
                    return false;
                }
            } finally {
                targetThread.join(TimeUnit.SECONDS.toMillis(30));
            }
            if (target.failure != null) {
                out.println("error=the target end failed: " + target.failure);
                return false;
            }
            for (Map.Entry<String, List<Double>> phase : p50s.entrySet()) {
                double[] readings = phase.getValue().stream().mapToDouble(Double::doubleValue).toArray();
                out.printf(Locale.ROOT, "%s %s p50 us: %s%n", NAME, phase.getKey(), Spread.of(readings).format(1));
            }
            return true;
        }
    }

    private static void record(PrintStream out, String op, int size, int round, long ops, Histogram histogram,
                               Map<String, List<Double>> p50s) {
        double p50 = TransportBenchmark.micros(histogram.getValueAtPercentile(50));
        double p99 = TransportBenchmark.micros(histogram.getValueAtPercentile(99));
        out.printf(Locale.ROOT, "bench transport=%s op=%s size=%d round=%d p50_us=%.1f p99_us=%.1f ops=%d%n", NAME,
                op, size, round, p50, p99, ops);
        p50s.computeIfAbsent(op + " " + size + " B", k -> new ArrayList<>()).add(p50);
    }

    private static int maxOf(int[] sizes) {
        int max = 0;
        for (int size : sizes) {
            max = Math.max(max, size);
        }
        return max;
    }

    /**
     * The end whose memory is read and added to: registers the table and the word, sends their address
     * and key once the connection is up, and waits until the initiator disconnects, at most
     * {@code runMillis}.
     */
    private static final class Target implements Runnable {
        private final VerbsListener listener;
        private final int runMillis;
        private volatile Throwable failure;

        Target(VerbsListener listener, int runMillis) {
            this.listener = listener;
            this.runMillis = runMillis;
        }

        @Override
        public void run() {
            try (VerbsQueuePair pair = listener.nextRequest(QUEUE_DEPTH, 1, 0, 1)) {
                ByteBuffer exposed = ByteBuffer.allocateDirect(EXPOSED_SIZE + ADVERT_SIZE).order(ByteOrder.nativeOrder());
                IbvMr mr = pair.register(exposed, ACCESS);
                exposed.putLong(EXPOSED_SIZE, mr.getAddr());
                exposed.putInt(EXPOSED_SIZE + Long.BYTES, mr.getRkey());
                IbvSendWR advert = new IbvSendWR();
                advert.setOpcode(IbvSendWR.IBV_WR_SEND);
                advert.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
                advert.setSg_list(VerbsQueuePair.gather(mr, EXPOSED_SIZE, ADVERT_SIZE));
                SVCPostSend send = pair.keep(pair.qp().postSend(List.of(advert), null));
                pair.accept();
                // The initiator posted its receive before it connected: the Send finds it.
                send.execute();
                awaitCompletion(pair);
                pair.awaitDisconnect(runMillis);
            } catch (IOException | RuntimeException e) {
                failure = e;
            }
        }
    }

    /** The end that reads and adds, on the calling thread. */
    private static final class Initiator implements AutoCloseable {
        private final VerbsQueuePair pair;
        private final ByteBuffer buffer;
        private final long qp;
        private final WorkRequests requests = WorkRequests.sends(1);
        /** Where a Read lands. */
        private final long local;
        /** Where an add's old value lands. */
        private final long wordAddress;
        private final int lkey;
        private final long tableAddress;
        private final int rkey;
        private long nextId;
        /** Adds completed, warm-up included: what the word must hold. */
        long addsMade;

        private Initiator(VerbsQueuePair pair, ByteBuffer buffer, long local, long wordAddress, int lkey,
                          long tableAddress, int rkey) {
            this.pair = pair;
            this.buffer = buffer;
            this.qp = Verbs.handle(pair.qp());
            this.local = local;
            this.wordAddress = wordAddress;
            this.lkey = lkey;
            this.tableAddress = tableAddress;
            this.rkey = rkey;
        }

        /** Connects to {@code target} and returns once its address and key arrived. */
        static Initiator connect(InetSocketAddress target, int maxSize) throws IOException {
            VerbsQueuePair pair = VerbsQueuePair.resolve(target, QUEUE_DEPTH, 1, 0, 1);
            try {
                // The destination of Reads, then of the old value of an add, then the target's advert.
                int wordOffset = (maxSize + Long.BYTES - 1) / Long.BYTES * Long.BYTES;
                int advertOffset = wordOffset + Long.BYTES;
                ByteBuffer buffer = ByteBuffer.allocateDirect(advertOffset + ADVERT_SIZE).order(ByteOrder.nativeOrder());
                IbvMr mr = pair.register(buffer, IbvMr.IBV_ACCESS_LOCAL_WRITE);
                pair.postReceives(mr, advertOffset, 1, ADVERT_SIZE);
                pair.connect();
                IbvWC wc = awaitCompletion(pair);
                if (wc.getOpcode() != VerbsQueuePair.WC_RECV) {
                    throw new IOException("expected the target's address, got a completion of opcode " + wc.getOpcode());
                }
                return new Initiator(pair, buffer, mr.getAddr(), mr.getAddr() + wordOffset, mr.getLkey(),
                        buffer.getLong(advertOffset), buffer.getInt(advertOffset + Long.BYTES));
            } catch (IOException | RuntimeException e) {
                pair.close();
                throw e;
            }
        }

        /** Reads {@code size} bytes of the table, one Read at a time, for {@code nanos}; returns how many. */
        long reads(int size, long nanos, Histogram histogram) throws IOException {
            return timed(nanos, histogram, () -> requests.addSend(nextId++, WorkRequests.OPCODE_RDMA_READ,
                    WorkRequests.FLAG_SIGNALED, local, size, lkey, tableAddress, rkey, 0));
        }

        /** Adds 1 to the target's word, one add at a time, for {@code nanos}; returns how many. */
        long adds(long nanos, Histogram histogram) throws IOException {
            long ops = timed(nanos, histogram, () -> requests.addAtomic(nextId++,
                    WorkRequests.OPCODE_ATOMIC_FETCH_AND_ADD, WorkRequests.FLAG_SIGNALED, wordAddress, lkey,
                    tableAddress + WORD_OFFSET, rkey, 1, 0));
            addsMade += ops;
            return ops;
        }

        /**
         * Posts the request {@code append} writes and waits for its completion, again and again for
         * {@code nanos}, recording each from before the post to its polled completion; returns how many.
         */
        private long timed(long nanos, Histogram histogram, Runnable append) throws IOException {
            long ops = 0;
            long end = System.nanoTime() + nanos;
            long doneAt;
            do {
                long postedAt = System.nanoTime();
                append.run();
                requests.post(qp);
                awaitCompletion(pair);
                doneAt = System.nanoTime();
                histogram.recordValue(Math.min(doneAt - postedAt, HIGHEST_NANOS));
                ops++;
            } while (doneAt - end < 0);
            return ops;
        }

        /** Reads the target's word with one Read. */
        long readWord() throws IOException {
            requests.addSend(nextId++, WorkRequests.OPCODE_RDMA_READ, WorkRequests.FLAG_SIGNALED, local, Long.BYTES,
                    lkey, tableAddress + WORD_OFFSET, rkey, 0);
            requests.post(qp);
            awaitCompletion(pair);
            return buffer.getLong(0);
        }

        @Override
        public void close() throws IOException {
            requests.close();
            pair.close();
        }
    }

    /** Polls {@code pair}'s CQ without a pause until one completion comes, and returns it checked. */
    private static IbvWC awaitCompletion(VerbsQueuePair pair) throws IOException {
        long deadline = System.nanoTime() + STALL_NANOS;
        int emptyPolls = 0;
        for (;;) {
            if (pair.poll() > 0) {
                return pair.completion(0);
            }
            if (++emptyPolls == POLLS_PER_CLOCK_READ) {
                emptyPolls = 0;
                if (System.nanoTime() - deadline > 0) {
                    throw new IOException("no completion in " + TimeUnit.NANOSECONDS.toSeconds(STALL_NANOS) + " s");
                }
            }
        }
    }
}
