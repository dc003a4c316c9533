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
import java.lang.ref.Reference;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.util.concurrent.TimeUnit;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.Future;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.internal.CmEvent;
import org.nettyrdma.channel.rdma.internal.CmEventDispatcher;
import org.nettyrdma.channel.rdma.internal.CompletionQueue;
import org.nettyrdma.channel.rdma.internal.ConnectionBudget;
import org.nettyrdma.channel.rdma.internal.DisniNative;
import org.nettyrdma.channel.rdma.internal.RdmaDevice;
import org.nettyrdma.channel.rdma.internal.RdmaLoop;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.channel.rdma.internal.RdmaProtocol;
import org.nettyrdma.channel.rdma.internal.RegisteredMemoryBudget;
import org.nettyrdma.channel.rdma.internal.RejectReason;
import org.nettyrdma.channel.rdma.internal.ProtectionDomain;
import org.nettyrdma.channel.rdma.internal.SharedReceiveQueue;
import org.nettyrdma.channel.rdma.internal.SockAddr;

/**
 * A {@link SocketChannel} over RDMA: an RC queue pair connected with RDMA CM to an IPv4 address of an
 * RDMA interface, carrying a byte stream exactly as a TCP socket does (docs/protocol.md). Use it with
 * an event loop group of {@link RdmaIoHandler}s; a pipeline written for TCP works unchanged.
 *
 * <p>The channel becomes active once both sides exchanged their {@code HELLO}; a connect fails with a
 * {@link ConnectException} naming the RDMA CM event and status (no listener, no route, no RDMA device)
 * or a {@link ConnectTimeoutException} after {@code CONNECT_TIMEOUT_MILLIS}. This class makes and
 * keeps the connection (connect, accept, the RDMA CM events, the timeouts, keep-alive); the byte
 * stream and the close are its base's. Threading: as every Netty channel, all work happens on its
 * event loop.
 */
public final class RdmaSocketChannel extends AbstractRdmaStreamChannel implements SocketChannel {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RdmaSocketChannel.class);
    private static final ChannelMetadata METADATA = new ChannelMetadata(false, 16);
    /** What address and route resolution wait for when the channel has no connect timeout. */
    private static final int RESOLVE_TIMEOUT_MILLIS = 30_000;

    private final RdmaSocketChannelConfig config;
    /** For an accepted channel: the listener's dispatcher its id still lives on. */
    private final CmEventDispatcher acceptedFrom;
    private final SockAddr addressMemory = new SockAddr();
    private final OneSidedOperations oneSided = new OneSidedOperations(this);
    private InetSocketAddress local;
    private InetSocketAddress remote;
    private ChannelPromise connectPromise;
    private Future<?> connectTimeoutFuture;
    private Future<?> keepAliveFuture;
    /** For an accepted channel: its share of what the server lets its peers hold; {@code null} otherwise. */
    private final Admission.Ticket admission;
    /** For an accepted channel: closes it if the peer's HELLO does not come in time. */
    private Future<?> helloTimeoutFuture;
    private SocketAddress requestedRemoteAddress;

    /** Creates a channel that will connect. */
    public RdmaSocketChannel() {
        super(null);
        config = new RdmaSocketChannelConfig(this);
        acceptedFrom = null;
        admission = null;
    }

    /** Creates a channel for a connect request a server channel accepted. */
    RdmaSocketChannel(RdmaServerSocketChannel parent, long childId, CmEventDispatcher acceptedFrom,
                      Admission.Ticket admission) {
        super(parent);
        config = new RdmaSocketChannelConfig(this);
        this.acceptedFrom = acceptedFrom;
        this.admission = admission;
        this.id = childId;
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
     * read on another thread, the snapshot may lag. After close, the totals at close.
     */
    public RdmaChannelMetrics metrics() {
        RdmaConnection connection = this.connection;
        return connection != null ? connection.metrics(true) : metricsAtClose;
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
    void registered() {
        if (acceptedFrom != null && state() == RdmaChannelState.NEW) {
            ((RdmaSocketUnsafe) unsafe()).accept();
        }
    }

    @Override
    protected void doBind(SocketAddress localAddress) throws Exception {
        // The local address is given to rdma_resolve_addr when the channel connects.
        local = checkAddress(localAddress);
    }

    @Override
    void close0() throws Exception {
        ChannelPromise promise = connectPromise;
        if (promise != null) {
            promise.tryFailure(new ClosedChannelException());
            connectPromise = null;
        }
        cancelConnectTimeout();
        cancelHelloTimeout();
        stopKeepAlive();
        if (admission != null) {
            admission.setUpEnded();
        }
        super.close0();
    }

    @Override
    void freed() {
        if (admission != null) {
            admission.release();
        }
    }

    /**
     * Fails the channel because its device is going away: at once, without a {@code CLOSE} to the
     * peer or a wait for the last sends, since the kernel waits for this process to let go of
     * everything on the device before the removal completes. A channel that is closing already frees
     * its queue pair now, without waiting for its work requests.
     */
    void deviceRemoved(RdmaDevice device) {
        deviceRemoved = true;
        if (state() == RdmaChannelState.CLOSING) {
            teardown();
            return;
        }
        if (!isOpen()) {
            return;
        }
        IOException cause = new IOException("the RDMA device " + (device != null ? device + " " : "") + "was removed");
        if (connectPromise != null) {
            ((RdmaSocketUnsafe) unsafe()).failConnect(cause);
        } else {
            ((RdmaSocketUnsafe) unsafe()).connectionFailed(cause);
        }
    }

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new RdmaSocketUnsafe();
    }

    private static InetSocketAddress checkAddress(SocketAddress address) throws IOException {
        if (!(address instanceof InetSocketAddress)) {
            throw new IOException("unsupported address type: " + address + " (expected: InetSocketAddress)");
        }
        InetSocketAddress inet = (InetSocketAddress) address;
        if (inet.isUnresolved()) {
            throw new UnknownHostException(inet.getHostString());
        }
        return inet;
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
                ((RdmaSocketUnsafe) unsafe()).connectionFailed(e);
            }
        }, idle, idle, TimeUnit.MILLISECONDS);
    }

    private void stopKeepAlive() {
        if (keepAliveFuture != null) {
            keepAliveFuture.cancel(false);
            keepAliveFuture = null;
        }
    }

    private void cancelHelloTimeout() {
        if (helloTimeoutFuture != null) {
            helloTimeoutFuture.cancel(false);
            helloTimeoutFuture = null;
        }
    }

    private void cancelConnectTimeout() {
        if (connectTimeoutFuture != null) {
            connectTimeoutFuture.cancel(false);
            connectTimeoutFuture = null;
        }
    }

    /** The channel's handle: its RDMA CM events and the connect and accept that lead to them. */
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
            if (current == null || !current.completesInto(cq) || !isOpen()) {
                return;
            }
            if (connectPromise != null) {
                failConnect(cq.failure());
            } else {
                connectionFailed(cq.failure());
            }
        }

        @Override
        public void connect(SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) {
            if (!promise.setUncancellable() || !ensureOpen(promise)) {
                return;
            }
            try {
                if (connectPromise != null) {
                    throw new ConnectionPendingException();
                }
                if (state() != RdmaChannelState.NEW) {
                    throw new AlreadyConnectedException();
                }
                InetSocketAddress target = checkAddress(remoteAddress);
                if (localAddress != null) {
                    local = checkAddress(localAddress);
                }
                requestedRemoteAddress = target;
                cm = loop.cm();
                id = cm.createId(registration);
                int trafficClass = config.getTrafficClass();
                if (trafficClass != 0) {
                    // Before the route is resolved: rdma_cm copies the class into it (IP_TOS).
                    RdmaNative.setTypeOfService(id, trafficClass);
                }
                // The source's memory must outlive the native call that reads it, not only its address.
                SockAddr sourceMemory = local != null ? new SockAddr() : null;
                long source = sourceMemory != null ? sourceMemory.write(local) : 0;
                DisniNative.dispatcher()._resolveAddr(id, source, addressMemory.write(target), timeoutMillis());
                Reference.reachabilityFence(sourceMemory);
                transition(RdmaChannelState.RESOLVING);
                connectPromise = promise;
                int timeout = config.getConnectTimeoutMillis();
                if (timeout > 0) {
                    connectTimeoutFuture = eventLoop().schedule(() -> connectTimedOut(timeout), timeout,
                            TimeUnit.MILLISECONDS);
                }
                promise.addListener((ChannelFutureListener) future -> {
                    if (future.isCancelled()) {
                        cancelConnectTimeout();
                        connectPromise = null;
                        close(voidPromise());
                    }
                });
            } catch (Throwable t) {
                promise.tryFailure(annotate(t));
                closeIfClosed();
            }
        }

        private void connectTimedOut(int timeout) {
            ChannelPromise pending = connectPromise;
            RdmaConnection handshaking = connection;
            if (pending != null && pending.tryFailure(new ConnectTimeoutException(
                    "connection timed out after " + timeout + " ms: " + requestedRemoteAddress
                            + " (waiting for " + state().awaited() + (handshaking != null
                            ? "; " + handshaking.handshakeState() : "") + ')'))) {
                close(voidPromise());
            }
        }

        private int timeoutMillis() {
            int timeout = config.getConnectTimeoutMillis();
            return timeout > 0 ? timeout : RESOLVE_TIMEOUT_MILLIS;
        }

        private Throwable annotate(Throwable t) {
            if (t instanceof IOException && requestedRemoteAddress != null && !(t instanceof ConnectException)) {
                ConnectException e = new ConnectException(t.getMessage() + ": " + requestedRemoteAddress);
                e.initCause(t);
                return e;
            }
            return t;
        }

        /** Sets up an accepted connection on this channel's loop and accepts it. */
        void accept() {
            try {
                cm = loop.cm();
                cm.adopt(id, acceptedFrom, registration);
                openConnection();
                transition(RdmaChannelState.AWAITING_HELLO);
                // The HELLO answers the peer's (RdmaConnection): a Send posted now could reach the
                // peer's queue pair before its CM has made it ready to receive, and be dropped
                // (docs/decisions.md#client-hello-first).
                RdmaNative.accept(id, config.getRnrRetryCount(), 0, 0);
                local = readAddress(true);
                remote = readAddress(false);
                int timeout = config.getHelloTimeoutMillis();
                helloTimeoutFuture = eventLoop().schedule(() -> helloTimedOut(timeout), timeout,
                        TimeUnit.MILLISECONDS);
                if (admission != null) {
                    EventLoop loop = eventLoop();
                    admission.evictable(() -> loop.execute(this::evicted));
                }
            } catch (Throwable t) {
                int reason;
                if (t instanceof RegisteredMemoryBudget.LimitReachedException) {
                    reason = RejectReason.REGISTERED_MEMORY_LIMIT;
                    logger.warn("refusing a connection: {}", t.getMessage());
                } else if (t instanceof ConnectionBudget.LimitReachedException) {
                    reason = RejectReason.CONNECTION_LIMIT;
                    logger.warn("refusing a connection: {}", t.getMessage());
                } else if (t instanceof AddressLimitException) {
                    // At debug: a client can make this happen as often as it connects; it is told why.
                    reason = ((AddressLimitException) t).reason;
                    logger.debug("refusing a connection: {}", t.getMessage());
                } else {
                    reason = RejectReason.SERVER_ERROR;
                    logger.warn("accepting a connection failed", t);
                }
                // Told why, the client's connect fails at once with the reason.
                CmEventDispatcher.reject(id, reason);
                close(voidPromise());
            }
        }

        /**
         * Closes an accepted connection whose peer did not say {@code HELLO} in time: a peer that
         * connects and never speaks holds a queue pair and registered memory until then.
         */
        private void helloTimedOut(int timeout) {
            helloTimeoutFuture = null;
            if (state() != RdmaChannelState.AWAITING_HELLO) {
                return;
            }
            // A HELLO already in the completion queue counts as in time.
            afterCompletionsSeen(() -> {
                if (state() == RdmaChannelState.AWAITING_HELLO) {
                    logger.debug("{}: no HELLO from the peer within {} ms, closing", RdmaSocketChannel.this,
                            timeout);
                    close(voidPromise());
                }
            });
        }

        /**
         * Closes an accepted connection still without its peer's {@code HELLO} because a full backlog
         * needed room for a new one ({@link Admission#evictOldest()}).
         */
        private void evicted() {
            // A HELLO already in the completion queue saves it.
            afterCompletionsSeen(() -> {
                if (state() == RdmaChannelState.AWAITING_HELLO) {
                    logger.debug("{}: no HELLO from the peer yet and the backlog full, closing to make room",
                            RdmaSocketChannel.this);
                    close(voidPromise());
                }
            });
        }

        private void openConnection() throws IOException {
            long context = DisniNative.dispatcher()._getContext(id);
            if (context <= 0) {
                throw new IOException("the rdma_cm_id has no RDMA device");
            }
            InetSocketAddress source = readAddress(true);
            if (source == null) {
                throw new IOException("the rdma_cm_id has no source address");
            }
            RdmaDevice device = RdmaDevice.of(context, source.getAddress());
            if (admission != null) {
                admit();
            }
            CompletionQueue cq = loop.reserveCompletionQueue(device,
                    RdmaConnection.completionQueueEntries(config, device));
            SharedReceiveQueue srq;
            ProtectionDomain ownPd = null;
            try {
                if (config.isExposeMemory()) {
                    // A key registered here works on this connection's queue pair alone (docs/one-sided.md).
                    ownPd = ProtectionDomain.allocate(device);
                }
                if (RdmaConnection.hasOwnReceiveQueue(config)) {
                    // Its peer's Sends, within its credit or beyond it, take receives of this queue alone.
                    srq = loop.ownReceiveQueue(device, ownPd, config.getSlotSize(),
                            SharedReceiveQueue.ownCapacity(config.getReceiveSlots()));
                } else {
                    srq = loop.sharedReceiveQueue(device, config.getSlotSize(), RdmaReceiver.INITIAL_SHARE);
                }
            } catch (IOException e) {
                if (ownPd != null) {
                    ownPd.release();
                }
                cq.unreserve(RdmaConnection.completionQueueEntries(config, device));
                throw e;
            }
            // The connection owns the domain's first hold from here, and frees it when closed.
            connection = new RdmaConnection(this, eventLoop(), cq, srq, id, config, acceptedFrom != null, ownPd);
            if (admission != null) {
                admission.hold(connection.admittedBytes());
            }
        }

        /**
         * Admits an accepted connection if its source address stays within the server's
         * {@link RdmaChannelOption#MAX_CONNECTIONS_PER_ADDRESS} with it, and, with what the connection
         * holds once set up, within its {@link RdmaChannelOption#MAX_REGISTERED_MEMORY_PER_ADDRESS};
         * the peer's share of receive slots grows later only within it too ({@link #mayHoldMore}).
         */
        private void admit() throws IOException {
            InetSocketAddress peer = readAddress(false);
            if (peer == null) {
                throw new IOException("the rdma_cm_id has no destination address");
            }
            RdmaServerSocketChannelConfig serverConfig = ((RdmaServerSocketChannel) parent()).config();
            int maxConnections = serverConfig.getMaxConnectionsPerAddress();
            long maxBytes = addressCap();
            long atMost = RdmaConnection.registeredBytesAtStart(config);
            switch (admission.admit(peer.getAddress(), atMost, maxConnections, maxBytes)) {
                case ADMITTED:
                    return;
                case TOO_MANY_CONNECTIONS:
                    throw new AddressLimitException(RejectReason.ADDRESS_CONNECTION_LIMIT, "the server holds "
                            + maxConnections + " connections from " + peer.getAddress().getHostAddress()
                            + " already (RdmaChannelOption.MAX_CONNECTIONS_PER_ADDRESS)");
                default:
                    throw new AddressLimitException(RejectReason.ADDRESS_LIMIT, "the connections from "
                            + peer.getAddress().getHostAddress() + " would hold more than " + maxBytes
                            + " bytes of registered memory with this one (" + atMost
                            + " bytes; RdmaChannelOption.MAX_REGISTERED_MEMORY_PER_ADDRESS)");
            }
        }

        private InetSocketAddress readAddress(boolean source) {
            int result = source ? DisniNative.dispatcher()._getSrcAddr(id, addressMemory.address())
                    : DisniNative.dispatcher()._getDstAddr(id, addressMemory.address());
            return result == 0 ? addressMemory.read() : null;
        }

        @Override
        void cmEvent(CmEvent event) {
            if (!isOpen() && event.type() != CmEvent.DEVICE_REMOVAL) {
                // Closing, waiting for its work requests: what the peer does matters only if it is
                // gone, since it then acknowledges none of the sends still outstanding.
                if (event.type() == CmEvent.DISCONNECTED || event.type() == CmEvent.REJECTED
                        || event.type() == CmEvent.CONNECT_ERROR || event.type() == CmEvent.UNREACHABLE) {
                    peerGoneWhileClosing();
                }
                return;
            }
            try {
                switch (event.type()) {
                    case CmEvent.ADDR_RESOLVED:
                        DisniNative.dispatcher()._resolveRoute(id, timeoutMillis());
                        break;
                    case CmEvent.ROUTE_RESOLVED:
                        openConnection();
                        DisniNative.dispatcher()._connect(id, RdmaProtocol.RETRY_COUNT,
                                config.getRnrRetryCount(), 0, (byte) 0);
                        transition(RdmaChannelState.CONNECTING);
                        break;
                    case CmEvent.ESTABLISHED:
                        if (acceptedFrom == null) {
                            // Before the HELLO: the peer's may already be here, and then it makes the channel active.
                            transition(RdmaChannelState.AWAITING_HELLO);
                            connection.sendHello();
                        }
                        break;
                    case CmEvent.ADDR_ERROR:
                    case CmEvent.ROUTE_ERROR:
                    case CmEvent.UNREACHABLE:
                    case CmEvent.REJECTED:
                    case CmEvent.CONNECT_ERROR:
                        if (connectPromise != null) {
                            failConnect(new ConnectException(describe(event) + ": " + requestedRemoteAddress));
                        } else {
                            // Not while connecting: the connection was up (or accepted). A peer that
                            // wrote, closed and destroyed its id before its CM saw the connection
                            // established sends a REJ, which arrives here as REJECTED. The connection
                            // is gone, but what arrived before is the application's to read, as after
                            // DISCONNECTED.
                            logger.debug("{}: {} after the connection was established", RdmaSocketChannel.this,
                                    CmEvent.name(event.type()));
                            peerDisconnected();
                        }
                        break;
                    case CmEvent.DISCONNECTED:
                        // While connecting too: the server's HELLO may be in the completion queue,
                        // ahead of the flushes (connectionLost).
                        peerDisconnected();
                        break;
                    case CmEvent.DEVICE_REMOVAL:
                        RdmaDevice removed = device();
                        deviceRemoved(removed);
                        if (removed != null) {
                            // Every loop lets go of the device, so that the kernel can complete the removal.
                            removed.remove();
                        }
                        break;
                    default:
                        break;
                }
            } catch (Throwable t) {
                if (connectPromise != null) {
                    failConnect(annotate(t));
                } else {
                    connectionFailed(t);
                }
            }
        }

        private String describe(CmEvent event) {
            switch (event.type()) {
                case CmEvent.REJECTED:
                    String reason = RejectReason.describe(event.rejectReason());
                    if (reason != null) {
                        return "connection refused (RDMA CM REJECTED): " + reason;
                    }
                    if (state() == RdmaChannelState.AWAITING_HELLO) {
                        // Our CM saw the connection established: the server's CM took the request, then
                        // let go of it before it saw the connection established (its id destroyed or
                        // its queue pair failed), which the kernel reports with a reject.
                        return "the server let go of the connection after accepting it, before its HELLO "
                                + "(RDMA CM REJECTED after ESTABLISHED, reason " + event.status() + ')';
                    }
                    return "connection refused (RDMA CM REJECTED, reason " + event.status()
                            + "): no RDMA listener at that port";
                case CmEvent.ADDR_ERROR:
                    return "no RDMA device reaches that address (RDMA CM ADDR_ERROR, status " + event.status() + ')';
                case CmEvent.ROUTE_ERROR:
                    return "no RDMA route to that address (RDMA CM ROUTE_ERROR, status " + event.status() + ')';
                default:
                    return "connection failed (RDMA CM " + CmEvent.name(event.type()) + ", status "
                            + event.status() + ')';
            }
        }

        void failConnect(Throwable cause) {
            ChannelPromise promise = connectPromise;
            connectPromise = null;
            cancelConnectTimeout();
            if (promise != null) {
                promise.tryFailure(cause);
            }
            close(voidPromise());
        }

        @Override
        public void connectionLost() {
            if (connectPromise != null) {
                failConnect(new ConnectException("the server closed the connection while waiting for "
                        + state().awaited() + ": " + requestedRemoteAddress));
                return;
            }
            super.connectionLost();
        }

        @Override
        public boolean mayHoldMore(long bytes) {
            return admission == null || admission.holdMore(bytes, addressCap());
        }

        @Override
        public void heldLess(long bytes) {
            if (admission != null) {
                admission.holdLess(bytes);
            }
        }

        private long addressCap() {
            return ((RdmaServerSocketChannel) parent()).config().getMaxRegisteredMemoryPerAddress();
        }

        @Override
        public void connectionReady() {
            if (!isOpen()) {
                return;
            }
            cancelHelloTimeout();
            if (admission != null) {
                admission.setUpEnded();
                // Its share and ring: staging blocks come and go with its sends, bounded by SO_SNDBUF
                // and by the process-wide limit, not by the address's cap.
                admission.hold(connection.admittedBytes());
            }
            boolean wasActive = isActive();
            transition(RdmaChannelState.ACTIVE);
            local = readAddress(true);
            remote = readAddress(false);
            ChannelPromise promise = connectPromise;
            if (promise != null) {
                connectPromise = null;
                cancelConnectTimeout();
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

    /** An accepted connection its source address has no room for: refused with {@link #reason}. */
    private static final class AddressLimitException extends IOException {
        private static final long serialVersionUID = 1L;

        /** {@link RejectReason#ADDRESS_LIMIT} or {@link RejectReason#ADDRESS_CONNECTION_LIMIT}. */
        final int reason;

        AddressLimitException(int reason, String message) {
            super(message);
            this.reason = reason;
        }
    }
}
