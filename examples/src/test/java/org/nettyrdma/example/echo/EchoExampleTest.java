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
package org.nettyrdma.example.echo;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nettyrdma.example.Transport;

/** The echo example over NIO on the loopback interface: what {@code scripts/demo} runs over RDMA. */
class EchoExampleTest {

    private EventLoopGroup group;
    private Channel server;

    @BeforeEach
    void startServer() throws InterruptedException {
        group = Transport.NIO.newEventLoopGroup(2);
        server = EchoServer.start(group, Transport.NIO, new InetSocketAddress("127.0.0.1", 0));
    }

    @AfterEach
    void stopServer() throws InterruptedException {
        server.close().sync();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 256, 100_000})
    void everyMessageComesBackUnchanged(int size) throws Exception {
        assertTrue(EchoClient.echo(group, Transport.NIO, server.localAddress(), size, 5) > 0);
    }

    @Test
    void aMessageOfNoBytesIsRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> EchoClient.echo(group, Transport.NIO, server.localAddress(), 0, 1));
    }
}
