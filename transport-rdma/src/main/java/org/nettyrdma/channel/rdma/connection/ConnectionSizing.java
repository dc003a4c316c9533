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

import org.nettyrdma.channel.rdma.RdmaSocketChannelConfig;
import org.nettyrdma.channel.rdma.loop.SharedReceiveQueue;
import org.nettyrdma.channel.rdma.memory.RdmaDevice;

/**
 * What a connection with a given {@link RdmaSocketChannelConfig} reserves on a device: its send queue
 * depth, its completion queue entries, the largest ring it opens, the registered bytes it holds at
 * start, and whether it has a receive queue of its own. Asked before a connection exists, to admit
 * it, and by the {@link RdmaConnection} it makes.
 */
public final class ConnectionSizing {

    private ConnectionSizing() {
    }

    /** Returns the send queue depth of a connection with {@code config} on {@code device}. */
    static int sendQueueDepth(RdmaSocketChannelConfig config, RdmaDevice device) {
        return Math.min(config.getSendQueueDepth(), device.maxQpWr());
    }

    /**
     * Returns the registered bytes a connection with {@code config} holds once both {@code HELLO}s are
     * out, idle, before its peer's share grows: its first slots of the shared receive queue. Growth
     * and rings ask again ({@link ConnectionEvents#mayHoldMore}); staging blocks come from the allocator's pool
     * while sends are in flight, at most {@code SO_SNDBUF}.
     */
    public static long registeredBytesAtStart(RdmaSocketChannelConfig config) {
        int slots = Math.min(RdmaReceiver.INITIAL_SHARE, config.getReceiveSlots());
        // A queue of its own registers whole regions: its first is the first share.
        return QueuePairResources.registeredBytes(hasOwnReceiveQueue(config)
                ? Math.max(slots, SharedReceiveQueue.ownRegionSlots(config.getReceiveSlots())) : slots,
                config.getSlotSize(), 0, 0);
    }

    /**
     * Returns the largest ring a connection with {@code config} opens on {@code device} when its peer
     * asks: {@code SO_RCVBUF}, or none where a window would not confine the peer ({@link RingPolicy}).
     */
    static int maxRingSize(RdmaSocketChannelConfig config, RdmaDevice device) {
        return RingPolicy.opensRing(device) ? config.getReceiveBufferSize() : 0;
    }

    /**
     * Returns the entries a connection with {@code config} reserves in its completion queue: its send
     * depth, and its largest share of receives, which complete there too. On a receive queue of its
     * own that is every receive the queue can hold posted, so its completions fit whatever its peer
     * sends; on the loop's shared queue, only while its peer keeps to its credit
     * (docs/decisions.md#completion-queue-bound).
     */
    public static int completionQueueEntries(RdmaSocketChannelConfig config, RdmaDevice device) {
        return sendQueueDepth(config, device) + SharedReceiveQueue.ownCapacity(config.getReceiveSlots());
    }

    /**
     * Returns {@code true} if a connection with {@code config} has a receive queue of its own: unless
     * it asked for its loop's shared one, and has no protection domain of its own.
     */
    public static boolean hasOwnReceiveQueue(RdmaSocketChannelConfig config) {
        return !config.isSharedReceiveQueue() || config.isExposeMemory();
    }
}
