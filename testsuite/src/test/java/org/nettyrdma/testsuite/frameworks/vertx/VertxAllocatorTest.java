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
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.nettyrdma.testsuite.frameworks.vertx.VertxOnRdma.TIMEOUT_SECONDS;
import static org.nettyrdma.testsuite.frameworks.vertx.VertxOnRdma.await;
import static org.nettyrdma.testsuite.frameworks.vertx.VertxOnRdma.host;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.impl.buffer.VertxByteBufAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaChannelMetrics;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.testkit.RingsOnEveryDevice;
import org.nettyrdma.testsuite.frameworks.Payloads;

/**
 * What Vert.x's allocator, which the channels keep (docs/vertx.md#the-allocator), costs a sender on a
 * connection with a ring ({@link RingsOnEveryDevice}), where a large write of the transport's
 * registered memory would leave by RDMA Write from where it lies: every byte Vert.x writes is copied
 * once into registered memory first, as the client channel's {@link RdmaChannelMetrics} count.
 * <ul>
 *   <li>A WebSocket client's frames, which Netty's encoder masks into a buffer of the channel's
 *       allocator, Vert.x's pooled one.</li>
 *   <li>An HTTP request body, which Vert.x holds in a heap {@code Buffer} whatever the allocator.</li>
 * </ul>
 * Prints one line per measurement, the figures docs/vertx.md quotes.
 */
@ExtendWith(RingsOnEveryDevice.class)
class VertxAllocatorTest {

    private static final int MESSAGE = 256 * 1024;
    private static final int MESSAGES = 4;
    private static final int BODY = 1 << 20;

    @RegisterExtension
    static final VertxOnRdma rdma = new VertxOnRdma();

    private static HttpServer server;

    /** A server that answers each message and each body with its CRC32. */
    @BeforeAll
    static void listen() throws Exception {
        server = await(rdma.vertx().createHttpServer(new HttpServerOptions().setHost(host()).setPort(0)
                        .setMaxWebSocketMessageSize(MESSAGE))
                .webSocketHandler(webSocket -> webSocket.binaryMessageHandler(message ->
                        webSocket.writeTextMessage(Payloads.hex(Payloads.crc32(message.getBytes())))))
                .requestHandler(request -> request.body().onSuccess(body ->
                        request.response().end(Payloads.hex(Payloads.crc32(body.getBytes())))))
                .listen());
    }

    @AfterAll
    static void close() throws Exception {
        if (server != null) {
            await(server.close());
        }
    }

    @Test
    void maskedWebSocketFramesAreCopiedOnce() throws Exception {
        WebSocketClient client = rdma.vertx().createWebSocketClient();
        try {
            WebSocket webSocket = await(client.connect(server.actualPort(), host(), "/"));
            BlockingQueue<String> answers = new LinkedBlockingQueue<>();
            webSocket.textMessageHandler(answers::add);
            RdmaSocketChannel channel = (RdmaSocketChannel) VertxChannels.of(webSocket);
            assertSame(VertxByteBufAllocator.POOLED_ALLOCATOR, channel.alloc());
            RdmaChannelMetrics before = metricsOf(channel);
            for (int i = 0; i < MESSAGES; i++) {
                byte[] message = Payloads.bytes(800 + i, MESSAGE);
                await(webSocket.writeBinaryMessage(Buffer.buffer(message)));
                assertEquals(Payloads.hex(Payloads.crc32(message)), answers.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS),
                        "message " + i + " arrived whole");
            }
            Copies copies = new Copies("websocket", (long) MESSAGES * MESSAGE, before, metricsOf(channel)).print();
            assertTrue(copies.written() > 0, "frames sent by RDMA Write: " + copies);
            assertTrue(copies.copied() >= copies.payload(), "every frame copied: " + copies);
            await(webSocket.close());
        } finally {
            await(client.close());
        }
    }

    @Test
    void requestBodiesAreCopiedOnce() throws Exception {
        HttpClient client = rdma.vertx().createHttpClient(new HttpClientOptions());
        try {
            byte[] body = Payloads.bytes(900, BODY);
            HttpClientRequest request = await(client.request(HttpMethod.POST, server.actualPort(), host(), "/"));
            RdmaSocketChannel channel = (RdmaSocketChannel) VertxChannels.of(request.connection());
            RdmaChannelMetrics before = metricsOf(channel);
            Buffer answer = await(request.send(Buffer.buffer(body)).compose(response -> response.body()));
            assertEquals(Payloads.hex(Payloads.crc32(body)), answer.toString(), "the body arrived whole");
            Copies copies = new Copies("http-body", BODY, before, metricsOf(channel)).print();
            assertTrue(copies.written() > 0, "the body sent by RDMA Write: " + copies);
            assertTrue(copies.copied() >= copies.payload(), "the body copied: " + copies);
        } finally {
            await(client.close());
        }
    }

    /** Returns the channel's metrics as its event loop, which counts them, sees them now. */
    private static RdmaChannelMetrics metricsOf(RdmaSocketChannel channel) throws Exception {
        return channel.eventLoop().submit(channel::metrics).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    /**
     * What one client channel did while it sent {@code payload} bytes of {@code what}: the bytes it
     * copied, sent by RDMA Write and sent by Send, from its metrics before and after.
     */
    private record Copies(String what, long payload, long copied, long written, long sent) {
        Copies(String what, long payload, RdmaChannelMetrics before, RdmaChannelMetrics after) {
            this(what, payload, after.copiedBytes() - before.copiedBytes(),
                    after.rdmaWriteBytes() - before.rdmaWriteBytes(), after.sendBytes() - before.sendBytes());
        }

        Copies print() {
            System.out.printf("vertx allocator, ring: %s: payload %d B, copied %d B, RDMA Writes %d B, Sends %d B%n",
                    what, payload, copied, written, sent);
            return this;
        }
    }
}
