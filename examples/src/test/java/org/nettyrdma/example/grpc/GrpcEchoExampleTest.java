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
package org.nettyrdma.example.grpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor.MethodType;
import io.grpc.Server;
import io.netty.channel.EventLoopGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nettyrdma.example.Transport;

/** The gRPC example over NIO on the loopback interface: what the device tests run over RDMA. */
class GrpcEchoExampleTest {

    private EventLoopGroup group;
    private Server server;
    private ManagedChannel channel;

    @BeforeEach
    void start() throws Exception {
        group = Transport.NIO.newEventLoopGroup(2);
        server = GrpcEchoServer.start(group, Transport.NIO, new InetSocketAddress("127.0.0.1", 0));
        channel = GrpcEchoClient.newChannel(group, Transport.NIO,
                (InetSocketAddress) server.getListenSockets().get(0));
    }

    @AfterEach
    void stop() throws InterruptedException {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 100_000, GrpcEchoClient.MAX_SIZE})
    void aUnaryCallAnswersWithItsOwnBytes(int size) {
        byte[] message = GrpcEchoClient.messages(new Random(size), size).get(0);
        assertArrayEquals(message, GrpcEchoClient.unary(channel, message));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 100_000, GrpcEchoClient.MAX_SIZE})
    void aStreamAnswersEveryMessageInOrder(int size) throws Exception {
        List<byte[]> messages = GrpcEchoClient.messages(new Random(size), size, size, size);
        List<byte[]> answers = GrpcEchoClient.stream(channel, messages);
        assertEquals(messages.size(), answers.size());
        for (int i = 0; i < messages.size(); i++) {
            assertArrayEquals(messages.get(i), answers.get(i), "message " + i);
        }
        assertEquals(GrpcEchoClient.crc32(messages), GrpcEchoClient.crc32(answers));
    }

    @Test
    void theServiceHasAUnaryAndABidirectionalMethod() {
        assertEquals(MethodType.UNARY, GrpcEchoService.UNARY.getType());
        assertEquals(MethodType.BIDI_STREAMING, GrpcEchoService.STREAM.getType());
        assertEquals("nettyrdma.example.Echo/Stream", GrpcEchoService.STREAM.getFullMethodName());
        assertEquals(2, GrpcEchoService.definition().getMethods().size());
    }

    @Test
    void aMessageIsItsOwnBytes() throws Exception {
        byte[] bytes = {1, 2, 3};
        try (InputStream stream = ByteArrayMarshaller.INSTANCE.stream(bytes)) {
            assertTrue(stream instanceof ByteArrayInputStream);
            assertArrayEquals(bytes, ByteArrayMarshaller.INSTANCE.parse(stream));
        }
        assertArrayEquals(new byte[0], ByteArrayMarshaller.INSTANCE.parse(new ByteArrayInputStream(new byte[0])));
    }
}
