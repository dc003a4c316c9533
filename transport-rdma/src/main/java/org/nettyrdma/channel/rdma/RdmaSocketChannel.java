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
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ConnectionPendingException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.channel.AbstractChannel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.channel.FileRegion;
import io.netty.channel.IoEvent;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.Future;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.internal.CmEvent;
import org.nettyrdma.channel.rdma.internal.CmEventDispatcher;
import org.nettyrdma.channel.rdma.internal.CmEventListener;
import org.nettyrdma.channel.rdma.internal.CompletionQueue;
import org.nettyrdma.channel.rdma.internal.DisniNative;
import org.nettyrdma.channel.rdma.internal.RdmaDevice;
import org.nettyrdma.channel.rdma.internal.RdmaIoHandle;
import org.nettyrdma.channel.rdma.internal.RdmaLoop;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.channel.rdma.internal.RdmaProtocol;
import org.nettyrdma.channel.rdma.internal.RegisteredMemoryBudget;
import org.nettyrdma.channel.rdma.internal.RejectReason;
import org.nettyrdma.channel.rdma.internal.SockAddr;

/**
 * A {@link SocketChannel} over RDMA: an RC queue pair connected with RDMA CM to an IPv4 address of an
 * RDMA interface, carrying a byte stream exactly as a TCP socket does (docs/protocol.md). Use it with
 * an event loop group of {@link RdmaIoHandler}s; a pipeline written for TCP works unchanged.
 *
 * <p>The channel becomes active once both sides exchanged their {@code HELLO}; a connect fails with a
 * {@link ConnectException} naming the RDMA CM event and status (no listener, no route, no RDMA device)
 * or a {@link ConnectTimeoutException} after {@code CONNECT_TIMEOUT_MILLIS}. Threading: as every
 * Netty channel, all work happens on its event loop.
 */
public final class RdmaSocketChannel extends AbstractChannel implements SocketChannel {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RdmaSocketChannel.class);
    private static final ChannelMetadata METADATA = new ChannelMetadata(false, 16);
    /** How long a closing channel waits for its last sends before it disconnects anyway. */
    private static final long LINGER_MILLIS = 2000;

    private final RdmaSocketChannelConfig config;
    /** For an accepted channel: the listener's dispatcher its id still lives on. */
    private final CmEventDispatcher acceptedFrom;

    private RdmaLoop loop;
    private CmEventDispatcher cm;
    private long id;
    private volatile RdmaConnection connection;
    private InetSocketAddress local;
    private InetSocketAddress remote;
    private ChannelPromise connectPromise;
    private Future<?> connectTimeoutFuture;
    private Future<?> keepAliveFuture;
    /** For an accepted channel: closes it if the peer's HELLO does not come in time. */
    private Future<?> helloTimeoutFuture;
    /** For an accepted channel refused before its loop adopted it: what the peer is told. */
    private int rejectReason = RejectReason.SERVER_ERROR;
    /** What a connect waits for now, for the message of a connect timeout. */
    private String connectStage = "nothing";
    private SocketAddress requestedRemoteAddress;
    /** Written on the loop; volatile because isOpen() and isActive() are asked from any thread. */
    private volatile boolean open = true;
    private volatile boolean active;
    private boolean readPending;
    /**
     * A read is queued on the loop. One is enough however often {@code read()} is called before it
     * runs: a handler that reads a byte at a time would otherwise queue a task per call.
     */
    private boolean readScheduled;
    private final Runnable readTask = () -> {
        readScheduled = false;
        ((RdmaUnsafe) unsafe()).readNow();
    };
    private boolean inputShutdown;
    private boolean outputShutdown;
    /** The peer sent CLOSE: it sends nothing more and needs no CLOSE back. */
    private boolean peerClosed;
    /** The peer disconnected (DISCONNECTED, or this side's requests were flushed). */
    private boolean disconnected;
    /** The connection's device is going away: close at once, without telling the peer. */
    private boolean deviceRemoved;
    private Runnable teardown;
    /** What {@link #metrics()} reports once the connection is gone. */
    private RdmaChannelMetrics metricsAtClose = RdmaChannelMetrics.NONE;

    /** Creates a channel that will connect. */
    public RdmaSocketChannel() {
        super(null);
        config = new RdmaSocketChannelConfig(this);
        acceptedFrom = null;
    }

    /** Creates a channel for a connect request a server channel accepted. */
    RdmaSocketChannel(RdmaServerSocketChannel parent, long childId, CmEventDispatcher acceptedFrom) {
        super(parent);
        config = new RdmaSocketChannelConfig(this);
        this.acceptedFrom = acceptedFrom;
        this.id = childId;
    }

    /**
     * Returns {@code true} once {@code register} gave this channel its event loop, which it does
     * before the registration itself runs on that loop.
     */
    boolean hasEventLoop() {
        try {
            eventLoop();
            return true;
        } catch (IllegalStateException notRegistered) {
            return false;
        }
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
    public boolean isOpen() {
        return open;
    }

    @Override
    public boolean isActive() {
        return open && active;
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
     * Returns what this channel's event loop did with its completion queues so far, for all of the
     * loop's RDMA channels together: wake-ups, completions, arms, busy polling. Counted on the loop:
     * read on another thread, the snapshot may lag. Zeros before the channel is registered.
     */
    public RdmaLoopMetrics loopMetrics() {
        RdmaLoop loop = this.loop;
        return loop != null ? loop.counters().snapshot() : RdmaLoopMetrics.NONE;
    }

    @Override
    public boolean isInputShutdown() {
        return inputShutdown || !isActive();
    }

    @Override
    public boolean isOutputShutdown() {
        return outputShutdown || !isActive();
    }

    @Override
    public boolean isShutdown() {
        return isInputShutdown() && isOutputShutdown() || !isActive();
    }

    @Override
    public ChannelFuture shutdownOutput() {
        return shutdownOutput(newPromise());
    }

    @Override
    public ChannelFuture shutdownOutput(ChannelPromise promise) {
        EventLoop loop = eventLoop();
        if (loop.inEventLoop()) {
            ((AbstractUnsafe) unsafe()).shutdownOutput(promise);
        } else {
            loop.execute(() -> ((AbstractUnsafe) unsafe()).shutdownOutput(promise));
        }
        return promise;
    }

    @Override
    public ChannelFuture shutdownInput() {
        return shutdownInput(newPromise());
    }

    @Override
    public ChannelFuture shutdownInput(ChannelPromise promise) {
        EventLoop loop = eventLoop();
        if (loop.inEventLoop()) {
            shutdownInput0(promise);
        } else {
            loop.execute(() -> shutdownInput0(promise));
        }
        return promise;
    }

    private void shutdownInput0(ChannelPromise promise) {
        if (!isActive()) {
            promise.setFailure(new java.nio.channels.NotYetConnectedException());
            return;
        }
        // The peer cannot be told to stop sending without closing; the input side is cut locally:
        // whatever arrives from now on is dropped (and credited back, so the peer is not stalled).
        inputShutdown = true;
        promise.setSuccess();
    }

    @Override
    public ChannelFuture shutdown() {
        return shutdown(newPromise());
    }

    @Override
    public ChannelFuture shutdown(ChannelPromise promise) {
        ChannelFuture output = shutdownOutput();
        output.addListener((ChannelFutureListener) f -> shutdownInput().addListener(
                (ChannelFutureListener) f2 -> {
                    if (f.isSuccess() && f2.isSuccess()) {
                        promise.setSuccess();
                    } else {
                        promise.setFailure(f.cause() != null ? f.cause() : f2.cause());
                    }
                }));
        return promise;
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        return loop instanceof IoEventLoop && ((IoEventLoop) loop).isCompatible(RdmaUnsafe.class);
    }

    @Override
    protected void doRegister(ChannelPromise promise) {
        ((IoEventLoop) eventLoop()).register((RdmaUnsafe) unsafe()).addListener(f -> {
            if (!f.isSuccess()) {
                if (f.cause() instanceof RejectedExecutionException) {
                    rejectReason = RejectReason.SHUTTING_DOWN;
                }
                promise.setFailure(f.cause());
                return;
            }
            IoRegistration registration = (IoRegistration) f.getNow();
            // Kept for doDeregister: the handler holds every registered channel until it is cancelled.
            ((RdmaUnsafe) unsafe()).registration = registration;
            loop = registration.attachment();
            promise.setSuccess();
            if (acceptedFrom != null && connection == null && open) {
                ((RdmaUnsafe) unsafe()).accept();
            }
        });
    }

    @Override
    protected void doBind(SocketAddress localAddress) throws Exception {
        // The local address is given to rdma_resolve_addr when the channel connects.
        local = checkAddress(localAddress);
    }

    @Override
    protected void doDisconnect() throws Exception {
        doClose();
    }

    @Override
    protected void doShutdownOutput() throws Exception {
        if (!isActive()) {
            throw new java.nio.channels.NotYetConnectedException();
        }
        if (outputShutdown) {
            return;
        }
        outputShutdown = true;
        // In order with the data already posted: the peer reads everything, then the end of input.
        if (connection != null && !connection.sendControl(RdmaProtocol.TYPE_SHUTDOWN_OUTPUT)) {
            throw new IOException("no credit left to send SHUTDOWN_OUTPUT: the peer does not read");
        }
    }

    @Override
    protected void doClose() throws Exception {
        if (!open) {
            return;
        }
        open = false;
        active = false;
        ChannelPromise promise = connectPromise;
        if (promise != null) {
            promise.tryFailure(new java.nio.channels.ClosedChannelException());
            connectPromise = null;
        }
        cancelConnectTimeout();
        cancelHelloTimeout();
        stopKeepAlive();
        if (connection != null && connection.isReady() && !peerClosed && !deviceRemoved) {
            // Tell the peer in band, after the data already posted, then give the last sends time to
            // complete before disconnecting, as a TCP close lets the kernel deliver what was written.
            connection.sendControl(RdmaProtocol.TYPE_CLOSE);
        }
        if (connection != null && connection.hasOutstandingSends() && loop != null && !deviceRemoved) {
            teardown = this::teardown;
            loop.addLingering(connection.device(), teardown);
            eventLoop().schedule(this::teardown, LINGER_MILLIS, TimeUnit.MILLISECONDS);
        } else {
            teardown();
        }
    }

    /**
     * Fails the channel because its device is going away: at once, without a {@code CLOSE} to the
     * peer or a wait for the last sends, since the kernel waits for this process to let go of
     * everything on the device before the removal completes.
     */
    void deviceRemoved(RdmaDevice device) {
        if (!open) {
            return;
        }
        deviceRemoved = true;
        IOException cause = new IOException("the RDMA device " + (device != null ? device + " " : "") + "was removed");
        if (connectPromise != null) {
            ((RdmaUnsafe) unsafe()).failConnect(cause);
        } else {
            ((RdmaUnsafe) unsafe()).connectionFailed(cause);
        }
    }

    /** Returns the device of the channel's connection, or {@code null} before it has one. */
    RdmaDevice device() {
        RdmaConnection current = connection;
        return current != null ? current.device() : null;
    }

    /** Disconnects and frees everything native; runs once. */
    private void teardown() {
        if (teardown != null && loop != null) {
            loop.removeLingering(teardown);
            teardown = null;
        }
        if (connection != null) {
            connection.disconnect();
            connection.close();
            metricsAtClose = connection.metrics(false);
            connection = null;
        }
        if (id != 0) {
            if (cm != null) {
                cm.destroyId(id);
            } else {
                // An accepted id never adopted by a loop: refuse the peer, then free it.
                CmEventDispatcher.rejectAndDestroy(id, rejectReason);
            }
            id = 0;
        }
    }

    @Override
    protected void doDeregister() throws Exception {
        IoRegistration registration = ((RdmaUnsafe) unsafe()).registration;
        if (registration != null) {
            registration.cancel();
        }
    }

    @Override
    protected void doBeginRead() throws Exception {
        readPending = true;
        if (connection != null && connection.hasInbound()) {
            // Not from inside read(): a handler calling read() in channelRead must not recurse.
            scheduleRead();
        }
    }

    /** Queues a read of what waits, unless one is queued already. */
    private void scheduleRead() {
        if (!readScheduled) {
            readScheduled = true;
            eventLoop().execute(readTask);
        }
    }

    void clearReadPending() {
        if (isRegistered()) {
            EventLoop loop = eventLoop();
            if (loop.inEventLoop()) {
                readPending = false;
            } else {
                loop.execute(() -> readPending = false);
            }
        } else {
            readPending = false;
        }
    }

    @Override
    protected void doWrite(ChannelOutboundBuffer in) throws Exception {
        if (connection != null) {
            connection.flush(in);
        }
    }

    @Override
    protected Object filterOutboundMessage(Object msg) {
        if (msg instanceof ByteBuf) {
            return msg;
        }
        if (msg instanceof FileRegion) {
            return new TrackedFileRegion((FileRegion) msg);
        }
        throw new UnsupportedOperationException("unsupported message type: " + msg.getClass().getName()
                + " (expected: ByteBuf, FileRegion)");
    }

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new RdmaUnsafe();
    }

    private static InetSocketAddress checkAddress(SocketAddress address) throws IOException {
        if (!(address instanceof InetSocketAddress)) {
            throw new IOException("unsupported address type: " + address + " (expected: InetSocketAddress)");
        }
        InetSocketAddress inet = (InetSocketAddress) address;
        if (inet.isUnresolved()) {
            throw new java.net.UnknownHostException(inet.getHostString());
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
                ((RdmaUnsafe) unsafe()).connectionFailed(e);
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

    /** The channel's unsafe: its RDMA CM events and connection events arrive here, on the loop. */
    private final class RdmaUnsafe extends AbstractUnsafe implements RdmaIoHandle, CmEventListener,
            RdmaConnection.Events {

        IoRegistration registration;
        private final SockAddr addressMemory = new SockAddr();

        @Override
        public void handle(IoRegistration registration, IoEvent ioEvent) {
            // Never called: an RDMA channel has no fd of its own.
        }

        @Override
        public void registered() {
            // The registration object arrives through doRegister's future.
        }

        @Override
        public void deviceRemoved(RdmaDevice device) {
            if (device() == device) {
                RdmaSocketChannel.this.deviceRemoved(device);
            }
        }

        @Override
        public void close() {
            close(voidPromise());
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
                if (active || id != 0) {
                    throw new AlreadyConnectedException();
                }
                InetSocketAddress target = checkAddress(remoteAddress);
                if (localAddress != null) {
                    local = checkAddress(localAddress);
                }
                requestedRemoteAddress = target;
                cm = loop.cm();
                id = cm.createId(this);
                long source = local != null ? new SockAddr().write(local) : 0;
                DisniNative.dispatcher()._resolveAddr(id, source, addressMemory.write(target), timeoutMillis());
                connectStage = "address resolution";
                connectPromise = promise;
                int timeout = config.getConnectTimeoutMillis();
                if (timeout > 0) {
                    connectTimeoutFuture = eventLoop().schedule(() -> {
                        ChannelPromise pending = connectPromise;
                        RdmaConnection handshaking = connection;
                        if (pending != null && pending.tryFailure(new ConnectTimeoutException(
                                "connection timed out after " + timeout + " ms: " + requestedRemoteAddress
                                        + " (waiting for " + connectStage + (handshaking != null
                                        ? "; " + handshaking.handshakeState() : "") + ')'))) {
                            close(voidPromise());
                        }
                    }, timeout, TimeUnit.MILLISECONDS);
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

        private int timeoutMillis() {
            int timeout = config.getConnectTimeoutMillis();
            return timeout > 0 ? timeout : 30_000;
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
                cm.adopt(id, acceptedFrom, this);
                openConnection();
                // The HELLO answers the peer's (RdmaConnection): a Send posted now could reach the
                // peer's queue pair before its CM has made it ready to receive, and be dropped.
                RdmaNative.accept(id, RdmaProtocol.RNR_RETRY_COUNT, 0, 0);
                local = readAddress(true);
                remote = readAddress(false);
                int timeout = config.getHelloTimeoutMillis();
                helloTimeoutFuture = eventLoop().schedule(() -> helloTimedOut(timeout), timeout,
                        TimeUnit.MILLISECONDS);
            } catch (Throwable t) {
                int reason;
                if (t instanceof RegisteredMemoryBudget.LimitReachedException) {
                    reason = RejectReason.REGISTERED_MEMORY_LIMIT;
                    logger.warn("refusing a connection: {}", t.getMessage());
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
            if (open && !active) {
                logger.debug("{}: no HELLO from the peer within {} ms, closing", RdmaSocketChannel.this, timeout);
                close(voidPromise());
            }
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
            CompletionQueue cq = loop.reserveCompletionQueue(device,
                    RdmaConnection.completionQueueEntries(config, device));
            connection = new RdmaConnection(this, eventLoop(), cq, id, config, acceptedFrom != null);
        }

        private InetSocketAddress readAddress(boolean source) {
            int result = source ? DisniNative.dispatcher()._getSrcAddr(id, addressMemory.address())
                    : DisniNative.dispatcher()._getDstAddr(id, addressMemory.address());
            return result == 0 ? addressMemory.read() : null;
        }

        @Override
        public void onCmEvent(CmEvent event) {
            try {
                switch (event.type()) {
                    case CmEvent.ADDR_RESOLVED:
                        DisniNative.dispatcher()._resolveRoute(id, timeoutMillis());
                        connectStage = "route resolution";
                        break;
                    case CmEvent.ROUTE_RESOLVED:
                        openConnection();
                        DisniNative.dispatcher()._connect(id, RdmaProtocol.RETRY_COUNT,
                                RdmaProtocol.RNR_RETRY_COUNT, 0, (byte) 0);
                        connectStage = "the server to accept (RDMA CM ESTABLISHED)";
                        break;
                    case CmEvent.ESTABLISHED:
                        if (acceptedFrom == null) {
                            connection.sendHello();
                            connectStage = "the server's HELLO";
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
                            // DISCONNECTED: polled first, since it comes through another fd. (The
                            // dispatcher does not poll before these events: while connecting, the
                            // flushed receives would close the channel before the refusal says why.)
                            logger.debug("{}: {} after the connection was established", RdmaSocketChannel.this,
                                    CmEvent.name(event.type()));
                            if (loop != null) {
                                loop.drainCompletionQueues();
                            }
                            if (open) {
                                onPeerDisconnected();
                            }
                        }
                        break;
                    case CmEvent.DISCONNECTED:
                        if (connectPromise != null) {
                            failConnect(new ConnectException("the server closed the connection while "
                                    + "waiting for " + connectStage + ": " + requestedRemoteAddress));
                        } else {
                            onPeerDisconnected();
                        }
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
                    return reason != null ? "connection refused (RDMA CM REJECTED): " + reason
                            : "connection refused (RDMA CM REJECTED, reason " + event.status()
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
        public void connectionReady() {
            cancelHelloTimeout();
            boolean wasActive = isActive();
            active = true;
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

        @Override
        public void inboundAvailable() {
            if (readPending || config.isAutoRead() || connection.endOfInputIsNext()) {
                readNow();
            }
        }

        @Override
        public void writeSpaceAvailable() {
            if (isActive() && outboundBuffer() != null && !outboundBuffer().isEmpty()) {
                flush0();
            }
        }

        @Override
        public void sendsDrained() {
            if (!open && teardown != null) {
                teardown();
            }
        }

        @Override
        public void connectionFailed(Throwable cause) {
            if (!open) {
                return;
            }
            pipeline().fireExceptionCaught(cause);
            failUndelivered(cause);
            close(voidPromise());
        }

        @Override
        protected void flush0() {
            // Data written while connecting goes out once connected (like TCP fast open), instead of
            // failing with NotYetConnectedException.
            if (connectPromise != null && open) {
                return;
            }
            super.flush0();
        }

        @Override
        public void connectionLost() {
            if (!open) {
                return;
            }
            // Writes in flight failed: with AUTO_CLOSE off, Netty shuts the output down and keeps
            // reading (as it does for a write error), so what the peer sent before is still read.
            if (!outputShutdown && !config.isAutoClose() && isActive()) {
                outputShutdown = true;
                shutdownOutput(voidPromise());
            }
            onPeerDisconnected();
        }

        private void onPeerDisconnected() {
            disconnected = true;
            // The data that arrived before the disconnect is read first; readNow ends the input then.
            if (!hasInbound()) {
                endOfInput();
            }
        }

        private boolean hasInbound() {
            return connection != null && connection.hasInbound();
        }

        /**
         * The peer will send no more: it shut its output down, closed, or disconnected. As for TCP's FIN,
         * a channel that allows half-closure sees the input shutdown events and stays open until the
         * peer is gone; any other closes.
         */
        private void endOfInput() {
            ChannelOutboundBuffer in = outboundBuffer();
            if ((peerClosed || disconnected) && !outputShutdown && !config.isAutoClose() && in != null
                    && !in.isEmpty()) {
                // The peer reads nothing more: what waits to be written fails, as a write to a closed
                // TCP socket does, and with AUTO_CLOSE off that shuts the output down.
                outputShutdown = true;
                shutdownOutput(voidPromise());
            }
            if (config.isAllowHalfClosure() && !inputShutdown) {
                inputShutdown = true;
                pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
                pipeline().fireUserEventTriggered(ChannelInputShutdownReadComplete.INSTANCE);
            }
            if (!config.isAllowHalfClosure() || disconnected) {
                if (disconnected && !peerClosed) {
                    // A peer gone without a CLOSE (killed, or its host lost): the writes fail as a TCP
                    // reset fails them. After a CLOSE they fail as closed, as after TCP's FIN.
                    failUndelivered(new IOException("connection reset: the peer disconnected before these bytes "
                            + "were delivered: " + remote));
                }
                close(voidPromise());
            }
        }

        /**
         * Fails the flushed writes with {@code cause}, which says why they will never arrive, rather
         * than with the bare {@code ClosedChannelException} the close that follows gives them. Only
         * those flushed now: a promise's listener or a writability handler may write and flush more
         * meanwhile, and the close fails those.
         */
        private void failUndelivered(Throwable cause) {
            ChannelOutboundBuffer in = outboundBuffer();
            if (in == null) {
                return;
            }
            for (int flushed = in.size(); flushed > 0 && in.current() != null; flushed--) {
                in.remove(cause);
            }
        }

        /** Hands received messages to the pipeline while it wants them. */
        void readNow() {
            if (connection == null || !open) {
                return;
            }
            ChannelPipeline pipeline = pipeline();
            RecvByteBufAllocator.Handle handle = recvBufAllocHandle();
            handle.reset(config);
            boolean readSomething = false;
            boolean shutdownReceived = false;
            boolean closeReceived = false;
            // The end of input needs no read() once everything before it was read: as TCP's FIN
            // reaches epoll as EPOLLRDHUP, a channel with AUTO_READ off learns of it at once.
            if (!readPending && !config.isAutoRead() && !connection.endOfInputIsNext()) {
                return;
            }
            try {
                // One read() call is one read loop: it goes on while the allocator's handle wants more,
                // as epoll's loop does, not only while a read is pending.
                while (connection != null && connection.hasInbound()) {
                    Object message = connection.readInbound(handle, config.getAllocator());
                    if (message instanceof ByteBuf) {
                        ByteBuf buf = (ByteBuf) message;
                        if (inputShutdown) {
                            buf.release();
                            continue;
                        }
                        readPending = false;
                        readSomething = true;
                        handle.incMessagesRead(1);
                        handle.lastBytesRead(buf.readableBytes());
                        pipeline.fireChannelRead(buf);
                        if (!handle.continueReading()) {
                            break;
                        }
                    } else if ((Integer) message == RdmaProtocol.TYPE_SHUTDOWN_OUTPUT) {
                        shutdownReceived = true;
                        break;
                    } else {
                        closeReceived = true;
                        break;
                    }
                }
            } catch (Throwable t) {
                handle.readComplete();
                pipeline.fireChannelReadComplete();
                connectionFailed(t);
                return;
            }
            handle.readComplete();
            if (readSomething) {
                pipeline.fireChannelReadComplete();
            }
            // The slots read are posted again only now, after the pipeline flushed what it answered in
            // channelReadComplete: the answer leaves without waiting for ibv_post_recv, and a later
            // message (or a CREDIT, when due) returns the slots.
            if (connection != null) {
                try {
                    connection.readComplete();
                } catch (IOException e) {
                    connectionFailed(e);
                    return;
                }
            }
            if (closeReceived) {
                peerClosed = true;
            }
            if (shutdownReceived || closeReceived || disconnected && !hasInbound()) {
                endOfInput();
            } else if (connection != null && connection.hasInbound()
                    && (readPending || config.isAutoRead() || connection.endOfInputIsNext())) {
                // The allocator handle ended this read; come back for the rest.
                scheduleRead();
            }
        }
    }
}
