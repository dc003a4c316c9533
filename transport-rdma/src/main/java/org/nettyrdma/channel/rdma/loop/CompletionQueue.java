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
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicInteger;

import com.ibm.disni.verbs.impl.NativeDispatcher;
import io.netty.channel.IoEvent;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.unix.FileDescriptor;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.internal.DisniNative;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.channel.rdma.internal.WorkRequests;
import org.nettyrdma.channel.rdma.memory.AsyncEvents;
import org.nettyrdma.channel.rdma.memory.RdmaDevice;

/**
 * The completion queue of one event loop on one device, shared by all of that loop's queue pairs on
 * the device, with its completion channel watched by the loop's epoll.
 *
 * <p>Arming is one-shot and lazy (docs/decisions.md#lazy-cq-arming). When the channel's fd is readable: take every pending event (epoll
 * is level-triggered), ack, and poll; the CQ stays unarmed. The loop polls an unarmed CQ on each turn
 * and arms it only when it is about to wait ({@link #armAndPoll()}), polling once more after the arm,
 * since a completion that landed before it raises no event. So the completions that follow a
 * wake-up closely (the send completion of the reply its handlers just posted, or whatever a busy
 * polling loop finds) cost no event, no {@code read} of the channel and no re-arm: a system call
 * each. A wake-up polls until the CQ is empty or a budget is spent; then the CQ has a backlog, which
 * the loop polls on its next turn without waiting (RdmaIoHandler), after its other fds and tasks had
 * their turn. Completions are polled in batches into one direct array and handed, without
 * allocating, to the channel whose registration id their {@code wr_id} carries ({@link WorkRequests}).
 *
 * <p>Used on its event loop only.
 */
public final class CompletionQueue implements EpollIoHandle {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(CompletionQueue.class);
    private static final AtomicInteger LIVE = new AtomicInteger();

    /** {@code struct ibv_wc}: 48 bytes; the offsets DiSNI's own reader uses. */
    private static final int WC_SIZE = 48;
    private static final int WC_WR_ID = 0;
    private static final int WC_STATUS = 8;
    private static final int WC_OPCODE = 12;
    private static final int WC_BYTE_LEN = 20;
    private static final int WC_IMM_DATA = 24;
    private static final int WC_QP_NUM = 28;
    private static final int WC_FLAGS = 36;
    private static final int POLL_BATCH = 32;

    private final NativeDispatcher verbs = DisniNative.dispatcher();
    private final RdmaLoop loop;
    private final RdmaDevice device;
    private final LoopCounters counters;
    private final long completionChannel;
    private final long cq;
    private final int capacity;
    /**
     * Completions dispatched per wake-up before the loop gets to its other fds and tasks (CM events,
     * connects, timeouts): on a loop streaming for many connections the queue is seldom empty, and
     * draining it in one go would keep the loop from them (docs/decisions.md#completion-budget).
     */
    private final int pollBudget;
    private final FileDescriptor fd;
    private final ByteBuffer completions = ByteBuffer.allocateDirect(POLL_BATCH * WC_SIZE)
            .order(ByteOrder.nativeOrder());
    private final long completionsAddress = RdmaNative.directBufferAddress(completions);
    private int reservedEntries;
    /** The last poll stopped at its budget: completions may wait, and no event will announce them. */
    private boolean backlog;
    /** The next completion raises an event on the channel; an event disarms the CQ. */
    private boolean armed;
    /** The device reported the queue in error ({@code IBV_EVENT_CQ_ERR}): it is polled and reserved no more. */
    private boolean failed;
    private boolean closed;

    /**
     * Creates a CQ of {@code capacity} entries (at most the device's limit) with its channel, which
     * dispatches at most {@code pollBudget} completions per wake-up to the channels of {@code loop},
     * counting into its {@code counters}.
     */
    CompletionQueue(RdmaLoop loop, RdmaDevice device, int capacity, int pollBudget, LoopCounters counters)
            throws IOException {
        this.loop = loop;
        this.device = device;
        this.counters = counters;
        this.pollBudget = pollBudget;
        this.capacity = Math.min(capacity, device.maxCqe());
        completionChannel = verbs._createCompChannel(device.context());
        long created;
        try {
            created = verbs._createCQ(device.context(), completionChannel, this.capacity, 0);
        } catch (IOException e) {
            verbs._destroyCompChannel(completionChannel);
            throw e;
        }
        cq = created;
        fd = new FileDescriptor(RdmaNative.completionChannelFd(completionChannel));
        arm();
        LIVE.incrementAndGet();
        // The only event that names a CQ is its error; its loop fails the channels on it.
        device.asyncEvents().watch(cq, type -> loop.execute(() -> loop.completionQueueFailed(this)));
    }

    /** Returns the {@code ibv_cq*}. */
    public long cq() {
        return cq;
    }

    /** Returns the number of entries. */
    public int capacity() {
        return capacity;
    }

    /** Returns the device. */
    public RdmaDevice device() {
        return device;
    }

    /**
     * Reserves room for a queue pair's {@code entries} outstanding work requests, so the CQ can never
     * overrun (an overrun would put every QP on it in the error state).
     *
     * @return {@code false} if the CQ is full
     */
    public boolean reserve(int entries) {
        if (failed || reservedEntries + entries > capacity) {
            return false;
        }
        reservedEntries += entries;
        return true;
    }

    /**
     * Returns room reserved with {@link #reserve(int)}. A queue no connection reserves room in any
     * more may be closed by its loop ({@link RdmaLoop#completionQueueIdle}).
     */
    public void unreserve(int entries) {
        reservedEntries -= entries;
        if (reservedEntries == 0 && !closed) {
            loop.completionQueueIdle(this);
        }
    }

    /** Returns {@code true} if no connection reserves room in this queue. */
    boolean isIdle() {
        return reservedEntries == 0;
    }

    /**
     * Marks the queue failed, as the device reported it ({@code IBV_EVENT_CQ_ERR}): its queue pairs
     * are in the error state and what it holds is lost, so it is neither polled nor reserved again.
     *
     * @return {@code false} if it was failed or closed already
     */
    boolean fail() {
        if (failed || closed) {
            return false;
        }
        failed = true;
        backlog = false;
        return true;
    }

    /** Returns {@code true} once the device reported the queue in error. */
    boolean isFailed() {
        return failed;
    }

    /** Returns the error a channel whose work completes into this failed queue fails with. */
    public IOException failure() {
        return new IOException("the completion queue of the RDMA device " + device.name() + " failed "
                + "(IBV_EVENT_CQ_ERR): its queue pairs are in the error state");
    }

    @Override
    public FileDescriptor fd() {
        return fd;
    }

    @Override
    public void handle(IoRegistration registration, IoEvent ioEvent) {
        try {
            int events = 0;
            while (verbs._getCqEvent(completionChannel, 0) == 0) {
                events++;
            }
            if (events > 0) {
                verbs._ackCqEvent(cq, events);
                armed = false;
                counters.wakeUps += events;
            }
            poll(pollBudget);
        } catch (IOException e) {
            // Only a broken device fails here; every QP on the CQ is lost with it.
            logger.warn("completion queue of {} failed", device, e);
        }
    }

    /** Polls and dispatches at most one wake-up's budget of completions (after a backlog, or busy polling). */
    public int poll() throws IOException {
        return poll(pollBudget);
    }

    /**
     * Polls and dispatches every completion that is in the queue now: called before a device removal
     * is handled, so that the data that arrived before it is seen first. The queue is first in, first
     * out, so {@code capacity} completions cover all that were there, however fast new ones arrive.
     */
    public int drain() throws IOException {
        return poll(capacity);
    }

    /**
     * Arms the CQ, unless it is armed, and then polls it: the loop calls this before it waits, and a
     * completion that landed before the arm would raise no event.
     *
     * @return the number of completions dispatched; 0 if the CQ was armed already
     */
    int armAndPoll() throws IOException {
        if (armed || closed || failed) {
            return 0;
        }
        arm();
        return poll(pollBudget);
    }

    /** Returns {@code true} if the next completion raises an event, so the loop may wait for it. */
    boolean isArmed() {
        return armed;
    }

    /** Returns {@code true} if the last poll stopped at its budget with completions possibly left. */
    public boolean hasBacklog() {
        return backlog;
    }

    /**
     * Polls the CQ until it is empty or {@code budget} completions (rounded up to a batch) were
     * dispatched, and dispatches what it finds.
     *
     * @return the number of completions dispatched
     */
    private int poll(int budget) throws IOException {
        backlog = false;
        if (closed || failed) {
            return 0;
        }
        int total = 0;
        for (;;) {
            int n = verbs._pollCQ(cq, POLL_BATCH, completionsAddress);
            if (n < 0) {
                throw new IOException("ibv_poll_cq failed on " + device + ": " + n);
            }
            for (int i = 0; i < n; i++) {
                int base = i * WC_SIZE;
                loop.dispatchCompletion(completions.getLong(base + WC_WR_ID), completions.getInt(base + WC_STATUS),
                        completions.getInt(base + WC_OPCODE), completions.getInt(base + WC_BYTE_LEN),
                        completions.getInt(base + WC_IMM_DATA), completions.getInt(base + WC_FLAGS),
                        completions.getInt(base + WC_QP_NUM));
            }
            total += n;
            counters.completions += n;
            if (n < POLL_BATCH) {
                return total;
            }
            if (total >= budget) {
                backlog = true;
                return total;
            }
        }
    }

    private void arm() throws IOException {
        int result = verbs._reqNotifyCQ(cq, 0);
        if (result != 0) {
            throw new IOException("ibv_req_notify_cq failed on " + device + ": " + result);
        }
        armed = true;
        counters.arms++;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        device.asyncEvents().unwatch(cq);
        // CQ before its channel: the other order answers EBUSY and leaks the channel.
        int cqResult = verbs._destroyCQ(cq);
        int channelResult = verbs._destroyCompChannel(completionChannel);
        if (cqResult != 0 || channelResult != 0) {
            // EBUSY: a queue pair still uses it. The CQ stays counted, so the leak shows in tests.
            logger.warn("destroying the completion queue of {} returned {} / {}", device, cqResult, channelResult);
        } else {
            LIVE.decrementAndGet();
        }
    }

    /** Returns the {@code IBV_EVENT_CQ_ERR} events the devices reported so far, process-wide. */
    public static long errors() {
        return AsyncEvents.completionQueueErrors();
    }

    /** Returns the number of completion queues not yet closed, process-wide. */
    public static int liveCount() {
        return LIVE.get();
    }
}
