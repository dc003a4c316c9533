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
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.util.ResourceLeakDetector;
import org.nettyrdma.channel.rdma.RdmaChannelOption;
import org.nettyrdma.channel.rdma.RdmaFallbackReason;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.example.ExampleOptions;
import org.nettyrdma.example.Transport;

/**
 * Measures what the TCP fallback costs and gives (docs/fallback.md#figures): connects over RDMA with
 * {@code RdmaChannelOption.TCP_FALLBACK} off at both ends (the transport's RDMA CM calls and nothing
 * else: the server listens on no TCP port) against the default, on at both ends, and the time to a
 * usable channel on each fallback path the device's host can show: a client of this transport to the
 * loopback address ({@code NO_ROUTE}), to Netty's epoll server ({@code NO_RDMA_LISTENER}), an epoll
 * client to a server of this transport (its child {@code PEER_USED_TCP}), beside epoll to epoll. Every
 * channel of this transport must be carried as its path says, or the run fails.
 *
 * <p>Each path opens connections one after another ({@link SequentialConnects}: a connect, one 64 B
 * echo, a close). The servers ({@link FallbackServers}) run in this JVM on loops of their own, the
 * clients on theirs; after a warm-up of every path, repeated until the JIT compiler is quiet, the paths
 * take turns round by round, in an order that rotates, so that a drift of the shared host's load falls
 * on all of them. {@code scripts/fallback-bench} runs it in the rxe VM.
 *
 * <pre>
 * java ... org.nettyrdma.benchmark.FallbackBenchmark --host 10.77.0.1 --rounds 5 --connects 300
 * </pre>
 */
public final class FallbackBenchmark {

    private static final String USAGE = "usage: FallbackBenchmark [--host ADDRESS of an RDMA interface] "
            + MeasuredRounds.USAGE.replace("default 1", "default 5") + " [--connects 300 per path and round] "
            + "[--warmup-connects 50 per path and warm-up round]";
    private static final String STRICT = "rdma -> rdma, TCP_FALLBACK off";
    private static final String FALLBACK = "rdma -> rdma, TCP_FALLBACK on";
    private static final String EPOLL = "epoll -> epoll";
    private static final long SHUTDOWN_SECONDS = 30;

    private FallbackBenchmark() {
    }

    /**
     * Warms up, runs the rounds, printing each path's figures on stderr as its round ends, then the
     * report on stdout; exits with status 1 if a path failed or a channel was carried otherwise than
     * its path says.
     */
    public static void main(String[] args) throws Exception {
        ExampleOptions options = ExampleOptions.parse(USAGE, args);
        String host = options.host();
        MeasuredRounds rounds = MeasuredRounds.parse(options.string("rounds", "5"), System.in);
        int connects = options.integer("connects", 300);
        int warmUpConnects = options.integer("warmup-connects", 50);
        options.checkAllRead();
        InetAddress device = InetAddress.getByName(host);
        if (device.isLoopbackAddress() || device.isAnyLocalAddress() || connects < 1 || warmUpConnects < 1) {
            throw new IllegalArgumentException("--host: the address of an RDMA interface (not " + host
                    + "); --connects and --warmup-connects: at least 1\n" + USAGE);
        }
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
        long start = System.nanoTime();
        FallbackReport report = new FallbackReport(STRICT, FALLBACK, EPOLL);
        EventLoopGroup serverRdma = Transport.RDMA.newEventLoopGroup(1);
        EventLoopGroup serverEpoll = Transport.EPOLL.newEventLoopGroup(1);
        EventLoopGroup clientRdma = Transport.RDMA.newEventLoopGroup(1);
        EventLoopGroup clientEpoll = Transport.EPOLL.newEventLoopGroup(1);
        int measured = 0;
        try (FallbackServers servers = FallbackServers.start(serverRdma, serverEpoll, device)) {
            List<FallbackPath> paths = paths(servers, device, clientRdma, clientEpoll);
            JitWarmUp.untilQuiet(() -> {
                for (FallbackPath path : paths) {
                    path.connects().run(warmUpConnects);
                }
            }, System.err);
            for (int round; (round = rounds.next()) > 0; measured++) {
                for (int turn = 0; turn < paths.size(); turn++) {
                    FallbackPath path = paths.get((round - 1 + turn) % paths.size());
                    measure(path, round, connects, report);
                }
            }
            if (servers.failure() != null) {
                report.addError(servers.failure());
            }
        } finally {
            for (EventLoopGroup group : List.of(clientRdma, clientEpoll, serverRdma, serverEpoll)) {
                group.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(SHUTDOWN_SECONDS, TimeUnit.SECONDS);
            }
        }
        StringBuilder out = new StringBuilder();
        out.append("TCP fallback: ").append(connects).append(" connects per path and round, one after another")
                .append(" (connect, one ").append(SequentialConnects.MESSAGE_BYTES).append(" B echo, close), ")
                .append(measured).append(measured == 1 ? " round" : " rounds")
                .append(", the paths taking turns in an order that rotates; on ").append(host).append('\n');
        out.append("  servers in this JVM on loops of their own (one thread each, rdma and epoll), clients on"
                + " theirs; set-up: connect() until the channel is active; usable: until the echo came back\n");
        String tcg = System.getenv("RXE_VM_TCG_THREAD");
        out.append("  java ").append(System.getProperty("java.version")).append(", ")
                .append(Runtime.getRuntime().availableProcessors()).append(" CPUs")
                .append(tcg != null ? ", tcg thread=" + tcg : "").append("\n  median (lowest-highest) of the"
                        + " rounds; a ratio: of two medians (the lowest and highest ratio of one round's)\n\n");
        report.appendTo(out);
        out.append(String.format(Locale.ROOT, "%nRan for %.1f minutes.%n", (System.nanoTime() - start) / 60e9));
        System.out.print(out);
        System.exit(report.complete() ? 0 : 1);
    }

    private static List<FallbackPath> paths(FallbackServers servers, InetAddress device, EventLoopGroup rdma,
                                            EventLoopGroup epoll) throws IOException {
        Bootstrap rdmaClient = new Bootstrap().group(rdma).channel(RdmaSocketChannel.class);
        Bootstrap epollClient = new Bootstrap().group(epoll).channel(EpollSocketChannel.class);
        // 127.0.0.1, not the loopback name: Java may resolve that to ::1, a path not measured here.
        InetAddress loopback = InetAddress.getByName("127.0.0.1");
        return List.of(
                FallbackPath.overRdma(STRICT, rdmaClient.clone().option(RdmaChannelOption.TCP_FALLBACK, false),
                        servers.rdmaStrict()),
                FallbackPath.overRdma(FALLBACK, rdmaClient, servers.rdmaDefault()),
                FallbackPath.fallingBack("rdma -> rdma at 127.0.0.1", rdmaClient,
                        new InetSocketAddress(loopback, servers.rdmaWildcardPort()), RdmaFallbackReason.NO_ROUTE),
                FallbackPath.fallingBack("rdma -> epoll", rdmaClient, servers.epoll(),
                        RdmaFallbackReason.NO_RDMA_LISTENER),
                FallbackPath.overTcp("epoll -> rdma", "TCP (child " + RdmaFallbackReason.PEER_USED_TCP + ")",
                        epollClient, new InetSocketAddress(device, servers.rdmaWildcardPort())),
                FallbackPath.overTcp(EPOLL, "TCP", epollClient, servers.epoll()));
    }

    private static void measure(FallbackPath path, int round, int connects, FallbackReport report)
            throws InterruptedException {
        try {
            FallbackReport.Row row = FallbackReport.Row.of(path.connects().run(connects));
            report.add(path, round, row);
            System.err.printf(Locale.ROOT, "round %d %s: set-up p50 %.2f ms, p99 %.2f ms; usable p50 %.2f ms,"
                    + " p99 %.2f ms; %.1f connects/s%n", round, path.name(), row.setUpP50Ms(), row.setUpP99Ms(),
                    row.usableP50Ms(), row.usableP99Ms(), row.connectsPerSecond());
        } catch (IOException e) {
            report.addError(path, round, e.getMessage());
            System.err.println("round " + round + " " + path.name() + ": " + e.getMessage());
        }
    }
}
