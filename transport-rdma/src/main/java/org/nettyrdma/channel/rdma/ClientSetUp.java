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
import io.netty.channel.ChannelPromise;
import io.netty.channel.ConnectTimeoutException;
import io.netty.util.concurrent.Future;
import org.nettyrdma.channel.rdma.connection.RdmaConnection;
import org.nettyrdma.channel.rdma.internal.DisniNative;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.channel.rdma.internal.SockAddr;
import org.nettyrdma.channel.rdma.internal.CmEvent;
import org.nettyrdma.channel.rdma.internal.ConnectParameters;
import org.nettyrdma.channel.rdma.memory.RdmaDevice;
import org.nettyrdma.channel.rdma.protocol.RejectReason;

/**
 * The set-up of a channel that connects: {@code rdma_resolve_addr}, {@code rdma_resolve_route}, the
 * queue pair and {@code rdma_connect}, then its {@code HELLO} once the CM reports the connection
 * established. The connect fails with a {@link ConnectException} naming the RDMA CM event and status
 * or with a {@link ConnectTimeoutException} after {@code CONNECT_TIMEOUT_MILLIS}.
 *
 * <p>Where RDMA CM says RDMA is not there (no route, no RDMA listener, a server short of registered
 * memory, no answer: {@link TcpFallback#reasonFor}) the channel goes on over TCP instead
 * ({@link RdmaChannelOption#TCP_FALLBACK}): what the attempt holds is freed as a failed connect's close
 * frees it, and the TCP connect gets what is left of the connect timeout. The RDMA attempt takes at most
 * half of that timeout, so that a path that drops RDMA silently still leaves TCP its time.
 *
 * <p>Threading: the channel's event loop only.
 */
final class ClientSetUp extends ConnectionSetUp {

    /** What address and route resolution wait for when the channel has no connect timeout. */
    private static final int RESOLVE_TIMEOUT_MILLIS = 30_000;

    private ChannelPromise connectPromise;
    private Future<?> connectTimeoutFuture;
    /** Ends the RDMA attempt of a channel that may fall back, at half the connect timeout. */
    private Future<?> rdmaBoundFuture;
    private long connectStartNanos;
    private InetSocketAddress requestedRemoteAddress;

    ClientSetUp(RdmaSocketChannel channel) {
        super(channel);
    }

    /**
     * Returns {@code address} as a resolved {@link InetSocketAddress}, the only kind RDMA CM is given
     * here. An IPv6 link-local address without its interface is refused before anything is tried: no
     * route, over RDMA or TCP, can be found for it.
     */
    static InetSocketAddress checkAddress(SocketAddress address) throws IOException {
        if (!(address instanceof InetSocketAddress)) {
            throw new IOException("unsupported address type: " + address + " (expected: InetSocketAddress)");
        }
        InetSocketAddress inet = (InetSocketAddress) address;
        if (inet.isUnresolved()) {
            throw new UnknownHostException(inet.getHostString());
        }
        SockAddr.checkScope(inet.getAddress());
        return inet;
    }

    @Override
    void connect(SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) throws Exception {
        if (connectPromise != null) {
            throw new ConnectionPendingException();
        }
        if (channel.state() != RdmaChannelState.NEW) {
            throw new AlreadyConnectedException();
        }
        InetSocketAddress target = checkAddress(remoteAddress);
        if (localAddress != null) {
            channel.local = checkAddress(localAddress);
        }
        requestedRemoteAddress = target;
        connectStartNanos = System.nanoTime();
        try {
            channel.cm = channel.loop.cm();
        } catch (IOException e) {
            // librdmacm opens no event channel where the host has no RDMA device (ENODEV): the devices
            // were removed before this loop first used RDMA CM. Nothing of RDMA is held yet.
            connectPromise = promise;
            fallBack(RdmaFallbackReason.NO_LOCAL_DEVICE, e.getMessage());
            return;
        }
        long id = channel.cm.createId(channel.registration);
        channel.id = id;
        int trafficClass = channel.config().getTrafficClass();
        if (trafficClass != 0) {
            // Before the route is resolved: rdma_cm copies the class into it (IP_TOS).
            RdmaNative.setTypeOfService(id, trafficClass);
        }
        connectPromise = promise;
        scheduleTimeouts();
        promise.addListener((ChannelFutureListener) future -> {
            if (future.isCancelled()) {
                cancelConnectTimeout();
                connectPromise = null;
                close();
            }
        });
        // The source's memory must outlive the native call that reads it, not only its address.
        InetSocketAddress local = channel.local;
        SockAddr sourceMemory = local != null ? new SockAddr() : null;
        long source = sourceMemory != null ? sourceMemory.write(local) : 0;
        try {
            DisniNative.dispatcher()._resolveAddr(id, source, addressMemory.write(target), timeoutMillis());
        } catch (IOException e) {
            // No IP route to the address at all (ENETUNREACH), before anything was sent.
            fallBack(RdmaFallbackReason.NO_ROUTE, e.getMessage());
            return;
        } finally {
            Reference.reachabilityFence(sourceMemory);
        }
        channel.transition(RdmaChannelState.RESOLVING);
    }

    private void scheduleTimeouts() {
        int timeout = channel.config().getConnectTimeoutMillis();
        if (timeout <= 0) {
            return;
        }
        connectTimeoutFuture = channel.eventLoop().schedule(() -> connectTimedOut(timeout), timeout,
                TimeUnit.MILLISECONDS);
        if (channel.config().isTcpFallback()) {
            // Every definite answer of RDMA CM comes within milliseconds; only a silent path (RoCE's
            // packets dropped, no host there) runs into this, and half still spans two of the CM's
            // 6.4 s connect request tries at the default 30 s (docs/fallback.md).
            int bound = Math.max(1, timeout / 2);
            rdmaBoundFuture = channel.eventLoop().schedule(() -> rdmaBoundPassed(bound), bound,
                    TimeUnit.MILLISECONDS);
        }
    }

    private void rdmaBoundPassed(int bound) {
        rdmaBoundFuture = null;
        RdmaChannelState state = channel.state();
        if (connectPromise != null && (state == RdmaChannelState.RESOLVING || state == RdmaChannelState.CONNECTING)) {
            fallBack(RdmaFallbackReason.RDMA_UNREACHABLE, "no answer within " + bound
                    + " ms, half of CONNECT_TIMEOUT_MILLIS, while waiting for " + state.awaited());
        }
    }

    /**
     * Goes on over TCP for {@code reason}, which {@code detail} (the error of RDMA CM) shows, or fails
     * the connect with both if the channel does not fall back. The RDMA attempt is let go of first,
     * as a failed connect's close lets go of it.
     */
    private void fallBack(RdmaFallbackReason reason, String detail) {
        if (!channel.config().isTcpFallback()) {
            failConnect(TcpFallback.refused(reason, detail, requestedRemoteAddress));
            return;
        }
        cancelConnectTimeout();
        channel.transition(RdmaChannelState.CONNECTING_TCP);
        channel.drain.release(() -> connectOverTcp(reason));
    }

    private void connectOverTcp(RdmaFallbackReason reason) {
        ChannelPromise promise = connectPromise;
        connectPromise = null;
        if (promise == null || !channel.isOpen()) {
            return;
        }
        int timeout = channel.config().getConnectTimeoutMillis();
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - connectStartNanos);
        try {
            TcpFallback.connect(channel, reason, requestedRemoteAddress, channel.local, promise,
                    timeout > 0 ? (int) Math.max(1, timeout - elapsed) : 0);
        } catch (Throwable t) {
            promise.tryFailure(t);
            close();
        }
    }

    private void connectTimedOut(int timeout) {
        ChannelPromise pending = connectPromise;
        RdmaConnection handshaking = channel.connection;
        if (pending != null && pending.tryFailure(new ConnectTimeoutException(
                "connection timed out after " + timeout + " ms: " + requestedRemoteAddress
                        + " (waiting for " + channel.state().awaited() + (handshaking != null
                        ? "; " + handshaking.handshakeState() : "") + ')'))) {
            close();
        }
    }

    private int timeoutMillis() {
        int timeout = channel.config().getConnectTimeoutMillis();
        return timeout > 0 ? timeout : RESOLVE_TIMEOUT_MILLIS;
    }

    @Override
    boolean connectPending() {
        return connectPromise != null;
    }

    @Override
    Throwable annotate(Throwable t) {
        if (t instanceof IOException && requestedRemoteAddress != null && !(t instanceof ConnectException)) {
            ConnectException e = new ConnectException(t.getMessage() + ": " + requestedRemoteAddress);
            e.initCause(t);
            return e;
        }
        return t;
    }

    @Override
    boolean answersHello() {
        return false;
    }

    @Override
    void setUpEvent(CmEvent event) throws Exception {
        if (channel.state() == RdmaChannelState.CONNECTING_TCP) {
            // The RDMA attempt is being let go of: nothing it reports matters any more.
            return;
        }
        switch (event.type()) {
            case CmEvent.ADDR_RESOLVED:
                try {
                    DisniNative.dispatcher()._resolveRoute(channel.id, timeoutMillis());
                } catch (IOException e) {
                    // No RDMA device serves the address (ENODEV for a loopback address), reported by
                    // the call itself rather than by a ROUTE_ERROR event.
                    fallBack(RdmaFallbackReason.NO_ROUTE, e.getMessage());
                }
                break;
            case CmEvent.ROUTE_RESOLVED:
                openConnection();
                DisniNative.dispatcher()._connect(channel.id, ConnectParameters.RETRY_COUNT,
                        channel.config().getRnrRetryCount(), 0, (byte) 0);
                channel.transition(RdmaChannelState.CONNECTING);
                break;
            case CmEvent.ESTABLISHED:
                // Before the HELLO: the peer's may already be here, and then it makes the channel active.
                channel.transition(RdmaChannelState.AWAITING_HELLO);
                channel.connection.sendHello();
                break;
            case CmEvent.ADDR_ERROR:
            case CmEvent.ROUTE_ERROR:
            case CmEvent.UNREACHABLE:
            case CmEvent.REJECTED:
            case CmEvent.CONNECT_ERROR:
                if (connectPromise != null && channel.state() != RdmaChannelState.AWAITING_HELLO) {
                    RdmaChannelState state = channel.state();
                    RdmaFallbackReason reason = state == RdmaChannelState.RESOLVING
                            || state == RdmaChannelState.CONNECTING
                            ? TcpFallback.reasonFor(event, connectsOverTcp()) : null;
                    if (reason != null) {
                        fallBack(reason, detail(event));
                    } else {
                        failConnect(new ConnectException(describe(event) + ": " + requestedRemoteAddress));
                    }
                } else {
                    // Our CM saw the connection established; a REJECTED now says the server's CM let
                    // go of it before it saw the same (an id destroyed at once, which its kernel answers
                    // with a reject). As after a DISCONNECTED, what the server sent is read before the
                    // input ends: a pending connect whose HELLO came succeeds, as a TCP connect to a
                    // server that accepts and closes at once does; without it, it fails (connectLost).
                    lostAfterEstablished(event);
                }
                break;
            default:
                break;
        }
    }

    /** Returns {@code true} if the connection's device connects over TCP (iWARP): known once its queue pair is. */
    private boolean connectsOverTcp() {
        return channel.connection != null && channel.connection.device().verbs().connectsOverTcp();
    }

    /** Says what RDMA CM reported, briefly: for the message of a connect that does not fall back. */
    private static String detail(CmEvent event) {
        String reason = event.type() == CmEvent.REJECTED
                ? RejectReason.describe(RejectReason.decode(event.privateData())) : null;
        return "RDMA CM " + CmEvent.name(event.type()) + (reason != null ? ": " + reason
                : ", status " + event.status());
    }

    private String describe(CmEvent event) {
        switch (event.type()) {
            case CmEvent.REJECTED:
                String reason = RejectReason.describe(RejectReason.decode(event.privateData()));
                if (reason != null) {
                    return "connection refused (RDMA CM REJECTED): " + reason;
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

    @Override
    void fail(Throwable cause) {
        if (connectPromise != null) {
            failConnect(cause);
        } else {
            super.fail(cause);
        }
    }

    private void failConnect(Throwable cause) {
        ChannelPromise promise = connectPromise;
        connectPromise = null;
        cancelConnectTimeout();
        if (promise != null) {
            promise.tryFailure(cause);
        }
        close();
    }

    @Override
    boolean connectLost() {
        if (channel.state() == RdmaChannelState.CONNECTING_TCP) {
            // The flushes of the queue pair let go of for TCP.
            return true;
        }
        if (connectPromise == null) {
            return false;
        }
        failConnect(new ConnectException("the server closed the connection while waiting for "
                + channel.state().awaited() + ": " + requestedRemoteAddress));
        return true;
    }

    @Override
    boolean deviceRemoved(RdmaDevice device) {
        RdmaChannelState state = channel.state();
        if (state == RdmaChannelState.CONNECTING_TCP) {
            channel.drain.releaseNow();
            return true;
        }
        if (connectPromise != null && (state == RdmaChannelState.RESOLVING || state == RdmaChannelState.CONNECTING)) {
            fallBack(RdmaFallbackReason.DEVICE_REMOVED,
                    "the RDMA device " + (device != null ? device + " " : "") + "was removed");
            return true;
        }
        return false;
    }

    @Override
    ChannelPromise connected() {
        ChannelPromise promise = connectPromise;
        if (promise != null) {
            connectPromise = null;
            cancelConnectTimeout();
        }
        return promise;
    }

    @Override
    void beginClose() {
        ChannelPromise promise = connectPromise;
        if (promise != null) {
            promise.tryFailure(new ClosedChannelException());
            connectPromise = null;
        }
        cancelConnectTimeout();
    }

    private void cancelConnectTimeout() {
        if (connectTimeoutFuture != null) {
            connectTimeoutFuture.cancel(false);
            connectTimeoutFuture = null;
        }
        if (rdmaBoundFuture != null) {
            rdmaBoundFuture.cancel(false);
            rdmaBoundFuture = null;
        }
    }
}
