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
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import io.netty.channel.IoHandler;
import io.netty.channel.IoRegistration;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.memory.RdmaDevice;

/**
 * The completion queues of one event loop, one or a few per device its channels use, each
 * registered with the loop's epoll: reserved for connections as they come, polled and armed on
 * every turn, and closed when no connection needs them any more, down to one per device.
 *
 * <p>Used on its event loop only.
 */
final class CompletionQueuePool {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(CompletionQueuePool.class);

    private static final int POLL = 0;
    private static final int POLL_UNARMED = 1;
    private static final int ARM = 2;
    private static final int DRAIN = 3;

    private final RdmaLoop loop;
    private final IoHandler epoll;
    private final Executor executor;
    /**
     * Entries of each queue opened on a device (as far as the device allows); each connection
     * reserves what it can have in flight, and another queue is opened when none has room.
     */
    private final int entries;
    /** Completions one wake-up dispatches per queue before the loop turns to its other work. */
    private final int pollBudget;
    private final LoopCounters counters;
    /** Searched by device and polled by index on every turn, so neither allocates an iterator. */
    private final List<CompletionQueue> queues = new ArrayList<>();
    /** The epoll registration of each queue, at the same index. */
    private final List<IoRegistration> epollRegistrations = new ArrayList<>();

    CompletionQueuePool(RdmaLoop loop, IoHandler epoll, Executor executor, int entries, int pollBudget,
                        LoopCounters counters) {
        this.loop = loop;
        this.epoll = epoll;
        this.executor = executor;
        this.entries = entries;
        this.pollBudget = pollBudget;
        this.counters = counters;
    }

    /**
     * Returns a queue on {@code device} with room for {@code wanted} more completions, reserved: one
     * the pool has, or a new one, so that no fixed size refuses a connection.
     *
     * @throws IOException if the device cannot hold a queue of {@code wanted}, or refuses a new one
     */
    CompletionQueue reserve(RdmaDevice device, int wanted) throws IOException {
        for (int i = 0; i < queues.size(); i++) {
            CompletionQueue cq = queues.get(i);
            if (cq.device() == device && cq.reserve(wanted)) {
                return cq;
            }
        }
        if (wanted > device.maxCqe()) {
            throw new IOException("a connection needs " + wanted + " completion queue entries, but " + device
                    + " allows at most " + device.maxCqe() + " per queue: use fewer receive slots or a shallower"
                    + " send queue");
        }
        CompletionQueue cq = open(device, Math.max(entries, wanted));
        if (!cq.reserve(wanted)) {
            throw new IllegalStateException("a new completion queue of " + cq.capacity() + " entries refused "
                    + wanted);
        }
        return cq;
    }

    /** Returns the entries of each queue opened for connections, as far as the device allows. */
    int entries() {
        return entries;
    }

    private CompletionQueue open(RdmaDevice device, int capacity) throws IOException {
        CompletionQueue cq = new CompletionQueue(loop, device, capacity, pollBudget, counters);
        queues.add(cq);
        try {
            epollRegistrations.add(EpollRegistrations.register(epoll, cq));
        } catch (IOException e) {
            queues.remove(cq);
            cq.close();
            throw e;
        }
        return cq;
    }

    /**
     * Closes {@code cq}, soon, if no connection uses it then and another queue is open on its device.
     * Not at once: the last connection frees its room from inside a completion of this queue.
     */
    void idle(CompletionQueue cq) {
        try {
            executor.execute(() -> closeIfIdle(cq));
        } catch (RejectedExecutionException e) {
            // The loop is stopping: close() closes every queue.
        }
    }

    private void closeIfIdle(CompletionQueue cq) {
        int index = queues.indexOf(cq);
        // A failed queue goes even if it is the device's last: nothing can use it again.
        if (index < 0 || !cq.isIdle() || !cq.isFailed() && !hasAnotherOn(cq)) {
            return;
        }
        try {
            // Its queue pairs are destroyed; what they left is dispatched first, so that a shared
            // receive a completion took goes back to its queue.
            cq.drain();
        } catch (IOException e) {
            logger.debug("draining an idle completion queue of {} failed", cq.device(), e);
        }
        remove(queues.indexOf(cq));
    }

    private boolean hasAnotherOn(CompletionQueue cq) {
        for (int i = 0; i < queues.size(); i++) {
            CompletionQueue other = queues.get(i);
            if (other != cq && other.device() == cq.device()) {
                return true;
            }
        }
        return false;
    }

    private void remove(int index) {
        CompletionQueue cq = queues.remove(index);
        epollRegistrations.remove(index).cancel();
        cq.close();
    }

    /** Polls each queue for at most a wake-up's budget. */
    int poll() {
        return each(POLL);
    }

    /** Polls the queues not armed: those a completion may have reached without an event. */
    int pollUnarmed() {
        return each(POLL_UNARMED);
    }

    /** Arms each queue not armed and polls it once more: what landed before the arm raised no event. */
    int arm() {
        return each(ARM);
    }

    /** Dispatches every completion in every queue now: before a device removal is handled. */
    void drain() {
        each(DRAIN);
    }

    private int each(int action) {
        int total = 0;
        for (int i = 0; i < queues.size(); i++) {
            CompletionQueue cq = queues.get(i);
            try {
                switch (action) {
                    case DRAIN:
                        total += cq.drain();
                        break;
                    case POLL_UNARMED:
                        total += cq.isArmed() ? 0 : cq.poll();
                        break;
                    case ARM:
                        total += cq.armAndPoll();
                        break;
                    default:
                        total += cq.poll();
                        break;
                }
            } catch (IOException e) {
                logger.warn("polling {} failed", cq.device(), e);
            }
        }
        return total;
    }

    /** Returns {@code true} if a queue's last poll stopped at its budget with completions possibly left. */
    boolean hasBacklog() {
        for (int i = 0; i < queues.size(); i++) {
            if (queues.get(i).hasBacklog()) {
                return true;
            }
        }
        return false;
    }

    /** Returns the queues open now, a copy. */
    List<CompletionQueue> queues() {
        return new ArrayList<>(queues);
    }

    /** Returns {@code true} if no queue is open. */
    boolean isEmpty() {
        return queues.isEmpty();
    }

    /** Closes the queues on {@code device}, which is going away; its queue pairs are gone. */
    void closeOn(RdmaDevice device) {
        for (int i = queues.size() - 1; i >= 0; i--) {
            if (queues.get(i).device() == device) {
                remove(i);
            }
        }
    }

    /** Closes every queue. */
    void close() {
        for (int i = queues.size() - 1; i >= 0; i--) {
            remove(i);
        }
    }
}
