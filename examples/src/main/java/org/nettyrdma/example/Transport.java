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

import java.util.Locale;
import java.util.function.Supplier;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.nettyrdma.channel.rdma.Rdma;
import org.nettyrdma.channel.rdma.RdmaIoHandler;
import org.nettyrdma.channel.rdma.RdmaIoHandlerConfig;
import org.nettyrdma.channel.rdma.RdmaServerSocketChannel;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;

/**
 * The transports the examples run on, and the only place that knows which event loop and channel
 * classes each one uses: moving a Netty program from TCP to RDMA changes exactly these three things.
 *
 * <pre>{@code
 * EventLoopGroup group = new MultiThreadIoEventLoopGroup(RdmaIoHandler.newFactory());
 * new ServerBootstrap().group(group).channel(RdmaServerSocketChannel.class) ...
 * new Bootstrap().group(group).channel(RdmaSocketChannel.class) ...
 * }</pre>
 */
public enum Transport {

    /**
     * RDMA over an RC queue pair: bind and connect to the address of an RDMA interface. The loops
     * have the defaults: they poll after work for as long as the gaps between completions suggest,
     * up to 100 us (longer where waking a thread is slow), then sleep.
     */
    RDMA(RdmaIoHandlerConfig::new),

    /** RDMA as {@link #RDMA}, on loops that never poll: they sleep in epoll as soon as they find nothing. */
    RDMA_NOPOLL(() -> new RdmaIoHandlerConfig().setAdaptivePollMicros(0)),

    /**
     * RDMA as {@link #RDMA}, on loops that busy-poll their completion queues for up to 2000 us before
     * they wait in epoll: lower latency and a reader that is not woken per message, for a core's time.
     * The budget outlasts the gap between two messages of the benchmark's stream
     * (docs/decisions.md#busy-poll-budget).
     */
    RDMA_BUSYPOLL(() -> new RdmaIoHandlerConfig().setBusyPollMicros(2000)),

    /** TCP through the JDK's selector: runs everywhere. */
    NIO(() -> null, NioIoHandler::newFactory, NioSocketChannel.class, NioServerSocketChannel.class),

    /** TCP through Netty's native epoll transport (Linux). */
    EPOLL(Epoll::unavailabilityCause, EpollIoHandler::newFactory, EpollSocketChannel.class,
            EpollServerSocketChannel.class);

    private final Supplier<Throwable> unavailabilityCause;
    private final Supplier<IoHandlerFactory> ioHandlerFactory;
    /** The RDMA loops' tunables; {@code null} for TCP. */
    private final Supplier<RdmaIoHandlerConfig> rdmaLoopConfig;
    private final Class<? extends SocketChannel> socketChannelClass;
    private final Class<? extends ServerSocketChannel> serverSocketChannelClass;

    /** An RDMA transport, on loops of the tunables {@code rdmaLoopConfig} makes. */
    Transport(Supplier<RdmaIoHandlerConfig> rdmaLoopConfig) {
        this.unavailabilityCause = Rdma::unavailabilityCause;
        this.ioHandlerFactory = () -> RdmaIoHandler.newFactory(rdmaLoopConfig.get());
        this.rdmaLoopConfig = rdmaLoopConfig;
        this.socketChannelClass = RdmaSocketChannel.class;
        this.serverSocketChannelClass = RdmaServerSocketChannel.class;
    }

    /** A TCP transport. */
    Transport(Supplier<Throwable> unavailabilityCause, Supplier<IoHandlerFactory> ioHandlerFactory,
              Class<? extends SocketChannel> socketChannelClass,
              Class<? extends ServerSocketChannel> serverSocketChannelClass) {
        this.unavailabilityCause = unavailabilityCause;
        this.ioHandlerFactory = ioHandlerFactory;
        this.rdmaLoopConfig = null;
        this.socketChannelClass = socketChannelClass;
        this.serverSocketChannelClass = serverSocketChannelClass;
    }

    /**
     * Returns the transport called {@code name} ({@code rdma}, {@code rdma-nopoll}, {@code rdma-busypoll},
     * {@code nio} or {@code epoll}, in any case).
     *
     * @throws IllegalArgumentException if there is none of that name
     */
    public static Transport of(String name) {
        for (Transport transport : values()) {
            if (transport.displayName().equals(name.toLowerCase(Locale.ROOT))) {
                return transport;
            }
        }
        throw new IllegalArgumentException("transport: " + name
                + " (expected: rdma, rdma-nopoll, rdma-busypoll, nio or epoll)");
    }

    /** Returns the name used on the command line and in output: {@code rdma}, {@code nio}, {@code epoll}... */
    public String displayName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Returns {@code true} for the RDMA transports (registered memory to report, an RDMA address to use). */
    public boolean isRdma() {
        return rdmaLoopConfig != null;
    }

    /**
     * Returns a new copy of the tunables of this RDMA transport's loops, for frameworks that make their
     * loops themselves.
     *
     * @throws IllegalStateException for a TCP transport
     */
    public RdmaIoHandlerConfig rdmaLoopConfig() {
        if (rdmaLoopConfig == null) {
            throw new IllegalStateException(displayName() + " is not an RDMA transport");
        }
        return rdmaLoopConfig.get();
    }

    /** Returns {@code true} if this transport can be used here. */
    public boolean isAvailable() {
        return unavailabilityCause() == null;
    }

    /** Returns why this transport cannot be used here, or {@code null} if it can. */
    public Throwable unavailabilityCause() {
        return unavailabilityCause.get();
    }

    /**
     * Returns a new event loop group of {@code threads} threads for this transport's channels.
     *
     * @throws IllegalStateException with the reason if the transport is unavailable here
     */
    public EventLoopGroup newEventLoopGroup(int threads) {
        Throwable cause = unavailabilityCause();
        if (cause != null) {
            throw new IllegalStateException(displayName() + " is unavailable: " + cause.getMessage(), cause);
        }
        return new MultiThreadIoEventLoopGroup(threads, ioHandlerFactory.get());
    }

    /** Returns the class of this transport's client channel, for {@code Bootstrap.channel(...)}. */
    public Class<? extends SocketChannel> socketChannelClass() {
        return socketChannelClass;
    }

    /** Returns the class of this transport's server channel, for {@code ServerBootstrap.channel(...)}. */
    public Class<? extends ServerSocketChannel> serverSocketChannelClass() {
        return serverSocketChannelClass;
    }
}
