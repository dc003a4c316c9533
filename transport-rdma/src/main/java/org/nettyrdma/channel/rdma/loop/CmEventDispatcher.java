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
package org.nettyrdma.channel.rdma.loop;

import java.io.IOException;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;

import com.ibm.disni.verbs.impl.NativeDispatcher;
import io.netty.channel.IoEvent;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.unix.FileDescriptor;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.internal.CmEvent;
import org.nettyrdma.channel.rdma.internal.DisniNative;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.channel.rdma.protocol.RejectReason;

/**
 * The RDMA CM event channel of one event loop: every {@code rdma_cm_id} of the loop's channels lives
 * on it, and its fd is watched by the loop's epoll. Events are read without blocking and handed to the
 * channel registered for their id (a connect request to the one of its listening id). The ids have no
 * room for the registration (DiSNI creates them without a context), so this channel keeps the map;
 * CM events are few, and the map lets an id move to another loop's channel with its new owner.
 *
 * <p>A wake-up reads at most {@value #EVENTS_PER_WAKEUP} events: the fd is watched level-triggered, so
 * the rest wait for the loop's next turn, and a peer that connects and disconnects in a loop gets the
 * event loop for no longer than that before its other connections are polled again. A disconnect
 * needs no poll of the loop's queues before it: the channel learns of it in order, from its own
 * flushed requests (docs/decisions.md#disconnect-by-flush). Only a device removal, which no peer
 * can cause, first drains the loop's completion queues, since the device takes them away.
 *
 * <p>Used on its event loop only.
 */
public final class CmEventDispatcher implements EpollIoHandle {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(CmEventDispatcher.class);

    /**
     * The RDMA CM events one wake-up reads. Each may set up or free a connection (a queue pair, its
     * memory registrations), which costs far more than a completion: milliseconds under emulation.
     * Four keep that between two polls of the loop's completion queues short, at the price of an
     * epoll look per four events.
     */
    static final int EVENTS_PER_WAKEUP = 4;

    private final NativeDispatcher verbs = DisniNative.dispatcher();
    private final long channel;
    private final FileDescriptor fd;
    private final ByteBuffer record = ByteBuffer.allocateDirect(RdmaNative.CM_EVENT_SIZE)
            .order(ByteOrder.nativeOrder());
    private final long recordAddress = RdmaNative.directBufferAddress(record);
    private final CmEvent event = new CmEvent(record);
    private final Map<Long, RdmaIoRegistration> owners = new HashMap<>();
    private final RdmaLoop loop;
    private final Runnable beforeDispatch;
    private boolean closed;

    /**
     * Creates the loop's event channel.
     *
     * @param loop the loop whose channels get the events
     * @param beforeDispatch runs before a device removal is routed (drains the loop's completion queues)
     */
    CmEventDispatcher(RdmaLoop loop, Runnable beforeDispatch) throws IOException {
        this.loop = loop;
        this.beforeDispatch = beforeDispatch;
        channel = verbs._createEventChannel();
        fd = new FileDescriptor(RdmaNative.eventChannelFd(channel));
    }

    /** Returns the {@code rdma_event_channel*}. */
    public long channel() {
        return channel;
    }

    /**
     * Creates an id on this channel in the TCP port space (reliable connected QPs), whose events go to
     * the channel of {@code owner}.
     */
    public long createId(RdmaIoRegistration owner) throws IOException {
        long id = verbs._createId(channel, (short) 0x106);
        owners.put(id, owner);
        return id;
    }

    /**
     * Moves an id from another loop's channel to this one ({@code rdma_migrate_id}) and hands its
     * events to the channel of {@code owner}: how an accepted connection follows its channel to the
     * child loop.
     */
    public void adopt(long id, CmEventDispatcher from, RdmaIoRegistration owner) throws IOException {
        if (from != this) {
            RdmaNative.migrateId(id, channel);
        }
        owners.put(id, owner);
    }

    /** Returns the registration whose channel owns {@code id}, or {@code null}. */
    RdmaIoRegistration registrationOf(long id) {
        return owners.get(id);
    }

    /** Stops handing an id's events on and destroys the id (its QP must be gone already). */
    public void destroyId(long id) {
        owners.remove(id);
        int result = verbs._destroyCmId(id);
        if (result != 0) {
            logger.debug("rdma_destroy_id returned {}", result);
        }
    }

    /**
     * Refuses the connect request of {@code id} with {@code reason} ({@link RejectReason}; 0 for none,
     * as a port without a listener refuses) and frees the id; the id must have no queue pair.
     */
    public static void rejectAndDestroy(long id, int reason) {
        reject(id, reason);
        int result = DisniNative.dispatcher()._destroyCmId(id);
        if (result != 0) {
            logger.debug("rdma_destroy_id returned {}", result);
        }
    }

    /** Refuses the connect request of {@code id} with {@code reason}, as {@link #rejectAndDestroy}, keeping the id. */
    public static void reject(long id, int reason) {
        ByteBuffer privateData = ByteBuffer.allocateDirect(RejectReason.SIZE);
        RejectReason.encode(privateData, reason);
        try {
            RdmaNative.reject(id, reason != 0 ? RdmaNative.directBufferAddress(privateData) : 0,
                    reason != 0 ? RejectReason.SIZE : 0);
        } catch (IOException e) {
            logger.debug("rejecting a connect request failed", e);
        } finally {
            // Only its address reached the native call: the buffer must outlive the call (docs/native.md).
            Reference.reachabilityFence(privateData);
        }
    }

    /** Returns the number of ids with an owner on this channel. */
    public int size() {
        return owners.size();
    }

    @Override
    public FileDescriptor fd() {
        return fd;
    }

    @Override
    public void handle(IoRegistration registration, IoEvent ioEvent) {
        for (int read = 0; read < EVENTS_PER_WAKEUP; read++) {
            int type;
            try {
                type = RdmaNative.pollCmEvent(channel, recordAddress);
            } catch (IOException e) {
                logger.warn("reading the RDMA CM event channel failed", e);
                return;
            }
            if (type < 0) {
                return;
            }
            if (type == CmEvent.DEVICE_REMOVAL) {
                beforeDispatch.run();
            }
            long routeBy = type == CmEvent.CONNECT_REQUEST ? event.listenId() : event.id();
            RdmaIoRegistration owner = owners.get(routeBy);
            if (logger.isDebugEnabled()) {
                logger.debug("{} for id 0x{}", event, Long.toHexString(routeBy));
            }
            if (owner != null) {
                loop.dispatchCmEvent(owner, event);
            } else if (type == CmEvent.CONNECT_REQUEST) {
                // The listener is gone; the child id is ours to refuse and free.
                rejectAndDestroy(event.id(), 0);
            } else {
                logger.debug("{} for an id without a channel", event);
            }
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        int result = verbs._destroyEventChannel(channel);
        if (result != 0) {
            logger.warn("rdma_destroy_event_channel returned {}", result);
        }
    }
}
