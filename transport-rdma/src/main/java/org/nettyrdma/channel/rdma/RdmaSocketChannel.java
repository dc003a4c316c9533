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
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeUnit;

import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.Future;
import org.nettyrdma.channel.rdma.connection.RdmaConnection;
import org.nettyrdma.channel.rdma.internal.CmEvent;
import org.nettyrdma.channel.rdma.loop.CmEventDispatcher;
import org.nettyrdma.channel.rdma.loop.CompletionQueue;
import org.nettyrdma.channel.rdma.loop.RdmaLoop;
import org.nettyrdma.channel.rdma.memory.RdmaDevice;

/**
 * A {@link SocketChannel} over RDMA: an RC queue pair connected with RDMA CM to an IPv4 or IPv6
 * address of an RDMA interface, carrying a byte stream exactly as a TCP socket does
 * (docs/protocol.md). Use it with an event loop group of {@link RdmaIoHandler}s; a pipeline written
 * for TCP works unchanged.
 *
 * <p>The channel becomes active once both sides exchanged their {@code HELLO}; a connect fails with a
 * {@link ConnectException} naming the RDMA CM event and status (no listener, no route, no RDMA device)
 * or a {@link ConnectTimeoutException} after {@code CONNECT_TIMEOUT_MILLIS}. This class is the
 * connected channel (its addresses, metrics, one-sided operations, keep-alive, the loss of its
 * device); how it gets connected is its {@link ConnectionSetUp}'s, and the byte stream and the close
 * are its base's.
 *
 * <p>Where RDMA cannot carry it, a TCP connection does ({@link RdmaChannelOption#TCP_FALLBACK},
 * {@link #fallbackReason()}): a channel that connects goes on over TCP where this process has no RDMA
 * or RDMA CM says RDMA is not there ({@link TcpFallback}), and a server accepts TCP clients as such
 * channels; the pipeline sees the same bytes and events either way ({@link TcpCarrier}).
 *
 * <p>Threading: as every Netty channel, all work happens on its event loop.
 */
public final class RdmaSocketChannel extends AbstractRdmaStreamChannel implements SocketChannel {

    private static final ChannelMetadata METADATA = new ChannelMetadata(false, 16);

    private final RdmaSocketChannelConfig config;
    /** How the channel gets its connection: it connects, or a server accepted it. */
    private final ConnectionSetUp setUp;
    private final OneSidedOperations oneSided = new OneSidedOperations(this);
    InetSocketAddress local;
    InetSocketAddress remote;
    private Future<?> keepAliveFuture;

    /** Creates a channel that will connect. */
    public RdmaSocketChannel() {
        super(null);
        config = new RdmaSocketChannelConfig(this);
        setUp = new ClientSetUp(this);
    }

    /** Creates a channel for a connect request a server channel accepted. */
    RdmaSocketChannel(RdmaServerSocketChannel parent, long childId, CmEventDispatcher acceptedFrom,
                      Admission.Ticket admission) {
        super(parent);
        config = new RdmaSocketChannelConfig(this);
        setUp = new AcceptedSetUp(this, acceptedFrom, admission);
        this.id = childId;
    }

    /** Creates a channel for a TCP connection a server channel accepted ({@link TcpListener}). */
    RdmaSocketChannel(RdmaServerSocketChannel parent, EpollSocketChannel accepted, Admission.Ticket admission) {
        super(parent);
        config = new RdmaSocketChannelConfig(this);
        setUp = new TcpAcceptedSetUp(this, admission);
        carrier = new TcpCarrier(this, accepted, RdmaFallbackReason.PEER_USED_TCP);
        local = accepted.localAddress();
        remote = accepted.remoteAddress();
        // Connected already, as an accepted epoll channel is: active from its registration on.
        transition(RdmaChannelState.ACTIVE);
    }

    @Override
    public ServerSocketChannel parent() {
        return (ServerSocketChannel) super.parent();
    }

    @Override
    public RdmaSocketChannelConfig config() {
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
        return (InetSocketAddress) super.remoteAddress();
    }

    @Override
    protected SocketAddress localAddress0() {
        return local;
    }

    @Override
    protected SocketAddress remoteAddress0() {
        return remote;
    }

    /**
     * Returns what this channel's connection did so far: Sends and RDMA Writes posted and received,
     * bytes copied, credit stalls, keep-alive probes, registered memory. Counted on the event loop:
     * read on another thread, the snapshot may lag. After close, the totals at close. A channel carried
     * by TCP says why, and counts nothing of RDMA.
     */
    public RdmaChannelMetrics metrics() {
        TcpCarrier tcp = carrier;
        if (tcp != null) {
            return RdmaChannelMetrics.carriedByTcp(tcp.reason());
        }
        RdmaConnection connection = this.connection;
        return connection != null ? RdmaChannelMetrics.of(connection, true) : metricsAtClose;
    }

    /**
     * Returns why this channel is carried by TCP ({@link RdmaChannelOption#TCP_FALLBACK}), or
     * {@code null} if RDMA carries it or it has not connected yet.
     */
    public RdmaFallbackReason fallbackReason() {
        TcpCarrier tcp = carrier;
        return tcp != null ? tcp.reason() : null;
    }

    /** Gives {@code option} to this channel's TCP socket at once, if TCP carries it. */
    <T> void setCarrierOption(ChannelOption<T> option, T value) {
        TcpCarrier tcp = carrier;
        if (tcp != null) {
            tcp.carrier().config().setOption(option, value);
        }
    }

    /**
     * Returns the one-sided operations of this channel: memory exposed to the peer, and RDMA Read,
     * Write and atomics on memory the peer exposed (docs/one-sided.md).
     */
    public OneSidedOperations oneSided() {
        return oneSided;
    }

    /**
     * Returns what this channel's event loop did with its completion queues so far, for all of the
     * loop's RDMA channels together: wake-ups, completions, arms, busy polling, the receives of its
     * shared receive queues. Counted on the loop:
     * read on another thread, the snapshot may lag. Zeros before the channel is registered.
     */
    public RdmaLoopMetrics loopMetrics() {
        RdmaLoop loop = this.loop;
        return loop != null ? loop.metrics() : RdmaLoopMetrics.NONE;
    }

    @Override
    protected void doRegister(ChannelPromise promise) {
        if (carrier != null) {
            // Accepted over TCP: only its carrier registers, with the loop's epoll.
            carrier.register(eventLoop(), promise);
        } else {
            super.doRegister(promise);
        }
    }

    @Override
    void registered() {
        setUp.registered();
    }

    /** The TCP connect of a channel that fell back succeeded: the channel becomes active. */
    void carrierConnected(ChannelPromise promise) {
        if (!isOpen()) {
            promise.tryFailure(new ClosedChannelException());
            return;
        }
        transition(RdmaChannelState.ACTIVE);
        local = carrier.localAddress();
        remote = carrier.remoteAddress();
        boolean promiseSet = promise.trySuccess();
        pipeline().fireChannelActive();
        if (!promiseSet) {
            close(voidPromise());
            return;
        }
        // What was written while TCP connected goes out now, as over RDMA.
        streamUnsafe().writeSpaceAvailable();
    }

    @Override
    protected void doBind(SocketAddress localAddress) throws Exception {
        // The local address is given to rdma_resolve_addr when the channel connects.
        local = ClientSetUp.checkAddress(localAddress);
    }

    @Override
    void beginClose() throws Exception {
        setUp.beginClose();
        stopKeepAlive();
        if (carrier != null) {
            carrier.close();
            finishClose();
            return;
        }
        super.beginClose();
    }

    @Override
    void closeFinished() {
        setUp.closeFinished();
    }

    /**
     * Fails the channel because its device is going away: at once, without a {@code CLOSE} to the
     * peer or a wait for the last sends, since the kernel waits for this process to let go of
     * everything on the device before the removal completes. A channel that is closing already frees
     * its queue pair now, without waiting for its work requests.
     */
    void deviceRemoved(RdmaDevice device) {
        drain.abandon();
        if (state() == RdmaChannelState.CLOSING) {
            free();
            return;
        }
        if (!isOpen() || setUp.deviceRemoved(device)) {
            return;
        }
        setUp.fail(new IOException("the RDMA device " + (device != null ? device + " " : "") + "was removed"));
    }

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new RdmaSocketUnsafe();
    }

    /** With SO_KEEPALIVE, looks at the connection every idle period and probes it if it was idle. */
    private void startKeepAlive() {
        if (!config.isKeepAlive() || keepAliveFuture != null) {
            return;
        }
        long idle = config.getKeepAliveIdleMillis();
        keepAliveFuture = eventLoop().scheduleAtFixedRate(() -> {
            RdmaConnection current = connection;
            try {
                if (current != null && isActive()) {
                    current.probeIfIdle();
                }
            } catch (IOException e) {
                streamUnsafe().connectionFailed(e);
            }
        }, idle, idle, TimeUnit.MILLISECONDS);
    }

    private void stopKeepAlive() {
        if (keepAliveFuture != null) {
            keepAliveFuture.cancel(false);
            keepAliveFuture = null;
        }
    }

    /** The channel's handle: the connection's events, and the RDMA CM events its set-up handles. */
    private final class RdmaSocketUnsafe extends RdmaStreamUnsafe {

        @Override
        public void deviceRemoved(RdmaDevice device) {
            if (device() == device) {
                RdmaSocketChannel.this.deviceRemoved(device);
            }
        }

        @Override
        public void completionQueueFailed(CompletionQueue cq) {
            RdmaConnection current = connection;
            if (current != null && current.completesInto(cq) && isOpen()) {
                setUp.fail(cq.failure());
            }
        }

        @Override
        public void connect(SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) {
            if (!promise.setUncancellable() || !ensureOpen(promise)) {
                return;
            }
            try {
                if (Rdma.isAvailable()) {
                    setUp.connect(remoteAddress, localAddress, promise);
                } else {
                    TcpFallback.connect(RdmaSocketChannel.this, RdmaFallbackReason.NO_LOCAL_DEVICE,
                            ClientSetUp.checkAddress(remoteAddress), localAddress != null ? localAddress : local,
                            promise, config.getConnectTimeoutMillis());
                }
            } catch (Throwable t) {
                promise.tryFailure(setUp.annotate(t));
                closeIfClosed();
            }
        }

        @Override
        void cmEvent(CmEvent event) {
            setUp.cmEvent(event);
        }

        @Override
        public void connectionLost() {
            if (!setUp.connectLost()) {
                super.connectionLost();
            }
        }

        @Override
        public void connectionReady() {
            if (!isOpen()) {
                return;
            }
            setUp.helloReceived();
            boolean wasActive = isActive();
            transition(RdmaChannelState.ACTIVE);
            local = setUp.readAddress(true);
            remote = setUp.readAddress(false);
            ChannelPromise promise = setUp.connected();
            if (promise != null) {
                // trySuccess() may run a listener that closes the channel; channelActive is still due.
                boolean nowActive = isActive();
                boolean promiseSet = promise.trySuccess();
                if (!wasActive && nowActive) {
                    pipeline().fireChannelActive();
                }
                if (!promiseSet) {
                    close(voidPromise());
                    return;
                }
            } else if (!wasActive) {
                pipeline().fireChannelActive();
            }
            startKeepAlive();
            writeSpaceAvailable();
        }
    }
}
