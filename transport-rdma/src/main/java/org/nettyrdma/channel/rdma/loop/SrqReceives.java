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

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.internal.WorkRequests;
import org.nettyrdma.channel.rdma.memory.RdmaDevice;

/**
 * The receive work requests of a shared receive queue, as its book of slots ({@link SharedSlots})
 * asks for them: a receive names the queue and its slot in its {@code wr_id}
 * ({@link SharedReceiveQueue#slotOf}) and points into the slot's memory region ({@link SlotRegions}),
 * which is registered and deregistered here when the book grows and shrinks. Receives gather in a
 * chain of {@value #CHAIN} and reach the device with one {@code ibv_post_srq_recv}: when the queue
 * {@linkplain #post() posts}, or when the chain is full.
 *
 * <p>On a device without shared receive queues a connection's queue is its queue pair's own
 * receive queue instead ({@code srq} 0): the chain goes to {@code ibv_post_recv} on the queue pair
 * once it exists ({@link #queuePairCreated}), and is dropped once the queue pair failed or is going
 * ({@link #stopPosting}): a receive posted to a queue pair in the error state comes back flushed at
 * once, and a destroyed one takes none.
 *
 * <p>Used on the loop's thread only.
 */
final class SrqReceives implements SharedSlots.Chunks {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(SrqReceives.class);

    private static final int CHAIN = 32;

    private final WorkRequests chain = WorkRequests.receives(CHAIN);
    private final RdmaDevice device;
    private final long srq;
    private final SlotRegions regions;
    private final int slotSize;
    /** The {@code ibv_qp*} the receives go to when {@code srq} is 0; 0 before it exists and after it stopped. */
    private long qp;
    private boolean stopped;
    private boolean closed;

    /**
     * Creates the receives of {@code srq}, an {@code ibv_srq*} of {@code device} (0: of the queue
     * pair {@link #queuePairCreated} names), into slots of {@code slotSize} bytes in {@code regions};
     * their completions carry {@code queueId}.
     */
    SrqReceives(RdmaDevice device, long srq, int queueId, SlotRegions regions, int slotSize) {
        this.device = device;
        this.srq = srq;
        this.regions = regions;
        this.slotSize = slotSize;
        chain.claim(queueId);
    }

    @Override
    public void register(int region) throws IOException {
        regions.register(region);
    }

    @Override
    public void deregister(int region) {
        regions.deregister(region);
    }

    @Override
    public void post(int slot) {
        if (chain.isFull()) {
            postOrWarn();
        }
        chain.addReceive(SharedReceiveQueue.SHARED_TAG | SharedReceiveQueue.RECEIVE_TAG | slot,
                regions.addressOf(slot), slotSize, regions.lkeyOf(slot));
    }

    /** Makes the receives of a queue without {@code ibv_srq} go to {@code qp}, its one queue pair. */
    void queuePairCreated(long qp) {
        this.qp = qp;
    }

    /** The queue pair the receives went to failed or is being destroyed: nothing is posted to it any more. */
    void stopPosting() {
        qp = 0;
        stopped = true;
    }

    /** Posts the receives added since the last post; nothing once closed, or once the queue pair went. */
    void post() throws IOException {
        if (closed) {
            return;
        }
        if (srq != 0) {
            chain.postShared(srq);
        } else if (qp != 0) {
            chain.post(qp);
        } else if (stopped) {
            // The queue goes with its queue pair; the slots stay the book's until then.
            chain.clear();
        } else {
            throw new IllegalStateException("receives posted to a queue pair's receive queue before the queue pair exists");
        }
    }

    /** Posts as {@link #post()} does, where no caller could act on a failure. */
    void postOrWarn() {
        try {
            post();
        } catch (IOException e) {
            // Only a broken device refuses a post; its connections fail with their own completions.
            logger.warn("posting to the shared receive queue of {} failed", device, e);
        }
    }

    /** Drops the receives not posted yet and frees the chain: the queue is destroyed. */
    void close() {
        closed = true;
        chain.close();
    }
}
