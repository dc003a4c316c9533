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
import org.nettyrdma.channel.rdma.protocol.RejectReason;

/**
 * The set-up of a channel that connects: {@code rdma_resolve_addr}, {@code rdma_resolve_route}, the
 * queue pair and {@code rdma_connect}, then its {@code HELLO} once the CM reports the connection
 * established. The connect fails with a {@link ConnectException} naming the RDMA CM event and status
 * (no listener, no route, no RDMA device) or with a {@link ConnectTimeoutException} after
 * {@code CONNECT_TIMEOUT_MILLIS}.
 *
 * <p>Threading: the channel's event loop only.
 */
final class ClientSetUp extends ConnectionSetUp {

    /** What address and route resolution wait for when the channel has no connect timeout. */
    private static final int RESOLVE_TIMEOUT_MILLIS = 30_000;

    private ChannelPromise connectPromise;
    private Future<?> connectTimeoutFuture;
    private SocketAddress requestedRemoteAddress;

    ClientSetUp(RdmaSocketChannel channel) {
        super(channel);
    }

    /** Returns {@code address} as a resolved {@link InetSocketAddress}, the only kind RDMA CM is given here. */
    static InetSocketAddress checkAddress(SocketAddress address) throws IOException {
        if (!(address instanceof InetSocketAddress)) {
            throw new IOException("unsupported address type: " + address + " (expected: InetSocketAddress)");
        }
        InetSocketAddress inet = (InetSocketAddress) address;
        if (inet.isUnresolved()) {
            throw new UnknownHostException(inet.getHostString());
        }
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
        channel.cm = channel.loop.cm();
        long id = channel.cm.createId(channel.registration);
        channel.id = id;
        int trafficClass = channel.config().getTrafficClass();
        if (trafficClass != 0) {
            // Before the route is resolved: rdma_cm copies the class into it (IP_TOS).
            RdmaNative.setTypeOfService(id, trafficClass);
        }
        // The source's memory must outlive the native call that reads it, not only its address.
        InetSocketAddress local = channel.local;
        SockAddr sourceMemory = local != null ? new SockAddr() : null;
        long source = sourceMemory != null ? sourceMemory.write(local) : 0;
        DisniNative.dispatcher()._resolveAddr(id, source, addressMemory.write(target), timeoutMillis());
        Reference.reachabilityFence(sourceMemory);
        channel.transition(RdmaChannelState.RESOLVING);
        connectPromise = promise;
        int timeout = channel.config().getConnectTimeoutMillis();
        if (timeout > 0) {
            connectTimeoutFuture = channel.eventLoop().schedule(() -> connectTimedOut(timeout), timeout,
                    TimeUnit.MILLISECONDS);
        }
        promise.addListener((ChannelFutureListener) future -> {
            if (future.isCancelled()) {
                cancelConnectTimeout();
                connectPromise = null;
                close();
            }
        });
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
        switch (event.type()) {
            case CmEvent.ADDR_RESOLVED:
                DisniNative.dispatcher()._resolveRoute(channel.id, timeoutMillis());
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
                if (connectPromise != null) {
                    failConnect(new ConnectException(describe(event) + ": " + requestedRemoteAddress));
                } else {
                    lostAfterEstablished(event);
                }
                break;
            default:
                break;
        }
    }

    private String describe(CmEvent event) {
        switch (event.type()) {
            case CmEvent.REJECTED:
                String reason = RejectReason.describe(RejectReason.decode(event.privateData()));
                if (reason != null) {
                    return "connection refused (RDMA CM REJECTED): " + reason;
                }
                if (channel.state() == RdmaChannelState.AWAITING_HELLO) {
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
        if (connectPromise == null) {
            return false;
        }
        failConnect(new ConnectException("the server closed the connection while waiting for "
                + channel.state().awaited() + ": " + requestedRemoteAddress));
        return true;
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
    }
}
