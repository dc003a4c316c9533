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
package org.nettyrdma.benchmark;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import org.nettyrdma.channel.rdma.RdmaChannelOption;
import org.nettyrdma.channel.rdma.RdmaFallbackReason;
import org.nettyrdma.channel.rdma.RdmaServerSocketChannel;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;

/**
 * The echo servers {@link FallbackBenchmark} connects to, in its own JVM on loops of their own: a server
 * of this transport with {@code TCP_FALLBACK} off (RDMA CM only, no TCP listener) and one with the
 * default (RDMA CM and TCP on one port), both on the device's address; one of this transport on the
 * wildcard address, which the loopback address reaches over TCP only; and Netty's epoll server on the
 * device's address, where RDMA CM finds no listener. Each server of this transport checks that its
 * children are carried as its clients must have connected, and keeps the first that is not.
 */
final class FallbackServers implements AutoCloseable {

    private static final long CLOSE_SECONDS = 30;

    private final List<Channel> channels = new ArrayList<>();
    private volatile String failure;

    private FallbackServers() {
    }

    /**
     * Binds the servers: those of this transport on {@code rdmaGroup}, the epoll server on
     * {@code epollGroup}, each on a port the kernel picks.
     */
    static FallbackServers start(EventLoopGroup rdmaGroup, EventLoopGroup epollGroup, InetAddress device)
            throws InterruptedException {
        FallbackServers servers = new FallbackServers();
        try {
            servers.bind(rdma(rdmaGroup, servers, null).option(RdmaChannelOption.TCP_FALLBACK, false), device);
            servers.bind(rdma(rdmaGroup, servers, null), device);
            servers.bind(rdma(rdmaGroup, servers, RdmaFallbackReason.PEER_USED_TCP), null);
            servers.bind(new ServerBootstrap().group(epollGroup).channel(EpollServerSocketChannel.class)
                    .childHandler(servers.echo(null)), device);
        } catch (RuntimeException | InterruptedException e) {
            servers.close();
            throw e;
        }
        return servers;
    }

    private static ServerBootstrap rdma(EventLoopGroup group, FallbackServers servers,
                                        RdmaFallbackReason childReason) {
        return new ServerBootstrap().group(group).channel(RdmaServerSocketChannel.class)
                .childHandler(servers.echo(childReason));
    }

    private void bind(ServerBootstrap bootstrap, InetAddress address) throws InterruptedException {
        channels.add(bootstrap.bind(new InetSocketAddress(address, 0)).sync().channel());
    }

    /** Returns the address of the server of this transport with {@code TCP_FALLBACK} off. */
    InetSocketAddress rdmaStrict() {
        return address(0);
    }

    /** Returns the address of the server of this transport with the default {@code TCP_FALLBACK}. */
    InetSocketAddress rdmaDefault() {
        return address(1);
    }

    /** Returns the port of the server of this transport bound to the wildcard address. */
    int rdmaWildcardPort() {
        return address(2).getPort();
    }

    /** Returns the address of Netty's epoll server. */
    InetSocketAddress epoll() {
        return address(3);
    }

    private InetSocketAddress address(int server) {
        return (InetSocketAddress) channels.get(server).localAddress();
    }

    /** Returns the first child carried otherwise than its server expected, or {@code null}. */
    String failure() {
        return failure;
    }

    /**
     * Echoes on every child; for a child of this transport, checks that it is carried by RDMA
     * ({@code expected} {@code null}) or by TCP for {@code expected}.
     */
    private ChannelInitializer<Channel> echo(RdmaFallbackReason expected) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel child) {
                if (child instanceof RdmaSocketChannel) {
                    RdmaFallbackReason reason = ((RdmaSocketChannel) child).fallbackReason();
                    if (!Objects.equals(reason, expected) && failure == null) {
                        failure = "the server's child " + child + " is carried by " + FallbackPath.carrier(reason)
                                + ", expected " + FallbackPath.carrier(expected);
                    }
                }
                child.pipeline().addLast(new Echo());
            }
        };
    }

    @Override
    public void close() throws InterruptedException {
        for (Channel channel : channels) {
            channel.close().await(CLOSE_SECONDS, TimeUnit.SECONDS);
        }
    }
}
