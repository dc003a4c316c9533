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
package org.nettyrdma.channel.rdma.verbs;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import com.ibm.disni.verbs.IbvWC;
import org.nettyrdma.channel.rdma.internal.RdmaNative;

/**
 * The completion queue of a {@link RawRdmaClient}, which its sends, its Writes and its receives share:
 * every poll sorts what came into successful receives (in order), flushed receives (counted: the queue
 * pair went to the error state under them), failed receives, and the completions of sends and Writes by
 * work request id, so that waiting for one never loses another.
 */
final class RawCompletions {

    /** Sends and Writes in flight at most during a flood: the CQ also holds every receive's completion. */
    static final int WINDOW = VerbsEndpoint.QUEUE_DEPTH / 2;
    /** {@code IBV_QPS_ERR}. */
    static final int QP_STATE_ERR = 6;
    /** Receive work requests carry this bit in their id; sends and Writes count up from 1. */
    private static final long RECEIVE_TAG = 1L << 40;

    /** A receive that completed successfully: its slot and the length of the message in it. */
    record Received(int slot, int length) {
    }

    private final VerbsEndpoint endpoint;
    private final ArrayDeque<Received> receives = new ArrayDeque<>();
    private final Map<Long, RawRdmaClient.Completion> sends = new HashMap<>();
    private final List<String> failedReceives = new ArrayList<>();
    private int flushedReceives;

    RawCompletions(VerbsEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    /** Returns the work request id of the receive into {@code slot}. */
    static long receiveId(int slot) {
        return RECEIVE_TAG | slot;
    }

    /** Polls the CQ once and sorts what it returned; returns {@code true} if it returned anything. */
    boolean pollOnce() throws Exception {
        List<IbvWC> polled = endpoint.pollOnce();
        for (IbvWC wc : polled) {
            long wrId = wc.getWr_id();
            int status = wc.getStatus();
            if ((wrId & RECEIVE_TAG) == 0) {
                sends.put(wrId, new RawRdmaClient.Completion(wrId, WcStatus.name(status)));
            } else if (status == WcStatus.SUCCESS.ordinal()) {
                receives.add(new Received((int) (wrId & ~RECEIVE_TAG), wc.getByte_len()));
            } else if (status == WcStatus.WR_FLUSH_ERR.ordinal()) {
                flushedReceives++;
            } else {
                failedReceives.add(WcStatus.name(status));
            }
        }
        return !polled.isEmpty();
    }

    /** Waits for the completion of the send or Write {@code wrId}, whatever its status. */
    RawRdmaClient.Completion awaitSend(long wrId, long seconds) throws Exception {
        await(() -> sends.containsKey(wrId), seconds, () -> "no completion of work request " + wrId + " ("
                + stateOfTheQueues() + ")");
        return sends.remove(wrId);
    }

    /**
     * Describes what the queues hold now, for a wait that timed out: the queue pair's state, the
     * completions of sends and Writes not yet taken, and the receives by outcome.
     */
    private String stateOfTheQueues() {
        String state;
        try {
            state = String.valueOf(RdmaNative.queryQpState(ConnectedPair.handle(endpoint.qp)));
        } catch (Exception e) {
            state = "unknown: " + e;
        }
        return "queue pair state " + state + "; completions not taken " + sends.values() + "; receives "
                + receives.size() + " unread, " + flushedReceives + " flushed, failed " + failedReceives;
    }

    /** Waits for the next successful receive; a receive that failed otherwise than flushed fails the test. */
    Received awaitReceive(long seconds) throws Exception {
        await(() -> !receives.isEmpty() || !failedReceives.isEmpty(), seconds, () -> "no message from the server ("
                + flushedReceives + " receives flushed)");
        if (!failedReceives.isEmpty()) {
            throw new AssertionError("a receive failed: " + failedReceives);
        }
        return receives.poll();
    }

    /** Returns the receives that came back flushed so far. */
    int flushedReceives() {
        return flushedReceives;
    }

    private void await(BooleanSupplier condition, long seconds, Supplier<String> what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            if (!pollOnce()) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError(what.get() + " within " + seconds + " s");
                }
                Thread.sleep(1);
            }
        }
    }
}
