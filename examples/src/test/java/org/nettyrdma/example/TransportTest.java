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
package org.nettyrdma.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.junit.jupiter.api.Test;
import org.nettyrdma.channel.rdma.Rdma;
import org.nettyrdma.channel.rdma.RdmaServerSocketChannel;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;

class TransportTest {

    @Test
    void namesAreTheCommandLineNames() {
        assertSame(Transport.RDMA, Transport.of("rdma"));
        assertSame(Transport.NIO, Transport.of("NIO"));
        assertSame(Transport.EPOLL, Transport.of("Epoll"));
        assertEquals("epoll", Transport.EPOLL.displayName());
        assertEquals("transport: tcp (expected: rdma, rdma-nopoll, rdma-busypoll, nio or epoll)",
                assertThrows(IllegalArgumentException.class, () -> Transport.of("tcp")).getMessage());
    }

    @Test
    void rdmaUsesTheRdmaChannels() {
        assertSame(RdmaSocketChannel.class, Transport.RDMA.socketChannelClass());
        assertSame(RdmaServerSocketChannel.class, Transport.RDMA.serverSocketChannelClass());
        assertEquals(Rdma.isAvailable(), Transport.RDMA.isAvailable());
    }

    @Test
    void rdmaTransportsGiveTheirLoopTunables() {
        assertEquals(0, Transport.RDMA.rdmaLoopConfig().getBusyPollMicros());
        assertEquals(0, Transport.RDMA_NOPOLL.rdmaLoopConfig().getAdaptivePollMicros());
        assertEquals(2000, Transport.RDMA_BUSYPOLL.rdmaLoopConfig().getBusyPollMicros());
        assertTrue(Transport.RDMA_BUSYPOLL.isRdma());
        assertEquals("epoll is not an RDMA transport",
                assertThrows(IllegalStateException.class, Transport.EPOLL::rdmaLoopConfig).getMessage());
    }

    @Test
    void rdmaWithoutADeviceSaysWhy() {
        assumeFalse(Rdma.isAvailable(), "an RDMA device is present");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Transport.RDMA.newEventLoopGroup(1));
        assertTrue(e.getMessage().startsWith("rdma is unavailable: "), e.getMessage());
        assertSame(Rdma.unavailabilityCause(), e.getCause());
    }

    @Test
    void nioGroupAndChannelsConnect() throws Exception {
        assertTrue(Transport.NIO.isAvailable());
        assertSame(NioSocketChannel.class, Transport.NIO.socketChannelClass());
        assertSame(NioServerSocketChannel.class, Transport.NIO.serverSocketChannelClass());
        connectsOnLoopback(Transport.NIO);
    }

    @Test
    void epollGroupAndChannelsConnect() throws Exception {
        assumeTrue(Transport.EPOLL.isAvailable(), "epoll is unavailable here");
        connectsOnLoopback(Transport.EPOLL);
    }

    private static void connectsOnLoopback(Transport transport) throws Exception {
        EventLoopGroup group = transport.newEventLoopGroup(1);
        try {
            Channel server = new ServerBootstrap().group(group).channel(transport.serverSocketChannelClass())
                    .childHandler(new ChannelInboundHandlerAdapter())
                    .bind("127.0.0.1", 0).sync().channel();
            Channel client = new Bootstrap().group(group).channel(transport.socketChannelClass())
                    .handler(new ChannelInboundHandlerAdapter())
                    .connect(server.localAddress()).sync().channel();
            assertInstanceOf(transport.socketChannelClass(), client);
            assertTrue(client.isActive());
            client.close().sync();
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
