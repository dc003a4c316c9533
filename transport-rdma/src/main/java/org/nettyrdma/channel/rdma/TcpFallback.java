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

import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ConnectionPendingException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.util.NetUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.internal.CmEvent;
import org.nettyrdma.channel.rdma.loop.RdmaLoop;
import org.nettyrdma.channel.rdma.protocol.RejectReason;

/**
 * The decision to carry a connecting {@link RdmaSocketChannel} by TCP, and the TCP connect itself
 * through a {@link TcpCarrier}. A channel falls back only on an answer that says RDMA is not there
 * ({@link #reasonFor}): no device, no route, no RDMA listener, a server short of registered memory, or
 * no answer at all; a server that refuses the connection itself (its connection bounds, its backlog,
 * another RDMA program on the port) fails the connect as it would over RDMA alone. With
 * {@link RdmaChannelOption#TCP_FALLBACK} off, the connect fails instead, saying what RDMA was missing.
 * Each fallback is counted by reason on its event loop ({@link RdmaLoopMetrics#fallbacks()}), and
 * logged once per peer host and reason in the process (for the first {@value #MAX_LOGGED}), so that a
 * fleet that falls back is seen without a line per connection.
 *
 * <p>Threading: {@link #connect} and {@link #fellBack} run on the event loop they count on.
 */
final class TcpFallback {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(TcpFallback.class);
    /**
     * The most peer hosts and reasons logged at INFO: a server that many TCP clients reach would
     * otherwise keep one entry per client host for good. Beyond it, fallbacks are logged at DEBUG.
     */
    private static final int MAX_LOGGED = 1024;
    /** The peer hosts and reasons logged already, one line each per process. */
    private static final Set<Map.Entry<InetAddress, RdmaFallbackReason>> LOGGED = ConcurrentHashMap.newKeySet();
    /** The IB CM reject reason of a connect request to a port nobody listens on (IB_CM_REJ_INVALID_SERVICE_ID). */
    static final int REJECTED_NO_LISTENER = 8;
    /**
     * Linux's errno of a connection reset: iWARP's status of a reject, an MPA reject as much as a TCP
     * server closing on the MPA request.
     */
    static final int ECONNRESET = 104;

    private TcpFallback() {
    }

    /**
     * Counts a channel carried by TCP for {@code reason} on {@code loop}, the loop that decided it, and
     * logs the first for its peer's host: by host, since each client of a server comes from a port of
     * its own.
     */
    static void fellBack(RdmaLoop loop, InetSocketAddress peer, RdmaFallbackReason reason) {
        loop.fellBack(reason);
        Map.Entry<InetAddress, RdmaFallbackReason> key = Map.entry(peer.getAddress(), reason);
        if (LOGGED.size() < MAX_LOGGED && LOGGED.add(key)) {
            logger.info("{}: carried by TCP: {} ({})", peer, reason.description(), reason);
        } else {
            logger.debug("{}: carried by TCP: {} ({})", peer, reason.description(), reason);
        }
    }

    /**
     * Returns why a connect that failed with {@code event} (a failure of the set-up: an error,
     * {@code REJECTED}, {@code UNREACHABLE}) may go on over TCP, or {@code null} if it fails. A reject
     * is keyed on its status, not on the length of its private data: an IB CM reject always carries
     * 148 bytes, zeros where nobody listens. {@code overTcp}: the device connects over TCP (iWARP,
     * {@link org.nettyrdma.channel.rdma.memory.DeviceVerbs#connectsOverTcp()}), where a TCP server at
     * the port resets the connection without a reason or answers with what is no MPA reply.
     */
    static RdmaFallbackReason reasonFor(CmEvent event, boolean overTcp) {
        switch (event.type()) {
            case CmEvent.ADDR_ERROR:
            case CmEvent.ROUTE_ERROR:
                return RdmaFallbackReason.NO_ROUTE;
            case CmEvent.UNREACHABLE:
                return RdmaFallbackReason.RDMA_UNREACHABLE;
            case CmEvent.REJECTED:
                int reason = RejectReason.decode(event.privateData());
                if (reason == RejectReason.REGISTERED_MEMORY_LIMIT || reason == RejectReason.ADDRESS_LIMIT) {
                    // TCP pins no registered memory, and the server's TCP children count against its
                    // connection bounds as RDMA ones do.
                    return RdmaFallbackReason.PEER_DECLINED;
                }
                boolean noListener = overTcp ? event.status() == -ECONNRESET : event.status() == REJECTED_NO_LISTENER;
                return reason == 0 && noListener ? RdmaFallbackReason.NO_RDMA_LISTENER : null;
            case CmEvent.CONNECT_ERROR:
                return overTcp ? RdmaFallbackReason.NO_RDMA_LISTENER : null;
            default:
                return null;
        }
    }

    /**
     * Returns the failure of a connect that would have fallen back for {@code reason} had
     * {@link RdmaChannelOption#TCP_FALLBACK} been on: what RDMA was missing, and {@code detail}, the
     * error that said so.
     */
    static ConnectException refused(RdmaFallbackReason reason, String detail, InetSocketAddress remote) {
        ConnectException e = new ConnectException(missing(reason, remote)
                + (detail != null ? " (" + detail + ')' : "") + "; TCP_FALLBACK is off");
        e.initCause(reason == RdmaFallbackReason.NO_LOCAL_DEVICE ? Rdma.unavailabilityCause() : null);
        return e;
    }

    /**
     * Connects {@code channel} to {@code remote} over TCP because of {@code reason}, within
     * {@code timeoutMillis} (0: none), or fails with what RDMA missed if the channel does not fall back.
     * {@code promise} completes when the TCP connect does; a failed TCP connect fails it with both
     * attempts' reasons, and closes the channel.
     */
    static void connect(RdmaSocketChannel channel, RdmaFallbackReason reason, InetSocketAddress remote,
                        SocketAddress local, ChannelPromise promise, int timeoutMillis) throws ConnectException {
        if (channel.carrier != null) {
            throw channel.isActive() ? new AlreadyConnectedException() : new ConnectionPendingException();
        }
        if (!channel.config().isTcpFallback()) {
            Throwable cause = Rdma.unavailabilityCause();
            throw refused(reason, reason == RdmaFallbackReason.NO_LOCAL_DEVICE && cause != null ? cause.getMessage()
                    : null, remote);
        }
        if (channel.state() != RdmaChannelState.CONNECTING_TCP) {
            channel.transition(RdmaChannelState.CONNECTING_TCP);
        }
        fellBack(channel.loop, remote, reason);
        TcpCarrier tcp = new TcpCarrier(channel, new EpollSocketChannel(), reason);
        channel.carrier = tcp;
        ChannelPromise registered = channel.newPromise();
        tcp.register(channel.eventLoop(), registered);
        registered.addListener((ChannelFutureListener) r -> {
            if (!r.isSuccess()) {
                failed(channel, reason, remote, r.cause(), promise);
                return;
            }
            tcp.carrier().config().setConnectTimeoutMillis(timeoutMillis);
            tcp.carrier().connect(remote, local).addListener((ChannelFutureListener) f -> {
                if (f.isSuccess()) {
                    channel.carrierConnected(promise);
                } else {
                    failed(channel, reason, remote, f.cause(), promise);
                }
            });
        });
    }

    /** Says what RDMA was missing for a connect to {@code remote}. */
    private static String missing(RdmaFallbackReason reason, InetSocketAddress remote) {
        // In brackets for IPv6, so that the port cannot be read as the address's last group.
        String hostAndPort = NetUtil.toSocketAddressString(remote);
        switch (reason) {
            case NO_LOCAL_DEVICE:
                return "RDMA is unavailable in this process";
            case NO_ROUTE:
                return "no RDMA device serves " + remote.getAddress().getHostAddress();
            case NO_RDMA_LISTENER:
                return "no RDMA listener at " + hostAndPort;
            case RDMA_UNREACHABLE:
                return "no answer over RDMA CM from " + hostAndPort;
            case PEER_DECLINED:
                return "the server at " + hostAndPort + " declined RDMA";
            default:
                return "cannot connect over RDMA to " + hostAndPort + ": " + reason.description();
        }
    }

    private static void failed(RdmaSocketChannel channel, RdmaFallbackReason reason, InetSocketAddress remote,
                               Throwable tcpCause, ChannelPromise promise) {
        String message = "connect failed over RDMA and TCP: " + remote + " (RDMA: " + reason.description()
                + "; TCP: " + tcpCause.getMessage() + ')';
        ConnectException e = tcpCause instanceof ConnectTimeoutException ? new ConnectTimeoutException(message)
                : new ConnectException(message);
        e.initCause(tcpCause);
        promise.tryFailure(e);
        channel.unsafe().close(channel.unsafe().voidPromise());
    }
}
