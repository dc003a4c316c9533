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
package org.nettyrdma.example.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetSocketAddress;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.nettyrdma.example.Transport;

/** The HTTP example over NIO on the loopback interface: what {@code scripts/demo} runs over RDMA. */
class HttpHelloExampleTest {

    private EventLoopGroup group;
    private Channel server;

    @BeforeEach
    void startServer() throws InterruptedException {
        group = Transport.NIO.newEventLoopGroup(2);
        server = HttpHelloServer.start(group, Transport.NIO, new InetSocketAddress("127.0.0.1", 0));
    }

    @AfterEach
    void stopServer() throws InterruptedException {
        server.close().sync();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    @Test
    void everyGetIsAnsweredWithTheGreeting() throws Exception {
        assertEquals("Hello over nio", HttpHelloServer.greeting(Transport.NIO));
        assertTrue(HttpHelloClient.get(group, Transport.NIO, (InetSocketAddress) server.localAddress(), 50) > 0);
    }

    @Test
    void aWrongBodyFailsTheClient() throws Exception {
        // An epoll client is a TCP client too: it reaches the NIO server, and expects "Hello over epoll".
        assumeTrue(Transport.EPOLL.isAvailable(), "epoll is unavailable here");
        EventLoopGroup epollGroup = Transport.EPOLL.newEventLoopGroup(1);
        try {
            ExecutionException e = assertThrows(ExecutionException.class, () -> HttpHelloClient.get(epollGroup,
                    Transport.EPOLL, (InetSocketAddress) server.localAddress(), 3));
            assertInstanceOf(IllegalStateException.class, e.getCause());
            assertEquals("answer 0: 200 OK \"Hello over nio\" (expected: 200 OK \"Hello over epoll\")",
                    e.getCause().getMessage());
        } finally {
            epollGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
