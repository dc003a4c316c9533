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
import java.util.ArrayList;
import java.util.concurrent.Executor;

import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import org.nettyrdma.channel.rdma.RdmaReceiveQueueMetrics;
import org.nettyrdma.channel.rdma.internal.WorkRequests;
import org.nettyrdma.channel.rdma.memory.ProtectionDomain;
import org.nettyrdma.channel.rdma.memory.RdmaDevice;

/**
 * The shared receive queues of one event loop, one per device and slot size as a rule, by the id
 * their receives carry in the registration id's bits of a {@code wr_id}.
 *
 * <p>Used on its event loop only.
 */
final class SharedReceiveQueues {

    /**
     * The receives one queue holds at most, and no more than the entries of one of the loop's
     * completion queues, which its queue pairs' receives complete into with their sends
     * (docs/decisions.md#completion-queue-bound).
     */
    private static final int RECEIVES_PER_QUEUE = 1 << 16;

    private final IntObjectMap<SharedReceiveQueue> queues = new IntObjectHashMap<>();
    /** The loop's queues as of the last open or close: for {@link #metrics()} on any thread. */
    private volatile SharedReceiveQueue[] snapshot = new SharedReceiveQueue[0];
    private final CompletionQueuePool completionQueues;
    private final Executor executor;
    private int nextId = 1;

    /**
     * Creates the book of a loop whose {@code completionQueues} hold its queue pairs' completions (a
     * shared queue posts no more receives than one of them has entries), and which handles its queues'
     * events on {@code executor}.
     */
    SharedReceiveQueues(CompletionQueuePool completionQueues, Executor executor) {
        this.completionQueues = completionQueues;
        this.executor = executor;
    }

    /**
     * Returns the receives of the loop's queues, shared and connections' own, summed: exact on the
     * loop, possibly lagging on another thread, which reads the loop's counts without a lock.
     */
    RdmaReceiveQueueMetrics metrics() {
        int reserved = 0;
        int target = 0;
        int posted = 0;
        int held = 0;
        for (SharedReceiveQueue srq : snapshot) {
            reserved += srq.reserved();
            target += srq.target();
            posted += srq.posted();
            held += srq.held();
        }
        return new RdmaReceiveQueueMetrics(reserved, target, posted, held);
    }

    /**
     * Returns a queue on {@code device} for slots of {@code slotSize} bytes with room for
     * {@code slots} more reserved, opening one if none has.
     */
    SharedReceiveQueue withRoom(RdmaDevice device, int slotSize, int slots) throws IOException {
        for (SharedReceiveQueue srq : queues.values()) {
            if (srq.device() == device && !srq.isOwn() && srq.slotSize() == slotSize && srq.hasRoom(slots)) {
                return srq;
            }
        }
        int capacity = Math.max(SharedReceiveQueue.CHUNK_SLOTS,
                Math.min(RECEIVES_PER_QUEUE, completionQueues.entries()));
        return open(device, false, false, null, slotSize, SharedReceiveQueue.capacityOn(device, capacity));
    }

    /**
     * Opens a queue for one connection alone, in {@code pd}, the connection's protection domain, or
     * in the device's if {@code null}, with room for {@code capacity} receives: destroyed when its
     * queue pair is. With {@code onQueuePair} it is that queue pair's own receive queue rather than
     * an {@code ibv_srq}.
     */
    SharedReceiveQueue own(RdmaDevice device, ProtectionDomain pd, int slotSize, int capacity, boolean onQueuePair)
            throws IOException {
        // Its capacity is its peer's largest share, not rounded to whole regions: the slots of its
        // last region past the capacity are never posted.
        return open(device, true, onQueuePair, pd, slotSize, capacity);
    }

    private SharedReceiveQueue open(RdmaDevice device, boolean own, boolean onQueuePair, ProtectionDomain pd,
                                    int slotSize, int capacity) throws IOException {
        if (queues.size() == WorkRequests.MAX_OWNER) {
            throw new IOException("an event loop holds at most " + WorkRequests.MAX_OWNER + " shared receive queues");
        }
        // Ids go round before one is used again: completions of a destroyed queue still in a
        // completion queue name no other queue.
        while (queues.containsKey(nextId)) {
            advance();
        }
        int id = nextId;
        advance();
        // Every queue pair's receives complete into its connection's completion queue, with its
        // sends: a queue pair's completions stay in order, which the disconnect relies on
        // (docs/decisions.md#disconnect-by-flush).
        SharedReceiveQueue srq = new SharedReceiveQueue(device, own, onQueuePair, pd, slotSize, id, capacity,
                this::destroy);
        queues.put(id, srq);
        queuesChanged();
        if (!own) {
            // A connection's own queue holds only what its peer was credited: no limit to watch.
            srq.watchEvents(executor);
        }
        return srq;
    }

    private void queuesChanged() {
        snapshot = queues.values().toArray(new SharedReceiveQueue[0]);
    }

    private void advance() {
        nextId = nextId == WorkRequests.MAX_OWNER ? 1 : nextId + 1;
    }

    /** Destroys {@code srq}, which no queue pair and no connection uses any more. */
    private void destroy(SharedReceiveQueue srq) {
        queues.values().remove(srq);
        queuesChanged();
        srq.close();
    }

    /** Returns the queue whose receives carry {@code id}, or {@code null}. */
    SharedReceiveQueue get(int id) {
        return queues.get(id);
    }

    /** Closes the queues on {@code device}, which is going away: the queue pairs on them are gone. */
    void closeOn(RdmaDevice device) {
        for (SharedReceiveQueue srq : new ArrayList<>(queues.values())) {
            if (srq.device() == device) {
                queues.values().remove(srq);
                srq.close();
            }
        }
        queuesChanged();
    }

    /** Closes every queue: the queue pairs on them are destroyed, no device writes into their slots. */
    void close() {
        for (SharedReceiveQueue srq : queues.values()) {
            srq.close();
        }
        queues.clear();
        queuesChanged();
    }
}
