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
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

/**
 * The decision to carry a connecting {@link RdmaSocketChannel} by TCP, and the TCP connect itself
 * through a {@link TcpCarrier}. With {@link RdmaChannelOption#TCP_FALLBACK} off, the connect fails
 * instead, saying what RDMA was missing. Each fallback is counted by reason, and logged once per peer
 * host and reason in the process (for the first {@value #MAX_LOGGED}), so that a fleet that falls
 * back is seen without a line per connection.
 *
 * <p>Threading: {@link #connect} runs on the channel's event loop; the counts are thread-safe.
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
    private static final Map<RdmaFallbackReason, LongAdder> COUNTS = counters();

    private TcpFallback() {
    }

    private static Map<RdmaFallbackReason, LongAdder> counters() {
        Map<RdmaFallbackReason, LongAdder> counts = new EnumMap<>(RdmaFallbackReason.class);
        for (RdmaFallbackReason reason : RdmaFallbackReason.values()) {
            counts.put(reason, new LongAdder());
        }
        return counts;
    }

    /** Returns how many channels of this process fell back to TCP for {@code reason}. */
    static long count(RdmaFallbackReason reason) {
        return COUNTS.get(reason).sum();
    }

    /**
     * Counts a channel carried by TCP for {@code reason}, and logs the first for its peer's host: by
     * host, since each client of a server comes from a port of its own.
     */
    static void fellBack(InetSocketAddress peer, RdmaFallbackReason reason) {
        COUNTS.get(reason).increment();
        Map.Entry<InetAddress, RdmaFallbackReason> key = Map.entry(peer.getAddress(), reason);
        if (LOGGED.size() < MAX_LOGGED && LOGGED.add(key)) {
            logger.info("{}: carried by TCP: {} ({})", peer, reason.description(), reason);
        } else {
            logger.debug("{}: carried by TCP: {} ({})", peer, reason.description(), reason);
        }
    }

    /**
     * Connects {@code channel} to {@code remote} over TCP because of {@code reason}, or fails with what
     * RDMA missed if the channel does not fall back. {@code promise} completes when the TCP connect
     * does; a failed TCP connect fails it with both attempts' reasons, and closes the channel.
     */
    static void connect(RdmaSocketChannel channel, RdmaFallbackReason reason, InetSocketAddress remote,
                        SocketAddress local, ChannelPromise promise) throws ConnectException {
        if (channel.carrier != null) {
            throw channel.isActive() ? new AlreadyConnectedException() : new ConnectionPendingException();
        }
        if (!channel.config().isTcpFallback()) {
            ConnectException e = new ConnectException(strictMessage(reason) + " (TCP_FALLBACK is off): " + remote);
            e.initCause(reason == RdmaFallbackReason.NO_LOCAL_DEVICE ? Rdma.unavailabilityCause() : null);
            throw e;
        }
        fellBack(remote, reason);
        TcpCarrier tcp = new TcpCarrier(channel, new EpollSocketChannel(), reason);
        channel.carrier = tcp;
        ChannelPromise registered = channel.newPromise();
        tcp.register(channel.eventLoop(), registered);
        registered.addListener((ChannelFutureListener) r -> {
            if (!r.isSuccess()) {
                failed(channel, reason, remote, r.cause(), promise);
                return;
            }
            tcp.carrier().connect(remote, local).addListener((ChannelFutureListener) f -> {
                if (f.isSuccess()) {
                    channel.carrierConnected(promise);
                } else {
                    failed(channel, reason, remote, f.cause(), promise);
                }
            });
        });
    }

    private static String strictMessage(RdmaFallbackReason reason) {
        if (reason == RdmaFallbackReason.NO_LOCAL_DEVICE) {
            Throwable cause = Rdma.unavailabilityCause();
            return "RDMA is unavailable in this process" + (cause != null ? ": " + cause.getMessage() : "");
        }
        return "cannot connect over RDMA: " + reason.description();
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
