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
package org.nettyrdma.testsuite.frameworks.vertx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.nettyrdma.testsuite.frameworks.EchoAnswer.CHANNEL_HEADER;
import static org.nettyrdma.testsuite.frameworks.EchoAnswer.CRC_HEADER;
import static org.nettyrdma.testsuite.frameworks.vertx.VertxOnRdma.await;
import static org.nettyrdma.testsuite.frameworks.vertx.VertxOnRdma.host;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import io.netty.channel.Channel;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.testsuite.frameworks.BodyFile;
import org.nettyrdma.testsuite.frameworks.EchoAnswer;
import org.nettyrdma.testsuite.frameworks.Payloads;

/**
 * Vert.x's HTTP server and client, unchanged, over RDMA: HTTP/1.1 on one keep-alive connection,
 * HTTP/2 cleartext with prior knowledge (every body at once, as streams of one connection) and by
 * upgrade from HTTP/1.1, a file sent with {@code sendFile} (a {@code FileRegion}), and requests to
 * host names resolved from the hosts entries and by the name server, a truncated answer among them.
 * Each body goes with its CRC32 and comes back whole ({@link EchoAnswer}).
 */
class VertxHttpTest {

    @RegisterExtension
    static final VertxOnRdma rdma = new VertxOnRdma();

    @TempDir
    static Path directory;

    private static HttpServer server;
    private static final AtomicInteger connections = new AtomicInteger();
    /** The classes of the channels the clients' requests went out on. */
    private static final Set<Class<?>> clientChannels = ConcurrentHashMap.newKeySet();
    private static BodyFile file;

    @BeforeAll
    static void listen() throws Exception {
        file = BodyFile.write(directory, 7, 3 << 20);
        server = await(rdma.vertx().createHttpServer(new HttpServerOptions().setHost(host()).setPort(0))
                .connectionHandler(connection -> connections.incrementAndGet())
                .requestHandler(VertxHttpTest::answer)
                .listen());
    }

    @AfterAll
    static void close() throws Exception {
        if (server != null) {
            await(server.close());
        }
    }

    /** {@code /file}: the file; otherwise the request's body back, with the CRC32 the server computed. */
    static void answer(HttpServerRequest request) {
        request.response().putHeader(CHANNEL_HEADER,
                VertxChannels.of(request.connection()).getClass().getSimpleName());
        if (request.path().equals("/file")) {
            request.response().sendFile(file.path().toString());
            return;
        }
        request.body().onSuccess(body -> {
            String crc = Payloads.hex(Payloads.crc32(body.getBytes()));
            int status = crc.equals(request.getHeader(CRC_HEADER)) ? 200 : 400;
            request.response().setStatusCode(status).putHeader(CRC_HEADER, crc).end(body);
        });
    }

    @Test
    void http11BodiesOfEverySizeComeBackWholeOnOneConnection() throws Exception {
        int before = connections.get();
        HttpClient client = rdma.vertx().createHttpClient(new HttpClientOptions(), new PoolOptions().setHttp1MaxSize(1));
        try {
            for (int i = 0; i < Payloads.SIZES.length; i++) {
                await(post(client, host(), Payloads.bytes(i, Payloads.SIZES[i]))).assertWhole("HTTP_1_1", i);
            }
        } finally {
            await(client.close());
        }
        assertEquals(1, connections.get() - before, "one keep-alive connection carried every request");
        assertEquals(Set.of(RdmaSocketChannel.class), clientChannels, "the clients' channels");
    }

    @Test
    void h2cStreamsOfEverySizeComeBackWholeAtOnce() throws Exception {
        int before = connections.get();
        HttpClient client = rdma.vertx().createHttpClient(new HttpClientOptions()
                .setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false));
        try {
            List<Future<EchoAnswer>> answers = new ArrayList<>();
            for (int i = 0; i < Payloads.SIZES.length; i++) {
                answers.add(post(client, host(), Payloads.bytes(100 + i, Payloads.SIZES[i])));
            }
            for (int i = 0; i < answers.size(); i++) {
                await(answers.get(i)).assertWhole("HTTP_2", i);
            }
        } finally {
            await(client.close());
        }
        assertEquals(1, connections.get() - before, "the streams shared one connection");
        assertEquals(Set.of(RdmaSocketChannel.class), clientChannels, "the clients' channels");
    }

    @Test
    void h2cByUpgradeFromHttp11() throws Exception {
        HttpClient client = rdma.vertx().createHttpClient(
                new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2));
        try {
            await(post(client, host(), new byte[0])).assertWhole("HTTP_2", 0);
            await(post(client, host(), Payloads.bytes(200, 1 << 20))).assertWhole("HTTP_2", 1);
        } finally {
            await(client.close());
        }
    }

    @Test
    void sendFileArrivesWhole() throws Exception {
        HttpClient client = rdma.vertx().createHttpClient(new HttpClientOptions());
        try {
            EchoAnswer answer = await(client.request(HttpMethod.GET, server.actualPort(), host(), "/file")
                    .compose(request -> request.send())
                    .compose(response -> response.body().map(body -> answer(response, body, new byte[0]))));
            assertEquals(200, answer.status());
            assertEquals("RdmaSocketChannel", answer.serverChannel());
            assertEquals(file.size(), answer.body().length);
            assertEquals(Payloads.hex(file.crc()), Payloads.hex(Payloads.crc32(answer.body())));
        } finally {
            await(client.close());
        }
    }

    @Test
    void hostNamesResolveFromHostsEntriesAndTheNameServer() throws Exception {
        HttpClient client = rdma.vertx().createHttpClient(new HttpClientOptions());
        try {
            await(post(client, VertxOnRdma.HOSTS_NAME, Payloads.bytes(300, 100))).assertWhole("HTTP_1_1", 0);
            await(post(client, VertxOnRdma.DNS_NAME, Payloads.bytes(301, 100))).assertWhole("HTTP_1_1", 1);
            assertTrue(rdma.nameServer().queries(VertxOnRdma.DNS_NAME) > 0, "the name server was asked");
            // The TC flag sends the resolver to TCP, which here is an RDMA connect to the name server;
            // that fails, and the resolver takes the truncated answer.
            await(post(client, VertxOnRdma.TRUNCATED_NAME, Payloads.bytes(302, 100))).assertWhole("HTTP_1_1", 2);
            assertTrue(rdma.nameServer().queries(VertxOnRdma.TRUNCATED_NAME) > 0, "the name server was asked");
        } finally {
            await(client.close());
        }
    }

    private static Future<EchoAnswer> post(HttpClient client, String host, byte[] body) {
        return post(client, host, server.actualPort(), body, channel -> clientChannels.add(channel.getClass()));
    }

    /**
     * Posts {@code body} to {@code /echo} at {@code host} and {@code port} with its CRC32, gives the
     * channel the request went out on to {@code connectedOn}, and returns what the server answered.
     */
    static Future<EchoAnswer> post(HttpClient client, String host, int port, byte[] body,
                                   Consumer<Channel> connectedOn) {
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.POST).setHost(host)
                .setPort(port).setURI("/echo").putHeader(CRC_HEADER, Payloads.hex(Payloads.crc32(body)));
        return client.request(options).compose(request -> {
            connectedOn.accept(VertxChannels.of(request.connection()));
            return request.send(Buffer.buffer(body))
                    .compose(response -> response.body().map(echoed -> answer(response, echoed, body)));
        });
    }

    private static EchoAnswer answer(HttpClientResponse response, Buffer body, byte[] sent) {
        return new EchoAnswer(response.statusCode(), response.version().name(), response.getHeader(CRC_HEADER),
                response.getHeader(CHANNEL_HEADER), body.getBytes(), sent);
    }
}
