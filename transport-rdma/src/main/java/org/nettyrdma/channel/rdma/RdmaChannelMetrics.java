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

import org.nettyrdma.channel.rdma.connection.ConnectionCounters;
import org.nettyrdma.channel.rdma.connection.RdmaConnection;

/**
 * What an {@link RdmaSocketChannel}'s connection did so far, as counted on its event loop: how the
 * bytes written travelled (Sends into the peer's receive slots, or RDMA Writes into its ring), how many
 * were copied into registered memory on the way, how often the peer's credit ran out, and what the
 * connection holds. Taken by {@link RdmaSocketChannel#metrics()}; an immutable snapshot, so one
 * instance never changes and two can be subtracted for a rate.
 *
 * <p>A channel carried by TCP ({@link RdmaChannelOption#TCP_FALLBACK}) says why in
 * {@link #fallbackReason()}, and counts nothing of RDMA.
 *
 * <p>Payload bytes only: the 16-byte message headers and control messages are counted apart. A
 * channel that was never connected reports zeros; a closed one reports its totals at close.
 */
public final class RdmaChannelMetrics {

    static final RdmaChannelMetrics NONE = new RdmaChannelMetrics(new ConnectionCounters(), 0, 0, 0);

    private final long sends;
    private final long sendBytes;
    private final long rdmaWrites;
    private final long rdmaWriteBytes;
    private final long copiedBytes;
    private final long controlMessages;
    private final long receivedSends;
    private final long receivedWrites;
    private final long receivedBytes;
    private final long receiveCopiedBytes;
    private final long creditStalls;
    private final long keepAliveProbes;
    private final long refusedReceives;
    private final long ringsOpened;
    private final long ringsClosed;
    private final long peerRingSize;
    private final long registeredBytes;
    private final long stagingBytes;
    private final int maxInlineData;
    private final RdmaFallbackReason fallbackReason;

    /** Returns what {@code connection} did so far; with {@code open} false, as a closed channel reports it. */
    static RdmaChannelMetrics of(RdmaConnection connection, boolean open) {
        return new RdmaChannelMetrics(connection.counters(), open ? connection.registeredBytes() : 0,
                open ? connection.stagingBytes() : 0, open ? connection.maxInlineData() : 0);
    }

    /** Returns the metrics of a channel carried by TCP for {@code reason}. */
    static RdmaChannelMetrics carriedByTcp(RdmaFallbackReason reason) {
        return new RdmaChannelMetrics(new ConnectionCounters(), 0, 0, 0, reason);
    }

    RdmaChannelMetrics(ConnectionCounters counters, long registeredBytes, long stagingBytes, int maxInlineData) {
        this(counters, registeredBytes, stagingBytes, maxInlineData, null);
    }

    private RdmaChannelMetrics(ConnectionCounters counters, long registeredBytes, long stagingBytes, int maxInlineData,
                               RdmaFallbackReason fallbackReason) {
        this.fallbackReason = fallbackReason;
        this.sends = counters.sends;
        this.sendBytes = counters.sendBytes;
        this.rdmaWrites = counters.rdmaWrites;
        this.rdmaWriteBytes = counters.rdmaWriteBytes;
        this.copiedBytes = counters.copiedBytes;
        this.controlMessages = counters.controlMessages;
        this.receivedSends = counters.receivedSends;
        this.receivedWrites = counters.receivedWrites;
        this.receivedBytes = counters.receivedBytes;
        this.receiveCopiedBytes = counters.receiveCopiedBytes;
        this.creditStalls = counters.creditStalls;
        this.keepAliveProbes = counters.keepAliveProbes;
        this.refusedReceives = counters.refusedReceives;
        this.ringsOpened = counters.ringsOpened;
        this.ringsClosed = counters.ringsClosed;
        this.peerRingSize = counters.peerRingSize;
        this.registeredBytes = registeredBytes;
        this.stagingBytes = stagingBytes;
        this.maxInlineData = maxInlineData;
    }

    /**
     * Returns why the channel is carried by TCP, or {@code null} if RDMA carries it (or it never
     * connected): as {@link RdmaSocketChannel#fallbackReason()}.
     */
    public RdmaFallbackReason fallbackReason() {
        return fallbackReason;
    }

    /** Returns the data Sends posted: small writes, several of one flush coalesced into each. */
    public long sends() {
        return sends;
    }

    /** Returns the payload bytes posted in data Sends. */
    public long sendBytes() {
        return sendBytes;
    }

    /** Returns the RDMA Writes with immediate posted into the peer's ring: the large writes. */
    public long rdmaWrites() {
        return rdmaWrites;
    }

    /** Returns the payload bytes posted as RDMA Writes. */
    public long rdmaWriteBytes() {
        return rdmaWriteBytes;
    }

    /**
     * Returns the bytes copied into registered staging blocks (or, inline, into the work request) before
     * they were sent: the payload of Sends and RDMA Writes of buffers that are not registered memory
     * (heap buffers, buffers of other allocators, file regions), and of small writes coalesced into one
     * Send. Buffers from {@link RdmaByteBufAllocator} are read by the device where they are, by an RDMA
     * Write or by a Send of at least 4 KiB of them (or a whole slot), and are not counted.
     */
    public long copiedBytes() {
        return copiedBytes;
    }

    /** Returns the messages without payload posted: {@code HELLO}, {@code CREDIT}, the ends of output. */
    public long controlMessages() {
        return controlMessages;
    }

    /** Returns the data Sends received from the peer. */
    public long receivedSends() {
        return receivedSends;
    }

    /** Returns the peer's RDMA Writes that landed in this side's ring. */
    public long receivedWrites() {
        return receivedWrites;
    }

    /** Returns the payload bytes received, by Send and by RDMA Write. */
    public long receivedBytes() {
        return receivedBytes;
    }

    /**
     * Returns the received bytes copied out of receive memory into buffers of the channel's allocator
     * before the pipeline read them. A Send's payload goes up in its receive slot instead, while the
     * pipeline holds fewer than half the peer's share of slots (docs/decisions.md#lend-received-slots);
     * payloads beyond that bound and ring data not read in place
     * ({@link RdmaChannelOption#RECEIVE_IN_PLACE}) are copied and counted here.
     */
    public long receiveCopiedBytes() {
        return receiveCopiedBytes;
    }

    /**
     * Returns how many flushes stopped with bytes left because the peer had no receive slot or ring
     * space to give: a reader slower than this writer, or one with {@code AUTO_READ} off.
     */
    public long creditStalls() {
        return creditStalls;
    }

    /** Returns the keep-alive probes posted ({@code SO_KEEPALIVE}). */
    public long keepAliveProbes() {
        return keepAliveProbes;
    }

    /**
     * Returns the rings this side opened to its peer: one when the peer first had writes larger than
     * a receive slot, and one more each time it grew or came back after going idle (docs/protocol.md).
     * Always 0 on a device whose memory windows do not confine a peer, rxe among them.
     */
    public long ringsOpened() {
        return ringsOpened;
    }

    /** Returns the rings this side opened to its peer and closed again once the peer released them. */
    public long ringsClosed() {
        return ringsClosed;
    }

    /**
     * Returns the size of the ring the peer has open to this side now, 0 if none: this side's writes
     * larger than a receive slot go into it by RDMA Write; without one they go by Send, and the first
     * asks the peer to open one.
     */
    public long peerRingSize() {
        return peerRingSize;
    }

    /**
     * Returns the receives of the event loop's shared receive queue that the peer's Sends took after
     * the connection failed (a protocol violation, a verb outside the protocol), before its queue pair
     * was in the error state: given back untaken, they are what a peer that floods cost the other
     * connections of the loop (docs/security.md).
     */
    public long refusedReceives() {
        return refusedReceives;
    }

    /**
     * Returns the registered memory this connection held when the metrics were taken: its receive
     * slots, its ring if one is open, and the blocks of {@link RdmaByteBufAllocator}'s pool its sends in flight were
     * staged in (with the emptied blocks of 64 KiB it keeps as spares for one to two seconds after the
     * last send, then none; at most {@code SO_SNDBUF} in all); 0 once the connection is
     * gone (a closed channel keeps it until its last sends completed, at most 2 s). The pool's slabs,
     * staging blocks included, are registered once for the process and counted by
     * {@link RdmaByteBufAllocator#registeredBytes()}; other buffers of the allocator are not counted here.
     */
    public long registeredBytes() {
        return registeredBytes;
    }

    /**
     * Returns the part of {@link #registeredBytes()} in staging blocks: the copies of its sends in
     * flight, and the emptied blocks it keeps as spares for one to two seconds after its last send.
     * The rest is what the connection holds to receive, which its source address's share counts
     * ({@link RdmaChannelOption#MAX_REGISTERED_MEMORY_PER_ADDRESS}).
     */
    public long stagingBytes() {
        return stagingBytes;
    }

    /**
     * Returns the largest Send, header included, posted inline: {@link RdmaChannelOption#MAX_INLINE_DATA}
     * as far as the device granted it; 0 before the queue pair exists, after it is gone, or when the
     * device takes no inline data.
     */
    public int maxInlineData() {
        return maxInlineData;
    }

    @Override
    public String toString() {
        if (fallbackReason != null) {
            return "RdmaChannelMetrics(carried by TCP: " + fallbackReason + ')';
        }
        return "RdmaChannelMetrics(sends: " + sends + ", " + sendBytes + " B; RDMA Writes: " + rdmaWrites + ", "
                + rdmaWriteBytes + " B; copied: " + copiedBytes + " B; control messages: " + controlMessages
                + "; received: " + receivedSends + " Sends, " + receivedWrites + " Writes, " + receivedBytes
                + " B, copied: " + receiveCopiedBytes + " B, refused: " + refusedReceives + "; credit stalls: " + creditStalls + "; keep-alive probes: " + keepAliveProbes
                + "; rings opened: " + ringsOpened + ", closed: " + ringsClosed + ", the peer's: " + peerRingSize
                + " B; registered: " + registeredBytes + " B, staging " + stagingBytes + " B; max inline: " + maxInlineData + " B)";
    }
}
