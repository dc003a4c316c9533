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
import java.net.SocketAddress;
import java.nio.channels.AlreadyConnectedException;

import io.netty.channel.Channel;
import io.netty.channel.ChannelPromise;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.connection.ConnectionEvents;
import org.nettyrdma.channel.rdma.connection.ConnectionSettings;
import org.nettyrdma.channel.rdma.connection.MemoryAdmission;
import org.nettyrdma.channel.rdma.connection.RdmaConnection;
import org.nettyrdma.channel.rdma.connection.RdmaReceiver;
import org.nettyrdma.channel.rdma.internal.DisniNative;
import org.nettyrdma.channel.rdma.internal.SockAddr;
import org.nettyrdma.channel.rdma.internal.CmEvent;
import org.nettyrdma.channel.rdma.loop.CompletionQueue;
import org.nettyrdma.channel.rdma.loop.SharedReceiveQueue;
import org.nettyrdma.channel.rdma.memory.ProtectionDomain;
import org.nettyrdma.channel.rdma.memory.RdmaDevice;

/**
 * How an {@link RdmaSocketChannel} gets its {@link RdmaConnection}, and the RDMA CM events of its id.
 * A channel that connects has a {@link ClientSetUp} (address and route resolution, the connect
 * timeout), one a server accepted an {@link AcceptedSetUp} (admission, the {@code HELLO} deadline,
 * eviction). Both open the connection the same way once the id has its device
 * ({@link #openConnection}), and both hand the events that concern the connected channel to it: a
 * disconnect, the removal of the device.
 *
 * <p>Threading: the channel's event loop only.
 */
abstract class ConnectionSetUp {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(ConnectionSetUp.class);

    final RdmaSocketChannel channel;
    /** Where an address is written for RDMA CM or read from it; one call at a time. */
    final SockAddr addressMemory = new SockAddr();

    ConnectionSetUp(RdmaSocketChannel channel) {
        this.channel = channel;
    }

    /** The channel is registered with its loop. */
    void registered() {
    }

    /**
     * Starts connecting to {@code remoteAddress}; the channel is open and {@code promise} uncancellable.
     * Only a channel that connects does: one a server accepted is connected already.
     */
    void connect(SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) throws Exception {
        throw new AlreadyConnectedException();
    }

    /** Returns {@code true} while a connect waits for its outcome. */
    boolean connectPending() {
        return false;
    }

    /** Returns {@code cause}, or a {@link java.net.ConnectException} that names the address it was connecting to. */
    Throwable annotate(Throwable cause) {
        return cause;
    }

    /** Fails what the channel is doing: the pending connect, or else the connection. */
    void fail(Throwable cause) {
        channel.streamUnsafe().connectionFailed(cause);
    }

    /**
     * The queue pair went to the error state without an error of its own: fails a pending connect and
     * returns {@code true}, or returns {@code false} for the connected channel to handle.
     */
    boolean connectLost() {
        return false;
    }

    /**
     * The channel's device ({@code null} if not known yet) is going away, and the channel is open:
     * returns {@code true} if the set-up dealt with it, {@code false} for the channel to fail.
     */
    boolean deviceRemoved(RdmaDevice device) {
        return false;
    }

    /** The peer's {@code HELLO} arrived: the set-up is over, and the channel is about to become active. */
    void helloReceived() {
    }

    /** The channel became active: returns the connect's promise for it to complete, if any. */
    ChannelPromise connected() {
        return null;
    }

    /** The channel began to close ({@link AbstractRdmaChannel#beginClose}): what the set-up waits for ends. */
    void beginClose() {
    }

    /** The channel is {@link RdmaChannelState#CLOSED}: the set-up gives back what it holds. */
    void closeFinished() {
    }

    /** Returns what bounds the registered memory the connection may hold beyond its admission. */
    MemoryAdmission memoryAdmission() {
        return MemoryAdmission.UNBOUNDED;
    }

    /** Checks the peer may have a connection made with {@code settings}, before anything is set up for it. */
    void admit(ConnectionSettings settings) throws IOException {
    }

    /** The connection was opened: it holds {@link RdmaConnection#admittedBytes()}. */
    void admitted(RdmaConnection connection) {
    }

    /** Returns {@code true} if this side's {@code HELLO} answers the peer's (the accepting side). */
    abstract boolean answersHello();

    /** Handles an RDMA CM event that belongs to the set-up: resolution, establishment, a failed connect. */
    abstract void setUpEvent(CmEvent event) throws Exception;

    /** Closes the channel, as a failure of its set-up does. */
    final void close() {
        Channel.Unsafe unsafe = channel.unsafe();
        unsafe.close(unsafe.voidPromise());
    }

    /** Handles an RDMA CM event of the channel's id; {@code event} is valid only during the call. */
    final void cmEvent(CmEvent event) {
        if (!channel.isOpen() && event.type() != CmEvent.DEVICE_REMOVAL) {
            // Closing, waiting for its work requests: what the peer does matters only if it is
            // gone, since it then acknowledges none of the sends still outstanding.
            if (event.type() == CmEvent.DISCONNECTED || event.type() == CmEvent.REJECTED
                    || event.type() == CmEvent.CONNECT_ERROR || event.type() == CmEvent.UNREACHABLE) {
                channel.drain.peerGone();
            }
            return;
        }
        try {
            switch (event.type()) {
                case CmEvent.DISCONNECTED:
                    // While connecting too: the server's HELLO may be in the completion queue,
                    // ahead of the flushes (connectionLost).
                    channel.peerDisconnected();
                    break;
                case CmEvent.DEVICE_REMOVAL:
                    RdmaDevice removed = channel.device();
                    channel.deviceRemoved(removed);
                    if (removed != null) {
                        // Every loop lets go of the device, so that the kernel can complete the removal.
                        removed.remove();
                    }
                    break;
                default:
                    setUpEvent(event);
                    break;
            }
        } catch (Throwable t) {
            fail(connectPending() ? annotate(t) : t);
        }
    }

    /**
     * A connection that was up (or accepted) failed at the CM. A peer that wrote, closed and destroyed
     * its id before its CM saw the connection established sends a REJ, which arrives as
     * {@code REJECTED}. The connection is gone, but what arrived before is the application's to read,
     * as after {@code DISCONNECTED}.
     */
    final void lostAfterEstablished(CmEvent event) {
        logger.debug("{}: {} after the connection was established", channel, CmEvent.name(event.type()));
        channel.peerDisconnected();
    }

    /**
     * Makes the channel's connection on its id, which resolution or the connect request gave a
     * device: the completion queue, the receive queue, the queue pair and its memory.
     */
    final void openConnection() throws IOException {
        long id = channel.id;
        long context = DisniNative.dispatcher()._getContext(id);
        if (context <= 0) {
            throw new IOException("the rdma_cm_id has no RDMA device");
        }
        InetSocketAddress source = readAddress(true);
        if (source == null) {
            throw new IOException("the rdma_cm_id has no source address");
        }
        RdmaDevice device = RdmaDevice.of(context, source.getAddress());
        ConnectionSettings settings = channel.config().connectionSettings();
        admit(settings);
        CompletionQueue cq = channel.loop.reserveCompletionQueue(device, settings.completionQueueEntries(device));
        SharedReceiveQueue srq;
        ProtectionDomain ownPd = null;
        try {
            if (settings.exposeMemory()) {
                // A key registered here works on this connection's queue pair alone (docs/one-sided.md).
                ownPd = ProtectionDomain.allocate(device);
            }
            if (settings.takesLoopQueue(device)) {
                srq = channel.loop.sharedReceiveQueue(device, settings.slotSize(), RdmaReceiver.INITIAL_SHARE);
            } else {
                // Its peer's Sends, within its credit or beyond it, take receives of this queue alone.
                srq = channel.loop.ownReceiveQueue(device, ownPd, settings.slotSize(),
                        SharedReceiveQueue.ownCapacity(settings.receiveSlots()), settings.receivesOnQueuePair(device));
            }
        } catch (IOException e) {
            if (ownPd != null) {
                ownPd.release();
            }
            cq.unreserve(settings.completionQueueEntries(device));
            throw e;
        }
        // The connection owns the domain's first hold from here, and frees it when closed.
        RdmaConnection connection = new RdmaConnection(channel.streamUnsafe(), channel.eventLoop(), cq, srq, id,
                channel.registration.id(), settings, answersHello(), ownPd, memoryAdmission(), RdmaByteBufAllocator.POOLED_MEMORY);
        channel.connection = connection;
        admitted(connection);
    }

    /** Returns the source ({@code true}) or destination address of the channel's id, or {@code null}. */
    final InetSocketAddress readAddress(boolean source) {
        int result = source ? DisniNative.dispatcher()._getSrcAddr(channel.id, addressMemory.address())
                : DisniNative.dispatcher()._getDstAddr(channel.id, addressMemory.address());
        return result == 0 ? addressMemory.read() : null;
    }
}
