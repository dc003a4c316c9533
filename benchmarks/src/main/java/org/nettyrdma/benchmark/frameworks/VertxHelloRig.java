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

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.PoolOptions;
import org.HdrHistogram.Histogram;
import org.nettyrdma.example.Transport;
import org.nettyrdma.vertx.RdmaVertx;

/**
 * The hello server and client on Vert.x 5: two {@code Vertx} instances of one event loop each, the
 * server's and the client's, on {@code RdmaVertx.transport(...)} with the loop tunables of one of the
 * examples' RDMA transports, on Vert.x's epoll or on its NIO transport.
 * The client's requests follow each other on its event loop, as a Vert.x application sends them.
 */
final class VertxHelloRig implements HelloRig {

    private static final long TIMEOUT_SECONDS = 60;

    private final Vertx serverVertx;
    private final Vertx clientVertx;
    private final HttpServer server;
    private final String host;

    private VertxHelloRig(Vertx serverVertx, Vertx clientVertx, HttpServer server, String host) {
        this.serverVertx = serverVertx;
        this.clientVertx = clientVertx;
        this.server = server;
        this.host = host;
    }

    /** Starts the server on {@code host} and the client's {@code Vertx}, over {@code transport}. */
    static VertxHelloRig start(Transport transport, String host) throws Exception {
        io.vertx.core.transport.Transport vertxTransport = vertxTransport(transport);
        Vertx serverVertx = vertx(vertxTransport);
        Vertx clientVertx = vertx(vertxTransport);
        try {
            HttpServer server = serverVertx.createHttpServer(new HttpServerOptions().setHost(host).setPort(0))
                    .requestHandler(request -> request.response().putHeader("content-type", "text/plain").end(BODY))
                    .listen().await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            return new VertxHelloRig(serverVertx, clientVertx, server, host);
        } catch (Exception e) {
            clientVertx.close().await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            serverVertx.close().await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            throw e;
        }
    }

    private static io.vertx.core.transport.Transport vertxTransport(Transport transport) {
        if (transport.isRdma()) {
            return RdmaVertx.transport(transport.rdmaLoopConfig());
        }
        switch (transport) {
            case EPOLL:
                return io.vertx.core.transport.Transport.EPOLL;
            case NIO:
                return io.vertx.core.transport.Transport.NIO;
            default:
                throw new IllegalArgumentException("transport: " + transport.displayName()
                        + " (expected: an RDMA transport, epoll or nio)");
        }
    }

    private static Vertx vertx(io.vertx.core.transport.Transport transport) {
        if (!transport.available()) {
            throw new IllegalStateException(transport.name() + " is unavailable: "
                    + transport.unavailabilityCause().getMessage(), transport.unavailabilityCause());
        }
        // Under emulation a turn of a loop can take seconds: Vert.x would log each as a blocked thread.
        return Vertx.builder().with(new VertxOptions().setEventLoopPoolSize(1)
                        .setMaxEventLoopExecuteTime(10).setMaxEventLoopExecuteTimeUnit(TimeUnit.SECONDS))
                .withTransport(transport).build();
    }

    @Override
    public Histogram roundTrips(long nanos) throws Exception {
        HttpClient client = clientVertx.createHttpClient(new HttpClientOptions(), new PoolOptions().setHttp1MaxSize(1));
        try {
            Histogram histogram = new Histogram(TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS), 3);
            Promise<Void> done = Promise.promise();
            long deadline = System.nanoTime() + nanos;
            Context context = clientVertx.getOrCreateContext();
            context.runOnContext(start -> repeat(client, deadline, histogram, null, done));
            done.future().await(TIMEOUT_SECONDS + TimeUnit.NANOSECONDS.toSeconds(nanos), TimeUnit.SECONDS);
            return histogram;
        } finally {
            client.close().await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
    }

    @Override
    public long requests(int connections, long nanos) throws Exception {
        HttpClient client = clientVertx.createHttpClient(new HttpClientOptions(),
                new PoolOptions().setHttp1MaxSize(connections));
        try {
            AtomicLong answered = new AtomicLong();
            long deadline = System.nanoTime() + nanos;
            Context context = clientVertx.getOrCreateContext();
            List<Future<Void>> chains = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                Promise<Void> done = Promise.promise();
                chains.add(done.future());
                context.runOnContext(start -> repeat(client, deadline, null, answered, done));
            }
            Future.all(chains).await(TIMEOUT_SECONDS + TimeUnit.NANOSECONDS.toSeconds(nanos), TimeUnit.SECONDS);
            return answered.get();
        } finally {
            client.close().await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
    }

    /**
     * Sends a request, and when its answer has come, the next one, until {@code deadline}; records each
     * round trip in {@code histogram} or counts it in {@code answered}, whichever is given.
     */
    private void repeat(HttpClient client, long deadline, Histogram histogram, AtomicLong answered,
                        Promise<Void> done) {
        long start = System.nanoTime();
        hello(client).onComplete(answer -> {
            if (answer.failed()) {
                done.tryFail(answer.cause());
                return;
            }
            long end = System.nanoTime();
            if (histogram != null) {
                histogram.recordValue(end - start);
            } else {
                answered.incrementAndGet();
            }
            if (end - deadline < 0) {
                repeat(client, deadline, histogram, answered, done);
            } else {
                done.tryComplete();
            }
        });
    }

    private Future<Void> hello(HttpClient client) {
        return client.request(HttpMethod.GET, server.actualPort(), host, PATH)
                .compose(request -> request.send())
                .compose(response -> response.statusCode() == 200 ? response.body()
                        : Future.failedFuture("status " + response.statusCode()))
                .compose(body -> BODY.equals(body.toString()) ? Future.succeededFuture()
                        : Future.failedFuture("answered: " + body));
    }

    @Override
    public void close() throws Exception {
        try {
            clientVertx.close().await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } finally {
            serverVertx.close().await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
    }
}
