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

    /** RDMA over an RC queue pair: bind and connect to the address of an RDMA interface. */
    RDMA {
        @Override
        public Throwable unavailabilityCause() {
            return Rdma.unavailabilityCause();
        }

        @Override
        IoHandlerFactory ioHandlerFactory() {
            return RdmaIoHandler.newFactory();
        }

        @Override
        public Class<? extends SocketChannel> socketChannelClass() {
            return RdmaSocketChannel.class;
        }

        @Override
        public Class<? extends ServerSocketChannel> serverSocketChannelClass() {
            return RdmaServerSocketChannel.class;
        }
    },

    /** TCP through the JDK's selector: runs everywhere. */
    NIO {
        @Override
        public Throwable unavailabilityCause() {
            return null;
        }

        @Override
        IoHandlerFactory ioHandlerFactory() {
            return NioIoHandler.newFactory();
        }

        @Override
        public Class<? extends SocketChannel> socketChannelClass() {
            return NioSocketChannel.class;
        }

        @Override
        public Class<? extends ServerSocketChannel> serverSocketChannelClass() {
            return NioServerSocketChannel.class;
        }
    },

    /** TCP through Netty's native epoll transport (Linux). */
    EPOLL {
        @Override
        public Throwable unavailabilityCause() {
            return Epoll.unavailabilityCause();
        }

        @Override
        IoHandlerFactory ioHandlerFactory() {
            return EpollIoHandler.newFactory();
        }

        @Override
        public Class<? extends SocketChannel> socketChannelClass() {
            return EpollSocketChannel.class;
        }

        @Override
        public Class<? extends ServerSocketChannel> serverSocketChannelClass() {
            return EpollServerSocketChannel.class;
        }
    };

    /**
     * Returns the transport called {@code name} ({@code rdma}, {@code nio} or {@code epoll}, in any case).
     *
     * @throws IllegalArgumentException if there is none of that name
     */
    public static Transport of(String name) {
        for (Transport transport : values()) {
            if (transport.displayName().equals(name.toLowerCase(Locale.ROOT))) {
                return transport;
            }
        }
        throw new IllegalArgumentException("transport: " + name + " (expected: rdma, nio or epoll)");
    }

    /** Returns the name used on the command line and in output: {@code rdma}, {@code nio}, {@code epoll}. */
    public String displayName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Returns {@code true} if this transport can be used here. */
    public boolean isAvailable() {
        return unavailabilityCause() == null;
    }

    /** Returns why this transport cannot be used here, or {@code null} if it can. */
    public abstract Throwable unavailabilityCause();

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
        return new MultiThreadIoEventLoopGroup(threads, ioHandlerFactory());
    }

    abstract IoHandlerFactory ioHandlerFactory();

    /** Returns the class of this transport's client channel, for {@code Bootstrap.channel(...)}. */
    public abstract Class<? extends SocketChannel> socketChannelClass();

    /** Returns the class of this transport's server channel, for {@code ServerBootstrap.channel(...)}. */
    public abstract Class<? extends ServerSocketChannel> serverSocketChannelClass();
}
