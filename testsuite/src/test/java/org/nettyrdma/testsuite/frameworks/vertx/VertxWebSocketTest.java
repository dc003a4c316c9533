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
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.nettyrdma.testsuite.frameworks.vertx.VertxOnRdma.TIMEOUT_SECONDS;
import static org.nettyrdma.testsuite.frameworks.vertx.VertxOnRdma.await;
import static org.nettyrdma.testsuite.frameworks.vertx.VertxOnRdma.host;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.testsuite.frameworks.Payloads;

/**
 * Vert.x's WebSocket server and client, unchanged, over RDMA: binary messages of the sizes of
 * {@link Payloads#SIZES} up to 1 MiB (in frames of 64 KiB) come back from an echoing server whole
 * and in order, a text message too, and the closing handshake reaches the server. Larger messages
 * take no other path, only longer: Vert.x gathers a message's frames by appending each to one buffer.
 */
class VertxWebSocketTest {

    private static final int MAX_MESSAGE = 1 << 20;

    @RegisterExtension
    static final VertxOnRdma rdma = new VertxOnRdma();

    @Test
    void binaryMessagesOfEverySizeComeBackWholeAndInOrder() throws Exception {
        CompletableFuture<String> serverChannel = new CompletableFuture<>();
        CompletableFuture<Short> serverClosed = new CompletableFuture<>();
        HttpServer server = await(rdma.vertx().createHttpServer(new HttpServerOptions().setHost(host()).setPort(0)
                        .setMaxWebSocketMessageSize(MAX_MESSAGE))
                .webSocketHandler(webSocket -> {
                    serverChannel.complete(VertxChannels.of(webSocket).getClass().getSimpleName());
                    webSocket.binaryMessageHandler(webSocket::writeBinaryMessage);
                    webSocket.textMessageHandler(webSocket::writeTextMessage);
                    webSocket.closeHandler(closed -> serverClosed.complete(webSocket.closeStatusCode()));
                })
                .listen());
        WebSocketClient client = rdma.vertx().createWebSocketClient(new WebSocketClientOptions()
                .setMaxMessageSize(MAX_MESSAGE));
        try {
            WebSocket webSocket = await(client.connect(server.actualPort(), host(), "/echo"));
            assertEquals("RdmaSocketChannel", VertxChannels.of(webSocket).getClass().getSimpleName());
            BlockingQueue<Buffer> binary = new LinkedBlockingQueue<>();
            BlockingQueue<String> text = new LinkedBlockingQueue<>();
            webSocket.binaryMessageHandler(binary::add);
            webSocket.textMessageHandler(text::add);

            for (int i = 0; i < Payloads.SIZES.length && Payloads.SIZES[i] <= MAX_MESSAGE; i++) {
                byte[] message = Payloads.bytes(400 + i, Payloads.SIZES[i]);
                await(webSocket.writeBinaryMessage(Buffer.buffer(message)));
                Buffer echoed = binary.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                assertNotNull(echoed, "message " + i + " (" + message.length + " bytes) came back");
                assertEquals(message.length, echoed.length(), "message " + i + ": the echoed length");
                assertEquals(Payloads.hex(Payloads.crc32(message)), Payloads.hex(Payloads.crc32(echoed.getBytes())),
                        "message " + i + ": the echoed bytes");
            }
            await(webSocket.writeTextMessage("über RDMA"));
            assertEquals("über RDMA", text.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS));
            assertEquals("RdmaSocketChannel", serverChannel.get(TIMEOUT_SECONDS, TimeUnit.SECONDS));

            await(webSocket.close((short) 1000));
            assertEquals((short) 1000, serverClosed.get(TIMEOUT_SECONDS, TimeUnit.SECONDS),
                    "the server got the close frame");
        } finally {
            await(client.close());
            await(server.close());
        }
    }
}
