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

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.channel.epoll.Epoll;
import org.HdrHistogram.Histogram;
import org.nettyrdma.example.Transport;
import org.nettyrdma.reactor.RdmaLoopResources;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;

/**
 * The hello server and client on Reactor Netty 1.3: loop resources of one event loop each, the
 * server's and the client's, of {@code RdmaLoopResources} with the loop tunables of one of the
 * examples' RDMA transports, or of Reactor's own on epoll or NIO. The
 * client's requests follow each other as a reactive chain, as a Reactor application sends them.
 */
final class ReactorHelloRig implements HelloRig {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final LoopResources serverLoops;
    private final LoopResources clientLoops;
    private final boolean preferNative;
    private final DisposableServer server;
    private final String host;

    private ReactorHelloRig(LoopResources serverLoops, LoopResources clientLoops, boolean preferNative,
                            DisposableServer server, String host) {
        this.serverLoops = serverLoops;
        this.clientLoops = clientLoops;
        this.preferNative = preferNative;
        this.server = server;
        this.host = host;
    }

    /** Starts the server on {@code host} and the client's loops, over {@code transport}. */
    static ReactorHelloRig start(Transport transport, String host) {
        boolean preferNative = transport != Transport.NIO;
        LoopResources serverLoops = loops(transport, "bench-server");
        LoopResources clientLoops = loops(transport, "bench-client");
        try {
            DisposableServer server = HttpServer.create().runOn(serverLoops, preferNative).host(host).port(0)
                    .handle((request, response) -> response.header("content-type", "text/plain")
                            .sendString(Mono.just(BODY)))
                    .bindNow(TIMEOUT);
            return new ReactorHelloRig(serverLoops, clientLoops, preferNative, server, host);
        } catch (RuntimeException e) {
            dispose(clientLoops);
            dispose(serverLoops);
            throw e;
        }
    }

    private static LoopResources loops(Transport transport, String prefix) {
        if (transport.isRdma()) {
            return RdmaLoopResources.create(prefix, 1, true, transport.rdmaLoopConfig());
        }
        switch (transport) {
            case EPOLL:
                if (!Epoll.isAvailable()) {
                    throw new IllegalStateException("epoll is unavailable: " + Epoll.unavailabilityCause().getMessage(),
                            Epoll.unavailabilityCause());
                }
                return LoopResources.create(prefix, 1, true);
            case NIO:
                return LoopResources.create(prefix, 1, true);
            default:
                throw new IllegalArgumentException("transport: " + transport.displayName()
                        + " (expected: an RDMA transport, epoll or nio)");
        }
    }

    @Override
    public Histogram roundTrips(long nanos) {
        ConnectionProvider one = ConnectionProvider.create("bench-round-trip", 1);
        try {
            Histogram histogram = new Histogram(TIMEOUT.toNanos(), 3);
            HttpClient client = client(one);
            long deadline = System.nanoTime() + nanos;
            Mono.defer(() -> {
                long start = System.nanoTime();
                return hello(client).doOnSuccess(answered -> histogram.recordValue(System.nanoTime() - start));
            }).repeat(() -> System.nanoTime() - deadline < 0).then().block(TIMEOUT.plusNanos(nanos));
            return histogram;
        } finally {
            one.disposeLater().block(TIMEOUT);
        }
    }

    @Override
    public long requests(int connections, long nanos) {
        ConnectionProvider pool = ConnectionProvider.create("bench-requests", connections);
        try {
            AtomicLong answered = new AtomicLong();
            HttpClient client = client(pool);
            long deadline = System.nanoTime() + nanos;
            Flux.range(0, connections)
                    .flatMap(chain -> Mono.defer(() -> hello(client).doOnSuccess(ok -> answered.incrementAndGet()))
                            .repeat(() -> System.nanoTime() - deadline < 0), connections)
                    .then().block(TIMEOUT.plusNanos(nanos));
            return answered.get();
        } finally {
            pool.disposeLater().block(TIMEOUT);
        }
    }

    private HttpClient client(ConnectionProvider connections) {
        return HttpClient.create(connections).runOn(clientLoops, preferNative).host(host).port(server.port());
    }

    /** One request; completes empty when answered with {@link #BODY}. */
    private static Mono<Void> hello(HttpClient client) {
        return client.get().uri(PATH)
                .responseSingle((response, body) -> response.status().code() == 200 ? body.asString()
                        : Mono.error(new IllegalStateException("status " + response.status().code())))
                .flatMap(body -> BODY.equals(body) ? Mono.<Void>empty()
                        : Mono.error(new IllegalStateException("answered: " + body)));
    }

    @Override
    public void close() {
        try {
            server.disposeNow(TIMEOUT);
        } finally {
            dispose(clientLoops);
            dispose(serverLoops);
        }
    }

    private static void dispose(LoopResources loops) {
        loops.disposeLater(Duration.ZERO, TIMEOUT).block(TIMEOUT.plusSeconds(10));
    }
}
