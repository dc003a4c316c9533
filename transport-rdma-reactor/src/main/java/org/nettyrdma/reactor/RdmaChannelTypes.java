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
package org.nettyrdma.reactor;

import java.util.List;
import java.util.function.Supplier;

import io.netty.channel.Channel;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollDomainDatagramChannel;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.unix.DomainDatagramChannel;
import io.netty.channel.unix.DomainSocketChannel;
import io.netty.channel.unix.ServerDomainSocketChannel;
import org.nettyrdma.channel.rdma.RdmaServerSocketChannel;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;

/**
 * Which channel class serves each of the channel types Reactor Netty asks its loop resources for,
 * on RDMA event loops: the RDMA channels for TCP's two types, and Netty's epoll channels for the
 * types RDMA does not carry (UDP, which Reactor's DNS resolver uses, and domain sockets), since an
 * {@code RdmaIoHandler} runs epoll's channels too. Stateless.
 */
final class RdmaChannelTypes {

    /** One type Reactor asks for, the class that serves it, and how to make one. */
    private record Entry(Class<? extends Channel> type, Class<? extends Channel> served,
                         Supplier<? extends Channel> factory) {
    }

    private static final List<Entry> ENTRIES = List.of(
            new Entry(SocketChannel.class, RdmaSocketChannel.class, RdmaSocketChannel::new),
            new Entry(ServerSocketChannel.class, RdmaServerSocketChannel.class, RdmaServerSocketChannel::new),
            new Entry(DatagramChannel.class, EpollDatagramChannel.class, EpollDatagramChannel::new),
            new Entry(DomainSocketChannel.class, EpollDomainSocketChannel.class, EpollDomainSocketChannel::new),
            new Entry(ServerDomainSocketChannel.class, EpollServerDomainSocketChannel.class,
                    EpollServerDomainSocketChannel::new),
            new Entry(DomainDatagramChannel.class, EpollDomainDatagramChannel.class, EpollDomainDatagramChannel::new));

    private RdmaChannelTypes() {
    }

    /**
     * Returns the class that serves {@code type}.
     *
     * @throws IllegalArgumentException if {@code type} is none of the six Reactor Netty asks for
     */
    static <C extends Channel> Class<? extends C> classFor(Class<C> type) {
        return entry(type).served().asSubclass(type);
    }

    /**
     * Returns a new channel that serves {@code type}.
     *
     * @throws IllegalArgumentException if {@code type} is none of the six Reactor Netty asks for
     */
    static <C extends Channel> C newChannel(Class<C> type) {
        return type.cast(entry(type).factory().get());
    }

    private static Entry entry(Class<? extends Channel> type) {
        for (Entry entry : ENTRIES) {
            if (entry.type() == type) {
                return entry;
            }
        }
        throw new IllegalArgumentException("channel type: " + type.getName() + " (expected: SocketChannel, "
                + "ServerSocketChannel, DatagramChannel or a domain socket type)");
    }
}
