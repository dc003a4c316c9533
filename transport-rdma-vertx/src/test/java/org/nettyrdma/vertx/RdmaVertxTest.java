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
package org.nettyrdma.vertx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.util.Map;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.ChannelOption;
import io.netty.channel.unix.DomainSocketAddress;
import io.vertx.core.Vertx;
import io.vertx.core.impl.buffer.VertxByteBufAllocator;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.transport.Transport;
import org.junit.jupiter.api.Test;
import org.nettyrdma.channel.rdma.Rdma;

/**
 * What the Vert.x transport decides without a device: how it reports an unavailable RDMA, that
 * building a {@code Vertx} on it then fails with the reason instead of running on NIO, the options it
 * leaves on a bootstrap (Vert.x's allocator among them), and the domain socket addresses it converts.
 */
class RdmaVertxTest {

    @Test
    void reportsAvailabilityAsTheTransportDoes() {
        Transport transport = RdmaVertx.transport();
        assertEquals("rdma", transport.name());
        assertEquals(Rdma.isAvailable(), transport.available());
        assertSame(Rdma.unavailabilityCause(), transport.unavailabilityCause());
        // Vert.x replaces an implementation that reports itself unavailable with NIO, silently.
        assertTrue(transport.implementation().isAvailable(), "the SPI never asks Vert.x for its fallback");
    }

    @Test
    void buildingVertxWithoutRdmaFailsWithTheCause() {
        assumeFalse(Rdma.isAvailable(), "RDMA is available here");
        IllegalStateException failure = assertThrows(IllegalStateException.class,
                () -> Vertx.builder().withTransport(RdmaVertx.transport()).build());
        assertSame(Rdma.unavailabilityCause(), failure.getCause());
        assertTrue(failure.getMessage().startsWith("the RDMA transport is unavailable: "
                + Rdma.unavailabilityCause().getMessage()), failure.getMessage());
        assertTrue(failure.getMessage().contains("available()"),
                "says how to choose beforehand: " + failure.getMessage());
    }

    @Test
    void clientChannelsGetVertxStandardOptionsAndKeepItsAllocator() {
        Bootstrap bootstrap = new Bootstrap().option(ChannelOption.ALLOCATOR, VertxByteBufAllocator.POOLED_ALLOCATOR);
        NetClientOptions options = new NetClientOptions().setTcpKeepAlive(true).setSendBufferSize(1 << 20);
        RdmaVertx.transport().implementation().configure(options, 5000, false, bootstrap);
        Map<ChannelOption<?>, Object> set = bootstrap.config().options();
        // Vert.x releases what it reads only from the allocators it knows (docs/vertx.md#the-allocator).
        assertSame(VertxByteBufAllocator.POOLED_ALLOCATOR, set.get(ChannelOption.ALLOCATOR));
        assertEquals(Boolean.TRUE, set.get(ChannelOption.SO_KEEPALIVE));
        assertEquals(1 << 20, set.get(ChannelOption.SO_SNDBUF));
        assertEquals(5000, set.get(ChannelOption.CONNECT_TIMEOUT_MILLIS));
        assertFalse(set.keySet().stream().anyMatch(option -> option.name().startsWith("TCP_QUICKACK")
                || option.name().startsWith("TCP_CORK") || option.name().startsWith("TCP_USER_TIMEOUT")),
                "epoll's TCP options are left out: " + set.keySet());
    }

    @Test
    void serversGetVertxStandardOptionsAndKeepItsAllocator() {
        ServerBootstrap bootstrap = new ServerBootstrap()
                .childOption(ChannelOption.ALLOCATOR, VertxByteBufAllocator.POOLED_ALLOCATOR);
        RdmaVertx.transport().implementation().configure(new NetServerOptions().setAcceptBacklog(64)
                .setReusePort(true), false, bootstrap);
        assertSame(VertxByteBufAllocator.POOLED_ALLOCATOR,
                bootstrap.config().childOptions().get(ChannelOption.ALLOCATOR));
        assertEquals(64, bootstrap.config().options().get(ChannelOption.SO_BACKLOG));
        assertFalse(bootstrap.config().options().keySet().stream()
                .anyMatch(option -> option.name().equals("SO_REUSEPORT")), "epoll's SO_REUSEPORT is left out");
    }

    @Test
    void domainSocketAddressesConvertBothWays() {
        io.vertx.core.spi.transport.Transport spi = RdmaVertx.transport().implementation();
        assertTrue(spi.supportsDomainSockets());
        java.net.SocketAddress converted = spi.convert(SocketAddress.domainSocketAddress("/tmp/vertx.sock"));
        assertEquals(new DomainSocketAddress("/tmp/vertx.sock"), converted);
        assertEquals("/tmp/vertx.sock", spi.convert(converted).path());
    }
}
