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

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.util.ResourceLeakDetector;
import org.nettyrdma.channel.rdma.RdmaChannelOption;
import org.nettyrdma.channel.rdma.RdmaMemoryMetrics;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.example.Transport;

/**
 * The server of {@link ScaleBenchmark}, in a process of its own so that the kernel's count of its pinned
 * memory ({@code VmPin}) is the server's alone. Every setting is the transport's default, as a new
 * user's server would have. It listens twice on one address and one event loop group: an echo port for
 * the round trip and a sink port, which counts and drops what it reads, for the idle and the streaming
 * connections.
 *
 * <p>It speaks in lines: first {@code scale-server echo=PORT sink=PORT pid=PID}; then, for each line on
 * its standard input, one answer on its standard output:
 * <ul>
 *   <li>{@code memory}: {@code scale-memory children=N ...} with the active sink connections, the
 *       transport's registered memory and memory regions ({@link RdmaMemoryMetrics}, and the sum of the
 *       sink connections' {@code RdmaChannelMetrics.registeredBytes()}) and the process's {@code VmPin} and
 *       {@code VmRSS} in kB;</li>
 *   <li>{@code sinks}: {@code scale-sinks ID:BYTES ...}, the bytes each open sink connection read so far.</li>
 * </ul>
 * It ends when its standard input does: the benchmark that started it is gone or done.
 */
public final class ScaleServer {

    /** The event loops of the server: one per vCPU of the project's VM. */
    private static final int THREADS = 2;

    private final Transport transport;
    private final Map<Channel, Sink> sinks = new ConcurrentHashMap<>();

    private ScaleServer(Transport transport) {
        this.transport = transport;
    }

    /** {@code ScaleServer TRANSPORT HOST}: serves until standard input ends. */
    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: ScaleServer rdma|epoll|nio HOST");
        }
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            // As in TransportBenchmark: the detector's stack traces are garbage a production server does not make.
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
        Transport transport = Transport.of(args[0]);
        InetAddress host = InetAddress.getByName(args[1]);
        EventLoopGroup group = transport.newEventLoopGroup(THREADS);
        try {
            new ScaleServer(transport).serve(group, host);
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(30, TimeUnit.SECONDS);
        }
        // exit(), not a return: a transport that left a thread behind must not keep the server alive.
        System.exit(0);
    }

    private void serve(EventLoopGroup group, InetAddress host) throws Exception {
        Channel echo = bind(transport, group, host, new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new Echo());
            }
        });
        Channel sink = bind(transport, group, host, new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                Sink counter = new Sink();
                sinks.put(ch, counter);
                ch.closeFuture().addListener(future -> sinks.remove(ch));
                ch.pipeline().addLast(counter);
            }
        });
        say("scale-server echo=" + port(echo) + " sink=" + port(sink) + " pid=" + ProcessHandle.current().pid());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            switch (line.trim()) {
                case "memory":
                    say(memory());
                    break;
                case "sinks":
                    say(sinkBytes());
                    break;
                default:
                    say("scale-error unknown command: " + line);
            }
        }
        echo.close().await(10, TimeUnit.SECONDS);
        sink.close().await(10, TimeUnit.SECONDS);
    }

    private static Channel bind(Transport transport, EventLoopGroup group, InetAddress host,
                                ChannelHandler childHandler) throws InterruptedException {
        ServerBootstrap bootstrap = new ServerBootstrap().group(group).channel(transport.serverSocketChannelClass())
                .childHandler(childHandler);
        if (transport.isRdma()) {
            // Every client connects from the VM's one address: the process's bound is the only one here.
            bootstrap.option(RdmaChannelOption.MAX_CONNECTIONS_PER_ADDRESS, Integer.MAX_VALUE);
        }
        return bootstrap.bind(new InetSocketAddress(host, 0)).sync().channel();
    }

    private static int port(Channel server) {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    private String memory() throws IOException {
        long children = 0;
        long channelBytes = 0;
        for (Channel child : sinks.keySet()) {
            if (child.isActive()) {
                children++;
            }
            if (child instanceof RdmaSocketChannel) {
                channelBytes += ((RdmaSocketChannel) child).metrics().registeredBytes();
            }
        }
        StringBuilder line = new StringBuilder("scale-memory children=").append(children);
        if (transport.isRdma()) {
            RdmaMemoryMetrics metrics = RdmaMemoryMetrics.snapshot();
            line.append(" registered_B=").append(metrics.registeredBytes())
                    .append(" connection_B=").append(metrics.connectionBytes())
                    .append(" channel_B=").append(channelBytes)
                    .append(" regions=").append(metrics.connectionRegions())
                    .append(" all_regions=").append(metrics.connectionRegions() + metrics.sharedReceiveRegions()
                            + metrics.allocatorRegions())
                    .append(" refused=").append(metrics.refusedRegistrations());
        }
        return line.append(" vmpin_kB=").append(KernelCounts.procKib("/proc/self/status", "VmPin"))
                .append(" rss_kB=").append(KernelCounts.procKib("/proc/self/status", "VmRSS")).toString();
    }

    private String sinkBytes() {
        StringBuilder line = new StringBuilder("scale-sinks");
        // Only open connections: one still closing from an earlier phase would read as a starved one.
        sinks.forEach((channel, sink) -> {
            if (channel.isActive()) {
                line.append(' ').append(channel.id().asShortText()).append(':').append(sink.bytes());
            }
        });
        return line.toString();
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
