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
package org.nettyrdma.channel.rdma.connection;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.RdmaProtocolException;
import org.nettyrdma.channel.rdma.memory.RegisteredBuffer;

/**
 * The verbs work and the messages of the rings a connection opens to its peer on request
 * (docs/protocol.md, "Rings"), where {@link RingLifecycle} decides: registers a ring and binds a
 * window over it to the queue pair when the peer asks, declines when the connection may not hold
 * that much more, closes it when the peer's Writes stop or it should grow, and, when the peer
 * released it, frees the window before the ring is deregistered. Each open and close is announced in
 * a {@code RING}, posted as soon as a slot at the peer allows.
 *
 * <p>Used on the channel's event loop only.
 */
final class RingOwner {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RingOwner.class);

    /** What the owner needs of its connection. */
    interface Connection {
        /** The idle ring was closed: the {@code RING} that says so is owed, to be posted the usual way. */
        void ringClosedWhileIdle();
    }

    private final Connection connection;
    private final MemoryAdmission admission;
    private final QueuePairResources resources;
    private final RdmaSender sender;
    private final RdmaReceiver receiver;
    private final EventLoop eventLoop;
    private final int idleMillis;
    /** Looks whether the open ring went without Writes; {@code null} when none is due. */
    private Future<?> idleCheck;
    /** The {@code RING} to post once a slot allows: it opens or closes ring {@link #announcedGeneration}. */
    private boolean announcementOwed;
    private int announcedGeneration;
    private int announcedSize;
    private long announcedAddress;
    private int announcedKey;
    private boolean closed;

    /** Creates the owner of the rings {@code receiver} keeps, opened by {@code resources}' verbs, announced by {@code sender}. */
    RingOwner(Connection connection, MemoryAdmission admission, QueuePairResources resources, RdmaSender sender, RdmaReceiver receiver,
              EventLoop eventLoop, int idleMillis) {
        this.connection = connection;
        this.admission = admission;
        this.resources = resources;
        this.sender = sender;
        this.receiver = receiver;
        this.eventLoop = eventLoop;
        this.idleMillis = idleMillis;
    }

    private RingLifecycle rings() {
        return receiver.rings();
    }

    /**
     * Takes the peer's {@code RING_REQUEST} naming the newest ring it knows of.
     *
     * @throws RdmaProtocolException if this side offers no ring, or the request names one never opened
     */
    void onRequest(int knownGeneration) throws RdmaProtocolException {
        if (rings().onRequest(knownGeneration) == RingLifecycle.GROW) {
            close();
        }
        // A ring wanted opens in serve(), once it may.
    }

    /**
     * Takes the peer's {@code RING_RELEASED}: the window goes before the ring's registration. Regions
     * of it still queued or held keep its memory; a ring wanted (a larger one, if it closed to grow)
     * opens once they are let go of ({@link RingLifecycle#openDue()}).
     *
     * @throws RdmaProtocolException if that ring was not closed to the peer
     */
    void onReleased(int generation) throws RdmaProtocolException {
        OfferedRing released = receiver.ringReleased(generation);
        resources.revokeRing();
        receiver.freeRing(released);
        admission.heldLess(released.size());
    }

    /** Closes the open ring to the peer, to reopen it larger once the peer released it. */
    void growthDue() {
        close();
    }

    /**
     * Does the work that waited: opens the ring wanted once it may and the send queue has room for
     * its window's bind, and posts the {@code RING} owed once a slot at the peer allows. Called after
     * every receive, flush and read, so a ring that waited for the last one's regions opens as soon
     * as they are let go of.
     */
    void serve() throws IOException {
        if (closed) {
            return;
        }
        if (!announcementOwed && rings().openDue() && sender.hasRoomOutsideChain()) {
            open(rings().nextSize());
        }
        if (announcementOwed && sender.sendRing(announcedGeneration, announcedSize, announcedAddress, announcedKey)) {
            announcementOwed = false;
        }
    }

    /**
     * Registers a ring of {@code size} bytes, binds a window over it to the queue pair and owes the
     * peer the {@code RING} that carries the window's key; declines instead when the connection may
     * not hold that much more registered memory, and the peer goes on in Sends.
     */
    private void open(int size) throws IOException {
        RegisteredBuffer memory = null;
        if (admission.mayHoldMore(size)) {
            try {
                memory = resources.registerRing(size);
            } catch (IOException e) {
                admission.heldLess(size);
                logger.debug("qp {}: no ring of {} bytes for the peer: {}", resources.qpNum(), size, e.getMessage());
            }
        }
        if (memory == null) {
            rings().declined();
            announce(rings().generation(), 0, 0, 0);
            return;
        }
        OfferedRing ring = receiver.openRing(memory);
        int key = resources.bindRing(sender.chain().stamp(sender.nextSequence()), memory);
        sender.postedOutsideChain();
        announce(ring.generation(), size, memory.address(), key);
        scheduleIdleCheck();
    }

    /** Closes the open ring to the peer: it goes once the peer released it ({@code RING_RELEASED}). */
    private void close() {
        OfferedRing ring = receiver.closeRing();
        announce(ring.generation(), 0, 0, 0);
    }

    /** Owes the peer a {@code RING} with these fields, posted by {@link #serve()}. */
    private void announce(int generation, int size, long address, int key) {
        announcementOwed = true;
        announcedGeneration = generation;
        announcedSize = size;
        announcedAddress = address;
        announcedKey = key;
    }

    private void scheduleIdleCheck() {
        if (idleCheck != null || idleMillis == 0) {
            return;
        }
        idleCheck = eventLoop.schedule(this::idleCheckDue, idleMillis, TimeUnit.MILLISECONDS);
    }

    /** Closes the open ring if no Write came into it since the last look, else looks again later. */
    private void idleCheckDue() {
        idleCheck = null;
        if (closed || rings().open() == null) {
            return;
        }
        // A ring whose RING still waits for a slot is not idle: the peer has not heard of it yet, and
        // must not hear of its close first.
        if (!rings().idleSinceLastLook() || announcementOwed) {
            scheduleIdleCheck();
            return;
        }
        close();
        connection.ringClosedWhileIdle();
    }

    /** Stops: no ring opens or closes any more. The rings themselves go with the receiver. */
    void stop() {
        closed = true;
        if (idleCheck != null) {
            idleCheck.cancel(false);
            idleCheck = null;
        }
    }
}
