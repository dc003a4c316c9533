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

import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.InternetProtocolFamily;
import io.netty.channel.unix.DomainSocketAddress;
import io.vertx.core.datagram.DatagramSocketOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.spi.transport.Transport;
import org.nettyrdma.channel.rdma.Rdma;
import org.nettyrdma.channel.rdma.RdmaIoHandler;
import org.nettyrdma.channel.rdma.RdmaIoHandlerConfig;
import org.nettyrdma.channel.rdma.RdmaServerSocketChannel;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;

/**
 * Vert.x's transport SPI over RDMA. Vert.x asks it for its event loops, its socket channels, its
 * datagram channels and the options they get:
 * <ul>
 *   <li>event loops: {@link RdmaIoHandler}s, which are Netty's epoll loops with RDMA added;</li>
 *   <li>TCP sockets (NetServer, NetClient, HTTP, WebSockets): {@link RdmaSocketChannel} and
 *       {@link RdmaServerSocketChannel};</li>
 *   <li>datagrams (Vert.x's DNS resolver, its datagram sockets) and domain sockets: RDMA has neither,
 *       and Netty's epoll channels for them run on the same loops, since an {@link RdmaIoHandler}
 *       takes epoll's channels too;</li>
 *   <li>file regions ({@code sendFile}): taken, since RDMA channels send a {@code FileRegion} by
 *       copying it once into registered memory, one copy fewer than Vert.x's chunked reading;</li>
 *   <li>options: Vert.x's standard socket options, which the RDMA channels take, and the allocator
 *       Vert.x sets, left in place: Vert.x copies what it reads into heap buffers and releases the
 *       original only if it comes from Netty's pooled allocators, and keeps a buffer of any other
 *       allocator, the transport's registered one included, without ever releasing it
 *       (docs/vertx.md#the-allocator). Epoll's TCP options (fast open, quick ack, cork, user timeout,
 *       {@code SO_REUSEPORT} on a server) have no meaning over RDMA and are not set.</li>
 * </ul>
 * Stateless but for the loops' tunables; thread-safe.
 */
final class RdmaVertxTransport implements Transport {

    private final RdmaIoHandlerConfig loopConfig;

    RdmaVertxTransport(RdmaIoHandlerConfig loopConfig) {
        this.loopConfig = new RdmaIoHandlerConfig(loopConfig);
    }

    /**
     * Returns {@code true} even where RDMA cannot be used: Vert.x replaces a transport that says it is
     * unavailable with NIO, logging nothing, and the application would run over TCP believing it runs
     * over RDMA. Instead {@link #ioHandlerFactory()} throws with the reason when Vert.x builds its event
     * loops, so that {@code VertxBuilder.build()} fails.
     */
    @Override
    public boolean isAvailable() {
        return true;
    }

    @Override
    public Throwable unavailabilityCause() {
        return Rdma.unavailabilityCause();
    }

    /**
     * Returns the factory of RDMA event loops.
     *
     * @throws IllegalStateException with {@code Rdma.unavailabilityCause()} as its cause when RDMA
     *         cannot be used here
     */
    @Override
    public IoHandlerFactory ioHandlerFactory() {
        Throwable cause = Rdma.unavailabilityCause();
        if (cause != null) {
            throw RdmaVertx.unavailable(cause);
        }
        return RdmaIoHandler.newFactory(loopConfig);
    }

    @Override
    public boolean supportsDomainSockets() {
        return true;
    }

    @Override
    public boolean supportFileRegion() {
        return true;
    }

    @Override
    public java.net.SocketAddress convert(SocketAddress address) {
        if (address.isDomainSocket()) {
            return new DomainSocketAddress(address.path());
        }
        return Transport.super.convert(address);
    }

    @Override
    public SocketAddress convert(java.net.SocketAddress address) {
        if (address instanceof DomainSocketAddress) {
            return SocketAddress.domainSocketAddress(((DomainSocketAddress) address).path());
        }
        return Transport.super.convert(address);
    }

    /** Returns a UDP channel over IP (epoll's) for the RDMA loops: RDMA itself carries no datagrams here. */
    @Override
    public DatagramChannel datagramChannel() {
        return new EpollDatagramChannel();
    }

    @Override
    @SuppressWarnings("deprecation") // the SPI still hands Netty's deprecated InternetProtocolFamily
    public DatagramChannel datagramChannel(InternetProtocolFamily family) {
        return new EpollDatagramChannel(family.toSocketProtocolFamily());
    }

    @Override
    public ChannelFactory<? extends Channel> channelFactory(boolean domainSocket) {
        if (domainSocket) {
            return EpollDomainSocketChannel::new;
        }
        return RdmaSocketChannel::new;
    }

    @Override
    public ChannelFactory<? extends ServerChannel> serverChannelFactory(boolean domainSocket) {
        if (domainSocket) {
            return EpollServerDomainSocketChannel::new;
        }
        return RdmaServerSocketChannel::new;
    }

    @Override
    public void configure(DatagramChannel channel, DatagramSocketOptions options) {
        // The channel is epoll's, so it takes what Vert.x gives epoll's.
        channel.config().setOption(EpollChannelOption.SO_REUSEPORT, options.isReusePort());
        Transport.super.configure(channel, options);
    }
}
