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
package org.nettyrdma.channel.rdma;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.internal.DisniNative;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.channel.rdma.internal.SockAddr;
import org.nettyrdma.channel.rdma.internal.CmEvent;
import org.nettyrdma.channel.rdma.memory.RdmaDevice;
import org.nettyrdma.channel.rdma.protocol.RejectReason;

/**
 * A {@link ServerSocketChannel} over RDMA: an RDMA CM listener on an IPv4 or IPv6 address of an
 * RDMA interface, or on the wildcard address (every RDMA device, both families). Each connect
 * request becomes an {@link RdmaSocketChannel}, whose id moves to the event loop the child is
 * registered with.
 *
 * <p>With {@link RdmaChannelOption#TCP_FALLBACK} (the default) it also listens on TCP at the same
 * address and port ({@link TcpListener}; with port 0, TCP picks the port and RDMA CM takes the same
 * one), and each TCP connection becomes an {@link RdmaSocketChannel} carried by TCP
 * ({@link RdmaFallbackReason#PEER_USED_TCP}) that goes up the pipeline as RDMA children do and counts
 * against the same per-address bounds. Where this process has no RDMA it listens on TCP only.
 *
 * <p>Its life cycle is the short one of {@link RdmaChannelState}: {@code NEW}, {@code ACTIVE} once
 * listening (also while its device is away and it waits to listen again, since it is still the
 * server at that address), then {@code CLOSING} and {@code CLOSED} in one step.
 */
public final class RdmaServerSocketChannel extends AbstractRdmaChannel implements ServerSocketChannel {

    /** Linux's errno for an address, or port, in use. */
    private static final int EADDRINUSE = 98;
    /**
     * Ports a bind to port 0 tries: TCP hands out a port that RDMA CM's own port space may hold (it is
     * apart from TCP's, and this host's RDMA connections take theirs from the same range), and a host
     * with many RDMA connections may hold many of the range.
     */
    private static final int EPHEMERAL_ATTEMPTS = 32;
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RdmaServerSocketChannel.class);
    /** Whether the WARN of a server that cannot listen on TCP beside RDMA CM was logged: once per process. */
    private static final AtomicBoolean IWARP_WARNED = new AtomicBoolean();
    private static final ChannelMetadata METADATA = new ChannelMetadata(false, 16);
    /** How often a server whose device was removed tries to listen again. */
    private static final long RELISTEN_MILLIS = 1000;

    private final RdmaServerSocketChannelConfig config = new RdmaServerSocketChannelConfig(this);
    private final ArrayDeque<Long> pendingRequests = new ArrayDeque<>();
    private final Admission admission = new Admission();
    private InetSocketAddress local;
    private boolean readPending;
    /** The listening id of IPv4's wildcard beside {@link #id} on IPv6's, or 0 (see {@link #listen}). */
    private long ipv4Id;
    /** The TCP side of the server; {@code null} with TCP_FALLBACK off. */
    private TcpListener tcp;

    /** Creates a server channel. */
    public RdmaServerSocketChannel() {
        super(null);
    }

    @Override
    public RdmaServerSocketChannelConfig config() {
        return config;
    }

    @Override
    public ChannelMetadata metadata() {
        return METADATA;
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) super.localAddress();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return null;
    }

    @Override
    protected SocketAddress localAddress0() {
        return local;
    }

    @Override
    protected SocketAddress remoteAddress0() {
        return null;
    }

    @Override
    protected void doBind(SocketAddress localAddress) throws Exception {
        InetSocketAddress address = ClientSetUp.checkAddress(localAddress);
        if (address.getAddress().isAnyLocalAddress()) {
            // bind(port), as Netty programs do: RDMA CM then listens on every RDMA device, and each
            // connection's QP is made on the device its request came through. Either wildcard
            // means both families, as on Netty's epoll transport (WildcardAddress).
            address = new InetSocketAddress(WildcardAddress.get(), address.getPort());
        }
        boolean anyPort = address.getPort() == 0;
        if (config.isTcpFallback()) {
            address = bindTcp(address);
        } else if (!Rdma.isAvailable()) {
            throw new IOException("cannot listen on RDMA at " + address + " (TCP_FALLBACK is off): "
                    + Rdma.unavailabilityCause().getMessage(), Rdma.unavailabilityCause());
        }
        for (int attempt = 1; Rdma.isAvailable(); attempt++) {
            try {
                cm = loop.cm();
                listen(address);
            } catch (IOException e) {
                if (tcp != null && cm != null && isAddressInUse(e)) {
                    if (listenInsteadOfTcp(address, e, anyPort && attempt < EPHEMERAL_ATTEMPTS)) {
                        transition(RdmaChannelState.ACTIVE);
                        return;
                    }
                    // Held in RDMA CM's port space by another RDMA connection of this host: another port.
                    address = bindTcp(new InetSocketAddress(address.getAddress(), 0));
                    continue;
                }
                if (tcp == null || cm != null) {
                    closeTcp();
                    throw e;
                }
                // librdmacm opens no event channel on a host whose RDMA devices were all removed
                // (ENODEV): the server serves TCP meanwhile, as a server that lost its device does.
                logger.warn("{}: cannot listen on RDMA CM ({}); serving TCP, and listening on RDMA CM once a "
                        + "device is back", this, e.getMessage());
                listenAgainLater();
            }
            break;
        }
        transition(RdmaChannelState.ACTIVE);
    }

    /** Binds the TCP listener at {@code address} and returns where RDMA CM listens: the same port. */
    private InetSocketAddress bindTcp(InetSocketAddress address) throws Exception {
        tcp = new TcpListener(this);
        tcp.bind(eventLoop(), address);
        local = tcp.localAddress();
        return new InetSocketAddress(address.getAddress(), local.getPort());
    }

    /**
     * Listens on RDMA CM at {@code address} without the TCP listener, which took the port first: on an
     * iWARP device RDMA CM listens on a kernel TCP socket of its own, so the two cannot share a port
     * (on RoCE and InfiniBand they can). RDMA clients are served there; TCP clients are not.
     * {@code inUse} is the failure of the listen beside the TCP listener. If the port is in use without
     * the TCP listener too, another RDMA connection of this host holds it in RDMA CM's port space (RoCE,
     * InfiniBand): returns {@code false} where the caller may {@code tryAnotherPort} (a bind to port 0),
     * else the bind fails.
     */
    private boolean listenInsteadOfTcp(InetSocketAddress address, IOException inUse, boolean tryAnotherPort)
            throws IOException {
        closeTcp();
        try {
            listen(address);
        } catch (IOException e) {
            if (tryAnotherPort && isAddressInUse(e)) {
                logger.debug("{}: port {} is held in RDMA CM's port space; taking another", this, address.getPort());
                return false;
            }
            e.addSuppressed(inUse);
            throw e;
        }
        if (IWARP_WARNED.compareAndSet(false, true)) {
            logger.warn("{}: RDMA CM takes TCP's port here (an iWARP device): no TCP listener, so TCP clients "
                    + "are not served at this port, nor at the other servers' on such a device (logged once)", this);
        } else {
            logger.debug("{}: RDMA CM takes TCP's port here (an iWARP device): no TCP listener", this);
        }
        return true;
    }

    /** Returns {@code true} if {@code e} is the native layer's EADDRINUSE. */
    private static boolean isAddressInUse(IOException e) {
        return e.getMessage() != null && e.getMessage().endsWith("(errno " + EADDRINUSE + ")");
    }

    private void closeTcp() {
        if (tcp != null) {
            tcp.close();
            tcp = null;
        }
    }

    /**
     * Takes a connection {@link TcpListener} accepted: within the per-address bounds, it goes up the
     * pipeline as an {@link RdmaSocketChannel} carried by TCP; beyond them it is closed, as a TCP
     * server has no way to say why.
     */
    void acceptCarried(EpollSocketChannel accepted) {
        Admission.Ticket ticket = admission.enter();
        InetSocketAddress peer = accepted.remoteAddress();
        Admission.Verdict verdict = peer == null ? Admission.Verdict.TOO_MANY_CONNECTIONS : ticket.admit(
                peer.getAddress(), 0, config.getMaxConnectionsPerAddress(), config.getMaxRegisteredMemoryPerAddress());
        ticket.setUpEnded();
        if (verdict != Admission.Verdict.ADMITTED) {
            logger.debug("{}: closing a TCP connection from {}: {}", this, peer, verdict);
            ticket.release();
            accepted.unsafe().closeForcibly();
            return;
        }
        TcpFallback.fellBack(loop, peer, RdmaFallbackReason.PEER_USED_TCP);
        RdmaSocketChannel child = new RdmaSocketChannel(this, accepted, ticket);
        pipeline().fireChannelRead(child);
        ((ServerUnsafe) unsafe()).refuseUnclaimed(child);
    }

    /**
     * Listens on RDMA CM at {@code address}; sets {@link #local}. On the IPv6 wildcard that takes two
     * ids: {@code ::} for IPv6 alone and {@code 0.0.0.0} at the same port, since iWARP's RDMA CM refuses
     * an IPv4 connection that reaches an IPv6 listener (it accepts none mapped into IPv6), and so that
     * {@code net.ipv6.bindv6only} cannot take IPv4 clients away either. Either both listen or neither.
     */
    private void listen(InetSocketAddress address) throws IOException {
        boolean bothFamilies = address.getAddress() instanceof Inet6Address && address.getAddress().isAnyLocalAddress();
        long listening = listenOn(address, bothFamilies);
        try {
            SockAddr memory = new SockAddr();
            DisniNative.dispatcher()._getSrcAddr(listening, memory.address());
            InetSocketAddress bound = memory.read();
            if (bothFamilies) {
                ipv4Id = listenOn(new InetSocketAddress(WildcardAddress.ipv4(), bound.getPort()), false);
            }
            local = bound;
        } catch (IOException e) {
            cm.destroyId(listening);
            throw e;
        }
        id = listening;
    }

    /** Returns a new id listening at {@code address}, for IPv6 alone if {@code ipv6Only}. */
    private long listenOn(InetSocketAddress address, boolean ipv6Only) throws IOException {
        long listening = cm.createId(registration);
        try {
            if (ipv6Only) {
                RdmaNative.setAddressFamilyOnly(listening, true);
            }
            DisniNative.dispatcher()._bindAddr(listening, new SockAddr().write(address));
            DisniNative.dispatcher()._listen(listening, config.getBacklog());
        } catch (IOException e) {
            cm.destroyId(listening);
            throw e;
        }
        return listening;
    }

    /** Destroys the listening ids. */
    private void freeIds() {
        if (ipv4Id != 0) {
            cm.destroyId(ipv4Id);
            ipv4Id = 0;
        }
        freeId();
    }

    /**
     * The device of the listening address is being removed, or none was there when the server bound:
     * the listening id must go, or the removal waits for it. The channel stays open and listens again
     * at the same address and port, once a second, until a device has that address again (a wildcard
     * listener hears of no removal and goes on by itself).
     */
    private void listenAgainLater() {
        freeIds();
        eventLoop().schedule(() -> {
            if (!isOpen() || id != 0) {
                return;
            }
            try {
                if (cm == null) {
                    cm = loop.cm();
                }
                try {
                    listen(local);
                } catch (IOException e) {
                    if (tcp == null || !isAddressInUse(e)) {
                        throw e;
                    }
                    // The device is back, and is iWARP: its RDMA CM needs the port TCP has served meanwhile.
                    // The port is the server's now, whoever holds it: no other is taken.
                    listenInsteadOfTcp(local, e, false);
                }
                logger.info("{}: listening again", this);
            } catch (IOException e) {
                listenAgainLater();
            }
        }, RELISTEN_MILLIS, TimeUnit.MILLISECONDS);
    }

    @Override
    void beginClose() {
        for (Long request; (request = pendingRequests.poll()) != null;) {
            // Refused as a port without a listener refuses: this one is gone.
            reject(request, 0);
        }
        closeTcp();
        freeIds();
        finishClose();
    }

    @Override
    protected void doBeginRead() throws Exception {
        readPending = true;
        if (tcp != null) {
            tcp.read();
        }
        if (!pendingRequests.isEmpty()) {
            eventLoop().execute(((ServerUnsafe) unsafe())::acceptPending);
        }
    }

    @Override
    protected void doDisconnect() {
        throw new UnsupportedOperationException();
    }

    @Override
    protected void doWrite(ChannelOutboundBuffer in) {
        throw new UnsupportedOperationException();
    }

    @Override
    protected Object filterOutboundMessage(Object msg) {
        throw new UnsupportedOperationException();
    }

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new ServerUnsafe();
    }

    /** Connect requests arrive here, on the server channel's loop. */
    private final class ServerUnsafe extends AbstractRdmaUnsafe {

        @Override
        public void connect(SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) {
            safeSetFailure(promise, new UnsupportedOperationException("a server channel does not connect"));
        }

        @Override
        void cmEvent(CmEvent event) {
            if (event.type() == CmEvent.CONNECT_REQUEST) {
                if (pendingRequests.size() + admission.settingUp() >= Math.max(1, config.getBacklog())
                        && !admission.evictOldest()) {
                    // As a full TCP accept queue drops the SYN, but at once and with the reason: the
                    // client's connect fails instead of waiting out its timeout. An accepted
                    // connection counts until its HELLO: with AUTO_READ on, requests are accepted as
                    // they come, and it is peers that connect and never speak that fill the backlog;
                    // the oldest of those was closed to make room (evictOldest), unless there is none.
                    logger.debug("{}: refusing a connect request, {} wait to be accepted and {} for their HELLO"
                            + " (SO_BACKLOG)", RdmaServerSocketChannel.this, pendingRequests.size(),
                            admission.settingUp());
                    reject(event.id(), RejectReason.BACKLOG_FULL);
                    return;
                }
                pendingRequests.add(event.id());
                if (readPending || config.isAutoRead()) {
                    acceptPending();
                }
            } else if (event.type() == CmEvent.DEVICE_REMOVAL) {
                logger.warn("{}: the RDMA device of {} was removed; listening again once it is back",
                        RdmaServerSocketChannel.this, local);
                abandonDevice(event.id());
                listenAgainLater();
            }
        }

        /**
         * Gives up the removed device's context that {@code removedId} holds, unless a device of this
         * process holds it: a server that only ever served TCP there holds the device through its
         * listening id alone.
         */
        private void abandonDevice(long removedId) {
            try {
                RdmaDevice.abandonUnheld(DisniNative.dispatcher()._getContext(removedId));
            } catch (IOException e) {
                logger.warn("{}: the removed RDMA device's context is unknown; its removal may wait for this "
                        + "process to end", RdmaServerSocketChannel.this, e);
            }
        }

        void acceptPending() {
            boolean accepted = false;
            for (Long request; (readPending || config.isAutoRead()) && (request = pendingRequests.poll()) != null;) {
                readPending = false;
                accepted = true;
                RdmaSocketChannel child = new RdmaSocketChannel(RdmaServerSocketChannel.this, request, cm,
                        admission.enter());
                pipeline().fireChannelRead(child);
                refuseUnclaimed(child);
            }
            if (accepted) {
                pipeline().fireChannelReadComplete();
            }
        }

        /**
         * Refuses the peer of a child the pipeline did not hand to an event loop. When a server
         * pipeline's {@code channelRead} throws before registering the child (Netty's
         * {@code ServerBootstrap} adding a handler that is not {@code @Sharable} a second time), no
         * one owns the child: its connect request would stay unanswered, the peer would wait out its
         * connect timeout, and the {@code rdma_cm_id} would live until the process ends. Registration
         * assigns the child its event loop at once, even when it runs later on that loop, so a child
         * without one was dropped.
         */
        void refuseUnclaimed(RdmaSocketChannel child) {
            if (child.isOpen() && !child.hasEventLoop()) {
                logger.warn("{}: the pipeline did not register the accepted channel {}; refusing its peer's"
                        + " connect request (see the exception the pipeline reported)", RdmaServerSocketChannel.this,
                        child);
                child.unsafe().closeForcibly();
            }
        }
    }
}
