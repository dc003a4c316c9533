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

import org.nettyrdma.channel.rdma.loop.SharedReceiveQueue;
import org.nettyrdma.channel.rdma.memory.ConnectionBudget;
import org.nettyrdma.channel.rdma.memory.RegisteredBuffer;
import org.nettyrdma.channel.rdma.memory.RegisteredMemoryBudget;
import org.nettyrdma.channel.rdma.memory.RegisteredSlab;

/**
 * The registered memory of the whole process, as the transport counts it: what connections hold
 * (receive slots, rings, send buffers), what the allocator's pool has registered, and the limit both
 * share. Registered memory is pinned; a connection that would pass the limit fails with an
 * {@link java.io.IOException} that says so, and a server refuses the connect request with that
 * reason. The limit is the system property {@link #LIMIT_PROPERTY} (bytes, 1 GiB by default).
 * Closing connections give their memory back when their last work request comes back;
 * {@link #drainTimeouts()} counts those that held it until a bound instead. Beside the registered
 * memory, the connections open in the process ({@link #connections()}) have a limit of their own,
 * the system property {@link #CONNECTION_LIMIT_PROPERTY}, since each costs memory that is not
 * registered: its queue pair and its objects.
 *
 * <p>An immutable snapshot taken by {@link #snapshot()}; the counts are process-wide and may move
 * while it is taken.
 */
public final class RdmaMemoryMetrics {

    /**
     * The system property that sets the limit on registered memory, in bytes:
     * {@value}. It is read once, when the transport first registers memory.
     */
    public static final String LIMIT_PROPERTY = RegisteredMemoryBudget.LIMIT_PROPERTY;

    /**
     * The system property that sets how many connections (queue pairs) the process holds at once,
     * clients and accepted ones together: {@value}, 16384 by default. It is read once, when the
     * transport first makes a connection.
     */
    public static final String CONNECTION_LIMIT_PROPERTY = ConnectionBudget.LIMIT_PROPERTY;

    private final long registeredBytes;
    private final long connectionBytes;
    private final int connectionRegions;
    private final long sharedReceiveBytes;
    private final int sharedReceiveRegions;
    private final long allocatorBytes;
    private final int allocatorRegions;
    private final long limitBytes;
    private final long refusedRegistrations;
    private final long failedDeregistrations;
    private final long drainTimeouts;
    private final long registrationsMade;
    private final long sharedReceiveLimitEvents;
    private final int connections;
    private final int connectionLimit;
    private final long refusedConnections;

    private RdmaMemoryMetrics() {
        registeredBytes = RegisteredMemoryBudget.used();
        // Shared slots are registered buffers too: a connection's are the rest. A chunk registered or
        // freed between the reads may be miscounted by one for that moment.
        long buffers = RegisteredBuffer.liveBytes();
        int regions = RegisteredBuffer.liveRegistrations();
        sharedReceiveBytes = SharedReceiveQueue.liveBytes();
        sharedReceiveRegions = SharedReceiveQueue.liveRegions();
        connectionBytes = Math.max(0, buffers - sharedReceiveBytes);
        connectionRegions = Math.max(0, regions - sharedReceiveRegions);
        allocatorBytes = RegisteredSlab.registeredBytes();
        allocatorRegions = RegisteredSlab.registrations();
        limitBytes = RegisteredMemoryBudget.limit();
        refusedRegistrations = RegisteredMemoryBudget.refused();
        failedDeregistrations = RegisteredMemoryBudget.failedDeregistrations();
        drainTimeouts = CloseDrain.timeouts();
        registrationsMade = RegisteredMemoryBudget.registrationsMade();
        sharedReceiveLimitEvents = SharedReceiveQueue.limitEvents();
        connections = ConnectionBudget.used();
        connectionLimit = ConnectionBudget.limit();
        refusedConnections = ConnectionBudget.refused();
    }

    /** Returns the counts now. */
    public static RdmaMemoryMetrics snapshot() {
        return new RdmaMemoryMetrics();
    }

    /** Returns the bytes registered now, counted against the limit. */
    public long registeredBytes() {
        return registeredBytes;
    }

    /**
     * Returns the bytes connections hold on their own: rings, and the staging blocks registered for
     * one connection when the pool had none. Their receive slots are in {@link #sharedReceiveBytes()},
     * and the blocks of the allocator's pool they stage sends in are in {@link #allocatorBytes()}.
     */
    public long connectionBytes() {
        return connectionBytes;
    }

    /**
     * Returns the memory regions connections hold. Each is an entry in the kernel's count of memory
     * regions ({@code rdma resource show}); one that stays after its connection closed is a leak.
     */
    public int connectionRegions() {
        return connectionRegions;
    }

    /**
     * Returns the bytes of the event loops' receive queues: the slots of each connection's own queue,
     * which go with the connection, and those of the queues a loop shares among the connections that
     * ask for one ({@link RdmaChannelOption#SHARED_RECEIVE_QUEUE}), kept until traffic cycles them.
     */
    public long sharedReceiveBytes() {
        return sharedReceiveBytes;
    }

    /**
     * Returns the memory regions of the receive queues: one per slot of a connection's own queue, one
     * per 32 slots of an event loop's shared one.
     */
    public int sharedReceiveRegions() {
        return sharedReceiveRegions;
    }

    /** Returns the bytes the allocator's pool has registered, once per device it sent from. */
    public long allocatorBytes() {
        return allocatorBytes;
    }

    /**
     * Returns the memory regions of the allocator's pool: one per slab and device, kept while the
     * pool keeps the slab.
     */
    public int allocatorRegions() {
        return allocatorRegions;
    }

    /** Returns the limit on registered memory, in bytes. */
    public long limitBytes() {
        return limitBytes;
    }

    /**
     * Returns how many registrations the limit refused: connections that failed or were refused, and
     * allocator slabs whose buffers were copied instead.
     */
    public long refusedRegistrations() {
        return refusedRegistrations;
    }

    /** Returns how many deregistrations the device refused; their memory stays pinned. */
    public long failedDeregistrations() {
        return failedDeregistrations;
    }

    /**
     * Returns how often a closing connection's drain ran out of time and held its memory until the
     * bound: the peer acknowledged not all of the last sends within it (a peer that stopped reading),
     * or, after the disconnect, the device's flushes did not all come back within it. A close that the
     * peer answers, or a peer that is gone, ends the drain on an event instead
     * (docs/decisions.md#bounded-drain).
     */
    public long drainTimeouts() {
        return drainTimeouts;
    }

    /**
     * Returns how many memory regions the transport has registered since the process started, of
     * every kind: receive chunks, rings, staging and landing blocks, allocator slabs, exposed buffers.
     * Each registration is a system call that pins and maps pages. While traffic flows steadily this
     * count should stand still, since the transport keeps emptied blocks as spares; a count that rises
     * with the messages means registration per message.
     */
    public long registrationsMade() {
        return registrationsMade;
    }

    /**
     * Returns how often a shared receive queue ran low ({@code IBV_EVENT_SRQ_LIMIT_REACHED}): fewer
     * receives left posted than the sixteenth it keeps beyond what its connections reserved, since a
     * peer sent beyond its credit. Each time, the queue's registered slots not posted are posted
     * (docs/decisions.md#completion-queue-bound).
     */
    public long sharedReceiveLimitEvents() {
        return sharedReceiveLimitEvents;
    }

    /** Returns the connections whose queue pair exists now, process-wide: clients and accepted ones. */
    public int connections() {
        return connections;
    }

    /** Returns how many connections the process may hold at once ({@link #CONNECTION_LIMIT_PROPERTY}). */
    public int connectionLimit() {
        return connectionLimit;
    }

    /** Returns how many connections the connection limit refused: connects that failed, and peers refused. */
    public long refusedConnections() {
        return refusedConnections;
    }

    @Override
    public String toString() {
        return "RdmaMemoryMetrics(registered " + registeredBytes + " of " + limitBytes + " bytes: connections "
                + connectionBytes + " in " + connectionRegions + " regions, shared receive queues "
                + sharedReceiveBytes + " in " + sharedReceiveRegions + " regions, allocator " + allocatorBytes + " in "
                + allocatorRegions + " regions; refused " + refusedRegistrations
                + ", failed deregistrations " + failedDeregistrations + ", drain timeouts " + drainTimeouts
                + ", registrations made " + registrationsMade + ", shared receive limit events "
                + sharedReceiveLimitEvents + "; connections " + connections + " of " + connectionLimit + ", refused "
                + refusedConnections + ')';
    }
}
