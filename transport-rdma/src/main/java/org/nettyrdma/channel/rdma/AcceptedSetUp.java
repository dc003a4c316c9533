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
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.connection.ConnectionSettings;
import org.nettyrdma.channel.rdma.connection.MemoryAdmission;
import org.nettyrdma.channel.rdma.connection.RdmaConnection;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.channel.rdma.internal.CmEvent;
import org.nettyrdma.channel.rdma.loop.CmEventDispatcher;
import org.nettyrdma.channel.rdma.memory.ConnectionBudget;
import org.nettyrdma.channel.rdma.memory.RegisteredMemoryBudget;
import org.nettyrdma.channel.rdma.protocol.RejectReason;

/**
 * The set-up of a channel for a connect request its server accepted: the id moves to the channel's
 * loop, the peer is admitted within the server's limits per address ({@link Admission}), the
 * connection is opened and accepted, and the peer has {@code HELLO_TIMEOUT_MILLIS} to say
 * {@code HELLO}. Until then the channel counts against the server's backlog, and a full backlog
 * may evict it for a newer request. A peer that cannot be admitted is refused with the reason.
 *
 * <p>Threading: the channel's event loop only.
 */
final class AcceptedSetUp extends ConnectionSetUp implements MemoryAdmission {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(AcceptedSetUp.class);

    /** The listener's dispatcher the id still lives on. */
    private final CmEventDispatcher acceptedFrom;
    /** The channel's share of what the server lets its peers hold. */
    private final Admission.Ticket admission;
    /** Closes the channel if the peer's HELLO does not come in time. */
    private Future<?> helloTimeoutFuture;

    AcceptedSetUp(RdmaSocketChannel channel, CmEventDispatcher acceptedFrom, Admission.Ticket admission) {
        super(channel);
        this.acceptedFrom = acceptedFrom;
        this.admission = admission;
    }

    @Override
    void registered() {
        if (channel.state() == RdmaChannelState.NEW) {
            accept();
        }
    }

    /** Sets up an accepted connection on the channel's loop and accepts it. */
    private void accept() {
        long id = channel.id;
        try {
            channel.cm = channel.loop.cm();
            channel.cm.adopt(id, acceptedFrom, channel.registration);
            openConnection();
            channel.transition(RdmaChannelState.AWAITING_HELLO);
            // The HELLO answers the peer's (RdmaConnection): a Send posted now could reach the
            // peer's queue pair before its CM has made it ready to receive, and be dropped
            // (docs/decisions.md#client-hello-first).
            RdmaNative.accept(id, channel.config().getRnrRetryCount(), 0, 0);
            channel.local = readAddress(true);
            channel.remote = readAddress(false);
            int timeout = channel.config().getHelloTimeoutMillis();
            helloTimeoutFuture = channel.eventLoop().schedule(() -> helloTimedOut(timeout), timeout,
                    TimeUnit.MILLISECONDS);
            if (admission != null) {
                EventLoop loop = channel.eventLoop();
                admission.evictable(() -> loop.execute(this::evicted));
            }
        } catch (Throwable t) {
            // Told why, the client's connect fails at once with the reason.
            CmEventDispatcher.reject(id, refusal(t));
            close();
        }
    }

    /** Returns the reason an accept that failed with {@code t} gives its peer, and logs it. */
    private static int refusal(Throwable t) {
        if (t instanceof RegisteredMemoryBudget.LimitReachedException) {
            logger.warn("refusing a connection: {}", t.getMessage());
            return RejectReason.REGISTERED_MEMORY_LIMIT;
        }
        if (t instanceof ConnectionBudget.LimitReachedException) {
            logger.warn("refusing a connection: {}", t.getMessage());
            return RejectReason.CONNECTION_LIMIT;
        }
        if (t instanceof AddressLimitException) {
            // At debug: a client can make this happen as often as it connects; it is told why.
            logger.debug("refusing a connection: {}", t.getMessage());
            return ((AddressLimitException) t).reason;
        }
        logger.warn("accepting a connection failed", t);
        return RejectReason.SERVER_ERROR;
    }

    /**
     * Closes an accepted connection whose peer did not say {@code HELLO} in time: a peer that
     * connects and never speaks holds a queue pair and registered memory until then.
     */
    private void helloTimedOut(int timeout) {
        helloTimeoutFuture = null;
        if (channel.state() != RdmaChannelState.AWAITING_HELLO) {
            return;
        }
        // A HELLO already in the completion queue counts as in time.
        channel.afterCompletionsSeen(() -> {
            if (channel.state() == RdmaChannelState.AWAITING_HELLO) {
                logger.debug("{}: no HELLO from the peer within {} ms, closing", channel, timeout);
                close();
            }
        });
    }

    /**
     * Closes an accepted connection still without its peer's {@code HELLO} because a full backlog
     * needed room for a new one ({@link Admission#evictOldest()}).
     */
    private void evicted() {
        // A HELLO already in the completion queue saves it.
        channel.afterCompletionsSeen(() -> {
            if (channel.state() == RdmaChannelState.AWAITING_HELLO) {
                logger.debug("{}: no HELLO from the peer yet and the backlog full, closing to make room", channel);
                close();
            }
        });
    }

    /**
     * Admits the connection if its source address stays within the server's
     * {@link RdmaChannelOption#MAX_CONNECTIONS_PER_ADDRESS} with it, and, with what the connection
     * holds once set up, within its {@link RdmaChannelOption#MAX_REGISTERED_MEMORY_PER_ADDRESS};
     * the peer's share of receive slots grows later only within it too ({@link #mayHoldMore}).
     */
    @Override
    void admit(ConnectionSettings settings) throws IOException {
        if (admission == null) {
            return;
        }
        InetSocketAddress peer = readAddress(false);
        if (peer == null) {
            throw new IOException("the rdma_cm_id has no destination address");
        }
        int maxConnections = serverConfig().getMaxConnectionsPerAddress();
        long maxBytes = addressCap();
        long atMost = settings.registeredBytesAtStart();
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

    @Override
    void admitted(RdmaConnection connection) {
        if (admission != null) {
            admission.hold(connection.admittedBytes());
        }
    }

    /** A child of a server that bounds its peers' addresses holds more only within its address's cap. */
    @Override
    MemoryAdmission memoryAdmission() {
        return admission != null ? this : MemoryAdmission.UNBOUNDED;
    }

    @Override
    public boolean mayHoldMore(long bytes) {
        return admission.holdMore(bytes, addressCap());
    }

    @Override
    public void heldLess(long bytes) {
        admission.holdLess(bytes);
    }

    private RdmaServerSocketChannelConfig serverConfig() {
        return ((RdmaServerSocketChannel) channel.parent()).config();
    }

    private long addressCap() {
        return serverConfig().getMaxRegisteredMemoryPerAddress();
    }

    @Override
    boolean answersHello() {
        return true;
    }

    @Override
    void setUpEvent(CmEvent event) {
        switch (event.type()) {
            case CmEvent.ADDR_ERROR:
            case CmEvent.ROUTE_ERROR:
            case CmEvent.UNREACHABLE:
            case CmEvent.REJECTED:
            case CmEvent.CONNECT_ERROR:
                lostAfterEstablished(event);
                break;
            default:
                // ESTABLISHED: the peer's HELLO, not the CM, makes the channel active.
                break;
        }
    }

    @Override
    void helloReceived() {
        cancelHelloTimeout();
        if (admission != null) {
            admission.setUpEnded();
            // Its share and ring: staging blocks come and go with its sends, bounded by SO_SNDBUF
            // and by the process-wide limit, not by the address's cap.
            admission.hold(channel.connection.admittedBytes());
        }
    }

    @Override
    void beginClose() {
        cancelHelloTimeout();
        if (admission != null) {
            admission.setUpEnded();
        }
    }

    @Override
    void closeFinished() {
        if (admission != null) {
            admission.release();
        }
    }

    private void cancelHelloTimeout() {
        if (helloTimeoutFuture != null) {
            helloTimeoutFuture.cancel(false);
            helloTimeoutFuture = null;
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
