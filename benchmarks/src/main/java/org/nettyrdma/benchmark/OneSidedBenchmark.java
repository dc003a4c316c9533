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
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import org.HdrHistogram.Histogram;
import org.nettyrdma.channel.rdma.RdmaIoHandler;
import org.nettyrdma.example.ExampleOptions;
import org.nettyrdma.example.ExposingServer;
import org.nettyrdma.example.Transport;

/**
 * What one-sided operations save: a GET of the server's table by RDMA Read ({@link OneSidedGetClient#readGets})
 * against the same GET as a request and a response on the same connection, size by size, with the
 * latency's p50 and p99, the CPU time of the server's event loop per GET, the messages its pipelines
 * saw per GET and the bytes the client's event loops allocated per GET (the garbage an operation
 * leaves, once warm); then fetch-and-add to one word of the server's from 1 and from {@code --clients}
 * connections, in operations per second (and latency from 1), the word checked against the adds that
 * completed. Reads and adds are told to a reused {@code OneSidedCompletion}; at the first size and
 * from 1 connection they run by the {@code Future} form too ({@code future_...}), to show its garbage. Server and
 * clients run in this JVM on loops of their own (the server's one thread is what its CPU time is of),
 * both of the kind {@code --transport} names.
 *
 * <p>Every phase warms up until the JIT compiler is quiet ({@link JitWarmUp}), then the phases run in
 * {@code --rounds} rounds, each in an order that starts one place further along, and the summary lines
 * give the median of the rounds with the lowest and highest reading ({@code median[min-max]}):
 * <pre>
 * one-sided get loops=rdma size=64 read_p50_us=... read_p99_us=... request_p50_us=... request_p99_us=...
 *     read_server_cpu_us=... request_server_cpu_us=... read_server_messages=... request_server_messages=...
 *     read_client_alloc_B=... request_client_alloc_B=... future_read_p50_us=... future_read_client_alloc_B=...
 * one-sided fetch-and-add loops=rdma clients=1 ops_per_s=... p50_us=... p99_us=... server_cpu_us=...
 *     client_alloc_B=... future_p50_us=... future_client_alloc_B=... counter=checked
 * one-sided fetch-and-add loops=rdma clients=8 ops_per_s=... server_cpu_us=... client_alloc_B=... counter=checked
 * </pre>
 * ({@code OneSidedSection} puts them in the demo's report.) A phase that fails prints
 * {@code one-sided error=...} and the exit status is 1.
 */
public final class OneSidedBenchmark {

    private static final String USAGE = "usage: OneSidedBenchmark [--transport rdma|rdma-nopoll|rdma-busypoll: the"
            + " loops of both ends] [--host ADDRESS of an RDMA device] [--sizes 64,4k,64k]"
            + " [--clients 8] [--warmup SECONDS per phase, default 2] [--time SECONDS per phase, default 3]"
            + " [--rounds 3]";
    private static final int[] DEFAULT_SIZES = {64, 4096, 65536};
    /** What a phase may take beyond its time before it counts as stuck. */
    private static final long PHASE_SLACK_SECONDS = 60;

    private final OneSidedGetServer server;
    private final List<OneSidedGetClient> clients;
    /** The client's event loops, where every operation starts and ends. */
    private final LoopMeter clientMeter;
    private final List<Phase> phases = new ArrayList<>();
    private final PrintStream out;
    /** The transport's name, which says the loops both ends run on. */
    private final String loops;
    /** Each phase's readings, figure by figure, round by round (NaN where a round failed). */
    private final Map<Phase, Map<String, double[]>> readings = new LinkedHashMap<>();
    private boolean failed;

    private OneSidedBenchmark(OneSidedGetServer server, List<OneSidedGetClient> clients, LoopMeter clientMeter,
                              int[] sizes, String loops, PrintStream out) {
        this.server = server;
        this.loops = loops;
        this.clients = clients;
        this.clientMeter = clientMeter;
        this.out = out;
        for (int size : sizes) {
            phases.add(new Phase(Kind.READ, size, 1));
            phases.add(new Phase(Kind.REQUEST, size, 1));
        }
        // The Future form beside the completion's, where the target is judged: what its garbage costs.
        phases.add(new Phase(Kind.FUTURE_READ, sizes[0], 1));
        phases.add(new Phase(Kind.FETCH_AND_ADD, Long.BYTES, 1));
        phases.add(new Phase(Kind.FUTURE_FETCH_AND_ADD, Long.BYTES, 1));
        if (clients.size() > 1) {
            phases.add(new Phase(Kind.FETCH_AND_ADD, Long.BYTES, clients.size()));
        }
    }

    /** Runs the benchmark; see the class comment. */
    public static void main(String[] args) throws Exception {
        ExampleOptions options = ExampleOptions.parse(USAGE, args);
        Transport transport = options.rdmaTransport(ExposingServer.RDMA_ONLY);
        InetAddress host = InetAddress.getByName(options.host());
        int[] sizes = options.integers("sizes", DEFAULT_SIZES);
        int clientCount = options.integer("clients", 8);
        long warmup = nanos(options.seconds("warmup", 2));
        long time = nanos(options.seconds("time", 3));
        int rounds = options.integer("rounds", 3);
        options.checkAllRead();
        for (int size : sizes) {
            if (size <= 0 || size > OneSidedGetServer.TABLE_BYTES) {
                throw new IllegalArgumentException("--sizes: " + size + " (expected: 1 to "
                        + OneSidedGetServer.TABLE_BYTES + ")\n" + USAGE);
            }
        }
        if (clientCount < 1 || rounds < 1) {
            throw new IllegalArgumentException("--clients and --rounds: at least 1\n" + USAGE);
        }
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
        boolean failed;
        EventLoopGroup clientLoops = new MultiThreadIoEventLoopGroup(2, new DefaultThreadFactory("one-sided-client"),
                RdmaIoHandler.newFactory(transport.rdmaLoopConfig()));
        try (OneSidedGetServer server = OneSidedGetServer.start(new InetSocketAddress(host, 0),
                transport.rdmaLoopConfig())) {
            List<OneSidedGetClient> clients = new ArrayList<>();
            try {
                for (int i = 0; i < clientCount; i++) {
                    clients.add(OneSidedGetClient.connect(clientLoops, server.localAddress())
                            .get(PHASE_SLACK_SECONDS, TimeUnit.SECONDS));
                }
                OneSidedBenchmark benchmark = new OneSidedBenchmark(server, clients, LoopMeter.of(clientLoops), sizes,
                        transport.displayName(), System.out);
                benchmark.run(warmup, time, rounds);
                failed = benchmark.failed;
            } finally {
                clients.forEach(OneSidedGetClient::close);
            }
        } finally {
            clientLoops.shutdownGracefully().syncUninterruptibly();
        }
        // exit(), not a return: a thread left behind must not keep the benchmark alive.
        System.exit(failed ? 1 : 0);
    }

    private void run(long warmup, long time, int rounds) throws Exception {
        JitWarmUp.untilQuiet(() -> {
            for (Phase phase : phases) {
                measure(phase, warmup);
            }
        }, out);
        for (Phase phase : phases) {
            readings.put(phase, new LinkedHashMap<>());
        }
        for (int round = 1; round <= rounds; round++) {
            for (int i = 0; i < phases.size(); i++) {
                Phase phase = phases.get((i + round - 1) % phases.size());
                Map<String, Double> figures;
                try {
                    figures = measure(phase, time);
                } catch (Exception e) {
                    failed = true;
                    out.println("one-sided error=" + loops + " loops, " + phase + ", round " + round + ": " + e);
                    continue;
                }
                StringBuilder line = new StringBuilder("one-sided-round loops=").append(loops).append(" round=")
                        .append(round).append(' ').append(phase);
                for (Map.Entry<String, Double> figure : figures.entrySet()) {
                    readings.get(phase).computeIfAbsent(figure.getKey(), k -> nanArray(rounds))[round - 1] =
                            figure.getValue();
                    line.append(String.format(Locale.ROOT, " %s=%.2f", figure.getKey(), figure.getValue()));
                }
                out.println(line);
            }
        }
        summarize();
    }

    /** Runs {@code phase} for {@code nanos} and returns its figures, named as in the lines. */
    private Map<String, Double> measure(Phase phase, long nanos) throws Exception {
        long counterBefore = server.counter();
        long messagesBefore = server.messages();
        long cpuBefore = server.cpuNanos();
        LoopMeter.Sample clientBefore = clientMeter.sample(0);
        long start = System.nanoTime();
        Map<String, Double> figures = new LinkedHashMap<>();
        long operations;
        if (phase.kind.adds) {
            List<Future<Histogram>> adds = new ArrayList<>();
            for (int i = 0; i < phase.clients; i++) {
                OneSidedGetClient client = clients.get(i);
                adds.add(phase.kind == Kind.FETCH_AND_ADD ? client.fetchAndAdds(nanos)
                        : client.futureFetchAndAdds(nanos));
            }
            operations = 0;
            Histogram first = null;
            for (Future<Histogram> add : adds) {
                Histogram latencies = await(add, nanos);
                first = first == null ? latencies : first;
                operations += latencies.getTotalCount();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            long added = server.counter() - counterBefore;
            if (added != operations) {
                throw new IllegalStateException("the word rose by " + added + ", but " + operations
                        + " fetch-and-adds of 1 completed");
            }
            figures.put("ops_per_s", operations / seconds);
            if (phase.clients == 1) {
                figures.put("p50_us", first.getValueAtPercentile(50) / 1e3);
                figures.put("p99_us", first.getValueAtPercentile(99) / 1e3);
            }
        } else {
            OneSidedGetClient client = clients.get(0);
            Histogram latencies = await(switch (phase.kind) {
                case READ -> client.readGets(phase.size, nanos);
                case FUTURE_READ -> client.futureReadGets(phase.size, nanos);
                default -> client.requestGets(phase.size, nanos);
            }, nanos);
            operations = latencies.getTotalCount();
            figures.put("p50_us", latencies.getValueAtPercentile(50) / 1e3);
            figures.put("p99_us", latencies.getValueAtPercentile(99) / 1e3);
        }
        figures.put("server_cpu_us", (server.cpuNanos() - cpuBefore) / 1e3 / Math.max(1, operations));
        figures.put("server_messages", (double) (server.messages() - messagesBefore) / Math.max(1, operations));
        figures.put("client_alloc_B", clientMeter.workAllocatedBytes(clientBefore, clientMeter.sample(operations))
                / Math.max(1, operations));
        figures.put("ops", (double) operations);
        return figures;
    }

    private static <T> T await(Future<T> future, long nanos) throws Exception {
        if (!future.await(TimeUnit.NANOSECONDS.toSeconds(nanos) + PHASE_SLACK_SECONDS, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the phase did not end in time");
        }
        if (!future.isSuccess()) {
            throw new IllegalStateException(future.cause().toString(), future.cause());
        }
        return future.getNow();
    }

    /**
     * Prints the summary lines: a GET line per size, a line per fetch-and-add phase; the Future form's
     * figures ({@code future_...}) join the line of the phase they repeat.
     */
    private void summarize() {
        for (Phase phase : phases) {
            if (phase.kind == Kind.READ) {
                Phase request = new Phase(Kind.REQUEST, phase.size, 1);
                Phase future = new Phase(Kind.FUTURE_READ, phase.size, 1);
                String futureFigures = !readings.containsKey(future) ? ""
                        : figure("future_read_p50_us", future, "p50_us")
                                + figure("future_read_client_alloc_B", future, "client_alloc_B");
                out.println("one-sided get loops=" + loops + " size=" + phase.size
                        + figure("read_p50_us", phase, "p50_us") + figure("read_p99_us", phase, "p99_us")
                        + figure("request_p50_us", request, "p50_us") + figure("request_p99_us", request, "p99_us")
                        + figure("read_server_cpu_us", phase, "server_cpu_us")
                        + figure("request_server_cpu_us", request, "server_cpu_us")
                        + figure("read_server_messages", phase, "server_messages")
                        + figure("request_server_messages", request, "server_messages")
                        + figure("read_client_alloc_B", phase, "client_alloc_B")
                        + figure("request_client_alloc_B", request, "client_alloc_B") + futureFigures);
            } else if (phase.kind == Kind.FETCH_AND_ADD) {
                Phase future = new Phase(Kind.FUTURE_FETCH_AND_ADD, phase.size, phase.clients);
                String latency = phase.clients != 1 ? ""
                        : figure("p50_us", phase, "p50_us") + figure("p99_us", phase, "p99_us");
                String futureFigures = !readings.containsKey(future) ? ""
                        : figure("future_p50_us", future, "p50_us")
                                + figure("future_client_alloc_B", future, "client_alloc_B");
                out.println("one-sided fetch-and-add loops=" + loops + " clients=" + phase.clients
                        + figure("ops_per_s", phase, "ops_per_s") + latency
                        + figure("server_cpu_us", phase, "server_cpu_us")
                        + figure("client_alloc_B", phase, "client_alloc_B") + futureFigures
                        + (failed ? "" : " counter=checked"));
            }
        }
    }

    private String figure(String name, Phase phase, String key) {
        double[] byRound = readings.getOrDefault(phase, Map.of()).get(key);
        if (byRound == null) {
            return " " + name + "=none";
        }
        Spread spread = Spread.of(byRound);
        return String.format(Locale.ROOT, " %s=%.2f[%.2f-%.2f]", name, spread.median(), spread.min(), spread.max());
    }

    private static double[] nanArray(int length) {
        double[] array = new double[length];
        Arrays.fill(array, Double.NaN);
        return array;
    }

    private static long nanos(double seconds) {
        return (long) (seconds * 1e9);
    }

    private enum Kind {
        READ("read", false), FUTURE_READ("future-read", false), REQUEST("request", false),
        FETCH_AND_ADD("fetch-and-add", true), FUTURE_FETCH_AND_ADD("future-fetch-and-add", true);

        private final String label;
        /** Fetch-and-adds of the server's word, counted against it. */
        private final boolean adds;

        Kind(String label, boolean adds) {
            this.label = label;
            this.adds = adds;
        }
    }

    /** One phase: an operation, its size and the connections that run it at once. */
    private static final class Phase {

        private final Kind kind;
        private final int size;
        private final int clients;

        Phase(Kind kind, int size, int clients) {
            this.kind = kind;
            this.size = size;
            this.clients = clients;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Phase && ((Phase) o).kind == kind && ((Phase) o).size == size
                    && ((Phase) o).clients == clients;
        }

        @Override
        public int hashCode() {
            return (kind.ordinal() * 31 + size) * 31 + clients;
        }

        @Override
        public String toString() {
            return "op=" + kind.label + " size=" + size + " clients=" + clients;
        }
    }
}
