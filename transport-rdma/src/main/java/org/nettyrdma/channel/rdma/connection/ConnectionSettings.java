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

import org.nettyrdma.channel.rdma.loop.SharedReceiveQueue;
import org.nettyrdma.channel.rdma.memory.RdmaDevice;

/**
 * What a connection is made with: the channel's options as they stood when its set-up began, taken
 * once so that the admission of a connection and the connection itself size the same thing, and
 * so that the connection's parts never ask the channel's configuration back. Says, from them, what
 * the connection reserves on a device: its send queue depth, its completion queue entries, the
 * largest ring it opens, the registered bytes it holds at start, and whether it has a receive queue
 * of its own.
 *
 * @param receiveSlots         {@code RdmaChannelOption.RECEIVE_SLOTS}: the most slots the peer is granted
 * @param slotSize             {@code RdmaChannelOption.SLOT_SIZE}: the bytes of one receive slot
 * @param sendQueueDepth       {@code RdmaChannelOption.SEND_QUEUE_DEPTH}, before the device's bound
 * @param maxInlineData        {@code RdmaChannelOption.MAX_INLINE_DATA}
 * @param sendBufferSize       {@code SO_SNDBUF}: the most registered memory sends stage in
 * @param receiveBufferSize    {@code SO_RCVBUF}: the largest ring the peer may be offered
 * @param ringIdleMillis       {@code RdmaChannelOption.RING_IDLE_MILLIS}
 * @param creditTimeoutMillis  {@code RdmaChannelOption.CREDIT_TIMEOUT_MILLIS}, 0 for no bound
 * @param receiveInPlace       {@code RdmaChannelOption.RECEIVE_IN_PLACE}
 * @param sharedReceiveQueue   {@code RdmaChannelOption.SHARED_RECEIVE_QUEUE}
 * @param exposeMemory         {@code RdmaChannelOption.EXPOSE_MEMORY}
 */
public record ConnectionSettings(int receiveSlots, int slotSize, int sendQueueDepth, int maxInlineData,
                                 int sendBufferSize, int receiveBufferSize, int ringIdleMillis,
                                 int creditTimeoutMillis, boolean receiveInPlace, boolean sharedReceiveQueue,
                                 boolean exposeMemory) {

    /** Returns the send queue depth of the connection on {@code device}. */
    int sendQueueDepth(RdmaDevice device) {
        return Math.min(sendQueueDepth, device.maxQpWr());
    }

    /**
     * Returns the registered bytes the connection holds once both {@code HELLO}s are out, idle, before
     * its peer's share grows: its first slots of the shared receive queue. Growth and rings ask again
     * ({@link MemoryAdmission}); staging blocks come from the allocator's pool while sends
     * are in flight, at most {@code SO_SNDBUF}.
     */
    public long registeredBytesAtStart() {
        int slots = Math.min(RdmaReceiver.INITIAL_SHARE, receiveSlots);
        // A queue of its own registers whole regions: its first is the first share.
        return QueuePairResources.registeredBytes(hasOwnReceiveQueue()
                ? Math.max(slots, SharedReceiveQueue.ownRegionSlots(receiveSlots)) : slots, slotSize, 0, 0);
    }

    /**
     * Returns the largest ring the connection opens on {@code device} when its peer asks:
     * {@code SO_RCVBUF}, or none where a window would not confine the peer ({@link RingPolicy}).
     */
    int maxRingSize(RdmaDevice device) {
        return RingPolicy.opensRing(device) ? receiveBufferSize : 0;
    }

    /**
     * Returns the entries the connection reserves in its completion queue: its send depth, and its
     * largest share of receives, which complete there too. On a receive queue of its own that is every
     * receive the queue can hold posted, so its completions fit whatever its peer sends; on the loop's
     * shared queue, only while its peer keeps to its credit (docs/decisions.md#completion-queue-bound).
     */
    public int completionQueueEntries(RdmaDevice device) {
        return sendQueueDepth(device) + SharedReceiveQueue.ownCapacity(receiveSlots);
    }

    /**
     * Returns {@code true} if the connection has a receive queue of its own: unless it asked for its
     * loop's shared one, has no protection domain of its own, and shared receive queues are not
     * turned off ({@link ReceiveQueuePolicy}). A device without them gives it one of its own as well
     * ({@link #takesLoopQueue}).
     */
    public boolean hasOwnReceiveQueue() {
        return !sharedReceiveQueue || exposeMemory || !ReceiveQueuePolicy.allowed();
    }

    /**
     * Returns {@code true} if the connection takes its receives from its loop's shared receive queue on
     * {@code device}: it has no queue of its own, and the device has shared receive queues.
     */
    public boolean takesLoopQueue(RdmaDevice device) {
        return ReceiveQueuePolicy.takesLoopQueue(sharedReceiveQueue && !exposeMemory, device);
    }

    /**
     * Returns {@code true} if the connection's own receive queue on {@code device} is its queue pair's
     * rather than a shared receive queue only its queue pair uses: where shared receive queues are not
     * to be had ({@link ReceiveQueuePolicy#sharedQueues}).
     */
    public boolean receivesOnQueuePair(RdmaDevice device) {
        return !ReceiveQueuePolicy.sharedQueues(device);
    }
}
