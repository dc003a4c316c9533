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
package org.nettyrdma.testsuite.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.epoll.EpollSocketChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaChannelOption;
import org.nettyrdma.channel.rdma.RdmaFallbackReason;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.testkit.Await;
import org.nettyrdma.testkit.DeviceUnderTest;
import org.nettyrdma.testkit.EchoHandler;
import org.nettyrdma.testkit.EchoProbe;
import org.nettyrdma.testkit.RdmaTestEnvironment;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * The transport over IPv6, on the RDMA interface's IPv6 address ({@code fd00:77::1} in the rxe VM, a
 * RoCE v2 GID of its own): an echo carried by RDMA, the addresses each end reports, a server on the
 * IPv6 wildcard that takes IPv4 and IPv6 clients as Netty's epoll transport does, the per-address
 * bound per IPv6 address and for an IPv4 peer whichever way it came, a link-local address without its
 * interface and with it, and the IPv6 loopback address, which no RDMA device serves, over TCP.
 */
class RdmaIpv6Test {

    /**
     * On iWARP RDMA CM listens on a kernel TCP socket at the server's port, so the server has no TCP
     * listener beside it (docs/devices.md#siw-known-failures).
     */
    private static final String IWARP_NO_TCP_LISTENER = "on iWARP RDMA CM holds the server's TCP port: it has no TCP"
            + " listener";

    private static final InetAddress IPV6_ANY = address("::");
    private static final InetAddress IPV6_LOOPBACK = address("::1");

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    @Test
    void echoesOverTheDevicesIpv6AddressCarriedByRdma() throws Exception {
        Inet6Address device = RdmaTestEnvironment.ipv6Address();
        List<RdmaSocketChannel> children = new CopyOnWriteArrayList<>();
        Channel server = rdma.server().childHandler(EchoHandler.keeping(children)).bind(device, 0).sync().channel();
        InetSocketAddress bound = (InetSocketAddress) server.localAddress();
        assertEquals(device, bound.getAddress(), "the server reports the IPv6 address it is bound to");
        assertTrue(bound.getPort() > 0, "a port was chosen: " + bound);

        EchoProbe probe = new EchoProbe(61, 1, 100, 8176, 65536, 1 << 20);
        RdmaSocketChannel client = (RdmaSocketChannel) rdma.client().handler(probe).connect(bound).sync().channel();
        assertNull(client.fallbackReason(), "RDMA carries the connection over IPv6");
        probe.writeAll(client);
        probe.assertEchoed(60);

        assertEquals(bound, client.remoteAddress(), "the client's remote address is the server's");
        assertInstanceOf(Inet6Address.class, client.localAddress().getAddress());
        assertEquals(device, client.localAddress().getAddress(), "the client's source is the interface's");
        Await.until(() -> children.size() == 1, 30, () -> children.size() + " children");
        RdmaSocketChannel child = children.get(0);
        assertNull(child.fallbackReason());
        assertEquals(client.localAddress(), child.remoteAddress(), "the child's peer is the client");
        assertEquals(bound, child.localAddress(), "the child's local address is the server's");
        System.out.printf("over IPv6: client %s -> %s, child %s <- %s%n", client.localAddress(),
                client.remoteAddress(), child.localAddress(), child.remoteAddress());

        client.close().sync();
        server.close().sync();
    }

    @Test
    void theIpv6WildcardTakesIpv4AndIpv6ClientsOverRdma() throws Exception {
        List<RdmaSocketChannel> children = new CopyOnWriteArrayList<>();
        Channel server = rdma.server().childHandler(EchoHandler.keeping(children)).bind(IPV6_ANY, 0).sync().channel();
        InetSocketAddress bound = (InetSocketAddress) server.localAddress();
        assertTrue(bound.getAddress().isAnyLocalAddress(), "bound to the wildcard: " + bound);

        InetSocketAddress overIpv4 = new InetSocketAddress(RdmaTestEnvironment.ipv4Address(), bound.getPort());
        InetSocketAddress overIpv6 = new InetSocketAddress(RdmaTestEnvironment.ipv6Address(), bound.getPort());
        for (InetSocketAddress target : List.of(overIpv4, overIpv6)) {
            EchoProbe probe = new EchoProbe(62, 64, 100_000);
            RdmaSocketChannel client = (RdmaSocketChannel) rdma.client().handler(probe).connect(target).sync()
                    .channel();
            assertNull(client.fallbackReason(), "RDMA carries the client to " + target);
            assertEquals(target, client.remoteAddress());
            probe.writeAll(client);
            probe.assertEchoed(60);
            Await.until(() -> children.stream().anyMatch(c -> client.localAddress().equals(c.remoteAddress())), 30,
                    () -> "a child whose peer is " + client.localAddress() + " among " + children);
            System.out.printf("to the IPv6 wildcard over %s: client %s -> %s, %d children%n", target,
                    client.localAddress(), client.remoteAddress(), children.size());
            client.close().sync();
        }
        RdmaSocketChannel ipv4Child = children.get(0);
        // RDMA CM reports an IPv4 peer of a dual-stack listener as IPv4; an IPv4-mapped IPv6 address
        // (::ffff:a.b.c.d) would read as the IPv4 address too, as on Netty's epoll transport.
        assertInstanceOf(Inet4Address.class, ipv4Child.remoteAddress().getAddress(), "the IPv4 client's address");
        assertEquals(overIpv4, ipv4Child.localAddress(), "the IPv4 child's local address");
        assertInstanceOf(Inet6Address.class, children.get(1).remoteAddress().getAddress(), "the IPv6 client's");

        server.close().sync();
    }

    @Test
    void anIpv6AddressHoldsNoMoreConnectionsThanItsBound() throws Exception {
        Channel server = rdma.server().option(RdmaChannelOption.MAX_CONNECTIONS_PER_ADDRESS, 1)
                .childHandler(EchoHandler.INSTANCE).bind(IPV6_ANY, 0).sync().channel();
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        InetSocketAddress overIpv6 = new InetSocketAddress(RdmaTestEnvironment.ipv6Address(), port);

        Channel first = rdma.client().handler(new ChannelInboundHandlerAdapter()).connect(overIpv6).sync().channel();
        ChannelFuture second = rdma.client().handler(new ChannelInboundHandlerAdapter()).connect(overIpv6).await();
        assertFalse(second.isSuccess(), "a second connection from the same IPv6 address is beyond the bound");
        assertInstanceOf(ConnectException.class, second.cause());
        assertTrue(second.cause().getMessage().contains("MAX_CONNECTIONS_PER_ADDRESS"), second.cause().getMessage());

        // The IPv4 address of the same host is another address: it has a connection of its own.
        InetSocketAddress overIpv4 = new InetSocketAddress(RdmaTestEnvironment.ipv4Address(), port);
        RdmaSocketChannel ipv4 = (RdmaSocketChannel) rdma.client().handler(new ChannelInboundHandlerAdapter())
                .connect(overIpv4).sync().channel();
        assertNull(ipv4.fallbackReason());

        // And it counts once whichever family and carrier it came by: a TCP connection from that IPv4
        // address to the dual-stack TCP listener (its peer reported as IPv4 by Netty's epoll) is
        // beyond the bound, and the server closes it. An iWARP server has no TCP listener to ask.
        if (!DeviceUnderTest.isIwarp()) {
            Channel tcp = new Bootstrap().group(rdma.group()).channel(EpollSocketChannel.class)
                    .handler(new ChannelInboundHandlerAdapter()).connect(overIpv4).sync().channel();
            assertTrue(tcp.closeFuture().await(30, TimeUnit.SECONDS), "the server closed the TCP connection");
        }

        first.close().sync();
        ipv4.close().sync();
        server.close().sync();
    }

    @Test
    void aLinkLocalAddressWithoutItsInterfaceIsRefusedSayingSo() throws Exception {
        InetSocketAddress unscoped = new InetSocketAddress(address("fe80::1"), 7010);
        ChannelFuture connect = rdma.client().handler(new ChannelInboundHandlerAdapter()).connect(unscoped).await();
        assertFalse(connect.isSuccess());
        assertInstanceOf(SocketException.class, connect.cause());
        String message = connect.cause().getMessage();
        System.out.println("connect to " + unscoped + ": " + message);
        assertTrue(message.contains("has no scope") && message.contains("interface")
                && message.contains("fe80:0:0:0:0:0:0:1%"), message);

        ChannelFuture bind = rdma.server().childHandler(EchoHandler.INSTANCE).bind(unscoped).await();
        assertFalse(bind.isSuccess());
        assertTrue(bind.cause().getMessage().contains("has no scope"), bind.cause().getMessage());
    }

    @Test
    void aLinkLocalAddressWithItsInterfaceEchoes() throws Exception {
        Inet6Address linkLocal = RdmaTestEnvironment.linkLocalAddress();
        Channel server = rdma.server().childHandler(EchoHandler.INSTANCE).bind(linkLocal, 0).sync().channel();

        EchoProbe probe = new EchoProbe(63, 64, 100_000);
        RdmaSocketChannel client = (RdmaSocketChannel) rdma.client().handler(probe).connect(server.localAddress())
                .sync().channel();
        assertNull(client.fallbackReason(), "RDMA carries the connection over the link-local address");
        probe.writeAll(client);
        probe.assertEchoed(60);

        client.close().sync();
        server.close().sync();
    }

    @Test
    void aClientToTheIpv6LoopbackReachesTheWildcardServerOverTcp() throws Exception {
        assumeFalse(DeviceUnderTest.isIwarp(), IWARP_NO_TCP_LISTENER);
        List<RdmaSocketChannel> children = new CopyOnWriteArrayList<>();
        Channel server = rdma.server().childHandler(EchoHandler.keeping(children)).bind(0).sync().channel();
        InetSocketAddress target = new InetSocketAddress(IPV6_LOOPBACK,
                ((InetSocketAddress) server.localAddress()).getPort());

        EchoProbe probe = new EchoProbe(64, 64, 100_000);
        RdmaSocketChannel client = (RdmaSocketChannel) rdma.client().handler(probe).connect(target).sync().channel();
        assertEquals(RdmaFallbackReason.NO_ROUTE, client.fallbackReason(), "no RDMA device serves ::1");
        assertEquals(target, client.remoteAddress());
        probe.writeAll(client);
        probe.assertEchoed(60);
        Await.until(() -> children.size() == 1, 30, () -> children.size() + " children");
        assertEquals(RdmaFallbackReason.PEER_USED_TCP, children.get(0).fallbackReason());
        assertEquals(IPV6_LOOPBACK, children.get(0).remoteAddress().getAddress());

        client.close().sync();
        server.close().sync();
    }

    private static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
