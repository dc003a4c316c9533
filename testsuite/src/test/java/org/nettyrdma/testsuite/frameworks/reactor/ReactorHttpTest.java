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
package org.nettyrdma.testsuite.frameworks.reactor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.nettyrdma.testsuite.frameworks.EchoAnswer.CHANNEL_HEADER;
import static org.nettyrdma.testsuite.frameworks.EchoAnswer.CRC_HEADER;
import static org.nettyrdma.testsuite.frameworks.reactor.ReactorOnRdma.TIMEOUT;
import static org.nettyrdma.testsuite.frameworks.reactor.ReactorOnRdma.host;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.channel.socket.SocketChannel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.testsuite.frameworks.BodyFile;
import org.nettyrdma.testsuite.frameworks.EchoAnswer;
import org.nettyrdma.testsuite.frameworks.Payloads;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.HttpProtocol;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.client.HttpClientResponse;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;
import reactor.netty.resources.ConnectionProvider;

/**
 * Reactor Netty's HTTP server and client, unchanged but for {@code runOn(RdmaLoopResources)}, over
 * RDMA: HTTP/1.1 on one keep-alive connection, HTTP/2 cleartext with prior knowledge (every body at
 * once, as streams of one connection), a file sent with {@code sendFile} (a {@code FileRegion}), and
 * requests to host names from hosts entries and from the name server. Each body goes with its CRC32
 * and comes back whole ({@link EchoAnswer}).
 */
class ReactorHttpTest {

    @RegisterExtension
    static final ReactorOnRdma rdma = new ReactorOnRdma();

    @TempDir
    static Path directory;

    private static DisposableServer server;
    private static final AtomicInteger connections = new AtomicInteger();
    /** The classes of the socket channels the clients connected on. */
    private static final Set<Class<?>> clientChannels = ConcurrentHashMap.newKeySet();
    private static BodyFile file;

    @BeforeAll
    static void listen() throws Exception {
        file = BodyFile.write(directory, 17, 3 << 20);
        server = HttpServer.create().runOn(rdma.loops()).host(host()).port(0)
                .protocol(HttpProtocol.HTTP11, HttpProtocol.H2C)
                .doOnChannelInit((observer, channel, remote) -> {
                    if (channel instanceof SocketChannel) {
                        connections.incrementAndGet();
                    }
                })
                .handle(ReactorHttpTest::answer)
                .bindNow(TIMEOUT);
    }

    @AfterAll
    static void close() {
        if (server != null) {
            server.disposeNow(TIMEOUT);
        }
    }

    /** {@code /file}: the file; otherwise the request's body back, with the CRC32 the server computed. */
    static Mono<Void> answer(HttpServerRequest request, HttpServerResponse response) {
        request.withConnection(connection -> response.header(CHANNEL_HEADER,
                ReactorOnRdma.socketOf(connection.channel()).getClass().getSimpleName()));
        if (request.uri().equals("/file")) {
            return response.sendFile(file.path()).then();
        }
        return request.receive().aggregate().asByteArray().defaultIfEmpty(new byte[0]).flatMap(body -> {
            String crc = Payloads.hex(Payloads.crc32(body));
            int status = crc.equals(request.requestHeaders().get(CRC_HEADER)) ? 200 : 400;
            return response.status(status).header(CRC_HEADER, crc).sendByteArray(Mono.just(body)).then();
        });
    }

    @Test
    void http11BodiesOfEverySizeComeBackWholeOnOneConnection() {
        int before = connections.get();
        ConnectionProvider one = ConnectionProvider.create("http11", 1);
        try {
            HttpClient client = client(one).protocol(HttpProtocol.HTTP11);
            for (int i = 0; i < Payloads.SIZES.length; i++) {
                post(client, Payloads.bytes(1000 + i, Payloads.SIZES[i])).block(TIMEOUT).assertWhole("HTTP/1.1", i);
            }
        } finally {
            one.disposeLater().block(TIMEOUT);
        }
        assertEquals(1, connections.get() - before, "one keep-alive connection carried every request");
        assertEquals(Set.of(RdmaSocketChannel.class), clientChannels, "the clients' channels");
    }

    @Test
    void h2cStreamsOfEverySizeComeBackWholeAtOnce() {
        int before = connections.get();
        ConnectionProvider one = ConnectionProvider.create("h2c", 1);
        List<EchoAnswer> answers;
        try {
            HttpClient client = client(one).protocol(HttpProtocol.H2C);
            answers = Flux.range(0, Payloads.SIZES.length)
                    .flatMapSequential(i -> post(client, Payloads.bytes(1100 + i, Payloads.SIZES[i])))
                    .collectList().block(TIMEOUT);
        } finally {
            one.disposeLater().block(TIMEOUT);
        }
        for (int i = 0; i < answers.size(); i++) {
            answers.get(i).assertWhole("HTTP/2.0", i);
        }
        assertEquals(1, connections.get() - before, "the streams shared one connection");
        assertEquals(Set.of(RdmaSocketChannel.class), clientChannels, "the clients' channels");
    }

    @Test
    void sendFileArrivesWhole() {
        EchoAnswer answer = client(rdma.connections()).get().uri("/file")
                .responseSingle((response, content) -> content.asByteArray().defaultIfEmpty(new byte[0])
                        .map(body -> answer(response, body, new byte[0])))
                .block(TIMEOUT);
        assertEquals(200, answer.status());
        assertEquals("RdmaSocketChannel", answer.serverChannel());
        assertEquals(file.size(), answer.body().length);
        assertEquals(Payloads.hex(file.crc()), Payloads.hex(Payloads.crc32(answer.body())));
    }

    @Test
    void hostNamesResolveFromHostsEntriesAndTheNameServer() {
        HttpClient client = HttpClient.create(rdma.connections()).runOn(rdma.loops()).resolver(rdma::resolver)
                .port(server.port());
        post(client.host(ReactorOnRdma.HOSTS_NAME), Payloads.bytes(1200, 100)).block(TIMEOUT).assertWhole("HTTP/1.1", 0);
        post(client.host(ReactorOnRdma.DNS_NAME), Payloads.bytes(1201, 100)).block(TIMEOUT).assertWhole("HTTP/1.1", 1);
        assertTrue(rdma.nameServer().queries(ReactorOnRdma.DNS_NAME) > 0, "the name server was asked");
    }

    /**
     * A client of the server on the RDMA loops, with the pool {@code connections}: a pool of one
     * connection makes the requests of a test wait for it, so that they cannot open a second one.
     */
    private static HttpClient client(ConnectionProvider connections) {
        return HttpClient.create(connections).runOn(rdma.loops()).host(host()).port(server.port())
                .doOnConnected(connection ->
                        clientChannels.add(ReactorOnRdma.socketOf(connection.channel()).getClass()));
    }

    /** Posts {@code body} to {@code /echo} with its CRC32, and returns what the server answered. */
    static Mono<EchoAnswer> post(HttpClient client, byte[] body) {
        return client.headers(headers -> headers.set(CRC_HEADER, Payloads.hex(Payloads.crc32(body))))
                .post().uri("/echo")
                .send((request, out) -> out.sendByteArray(Mono.just(body)))
                .responseSingle((response, content) -> content.asByteArray().defaultIfEmpty(new byte[0])
                        .map(echoed -> answer(response, echoed, body)));
    }

    private static EchoAnswer answer(HttpClientResponse response, byte[] body, byte[] sent) {
        return new EchoAnswer(response.status().code(), response.version().text(),
                response.responseHeaders().get(CRC_HEADER), response.responseHeaders().get(CHANNEL_HEADER), body, sent);
    }
}
