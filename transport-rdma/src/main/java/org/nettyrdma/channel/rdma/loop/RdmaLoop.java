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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import io.netty.channel.IoHandler;
import io.netty.channel.IoRegistration;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.RdmaFallbackCounts;
import org.nettyrdma.channel.rdma.RdmaFallbackReason;
import org.nettyrdma.channel.rdma.RdmaLoopMetrics;
import org.nettyrdma.channel.rdma.internal.CmEvent;
import org.nettyrdma.channel.rdma.internal.WorkCompletionStatus;
import org.nettyrdma.channel.rdma.internal.WorkRequests;
import org.nettyrdma.channel.rdma.memory.ProtectionDomain;
import org.nettyrdma.channel.rdma.memory.RdmaDevice;

/**
 * What one event loop shares among its RDMA channels, and the dispatch to them: the registrations
 * of its channels by id, its RDMA CM event channel ({@link CmEventDispatcher}), its completion queues
 * ({@link CompletionQueuePool}) and shared receive queues ({@link SharedReceiveQueues}), and the
 * devices it uses. Made lazily, so a loop that never carries an RDMA channel opens nothing. Each
 * completion its queues poll and each CM event goes to the channel whose registration it names
 * ({@link RdmaIoRegistration}).
 *
 * <p>Used on its event loop only.
 */
public final class RdmaLoop implements RdmaDevice.User {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RdmaLoop.class);

    private final IoHandler epoll;
    private final Executor executor;
    private final LoopCounters counters = new LoopCounters();
    private final CompletionQueuePool completionQueues;
    private final SharedReceiveQueues sharedQueues;
    /** The registrations of the loop's RDMA channels, by the id their work requests carry. */
    private final IntObjectMap<RdmaIoRegistration> registrations = new IntObjectHashMap<>();
    /** The one event handed to the channels, refilled for each. */
    private final RdmaIoEvent event = new RdmaIoEvent();
    /** The id the next registration tries first: ids go round, so a stale id is reused last. */
    private int nextId = 1;
    /** The devices this loop has queues on: it told each it uses it. */
    private final Set<RdmaDevice> devices = new LinkedHashSet<>();
    private CmEventDispatcher cm;
    private IoRegistration cmRegistration;

    /**
     * Creates the state of a loop whose fds are watched by {@code epoll} and whose tasks run on
     * {@code executor}; its completion queues have {@code completionQueueEntries} entries and a
     * wake-up's {@code pollBudget}.
     */
    public RdmaLoop(IoHandler epoll, Executor executor, int completionQueueEntries, int pollBudget) {
        this.epoll = epoll;
        this.executor = executor;
        completionQueues = new CompletionQueuePool(this, epoll, executor, completionQueueEntries, pollBudget,
                counters);
        sharedQueues = new SharedReceiveQueues(completionQueues, executor);
    }

    /**
     * Registers a channel's handle with the loop under a new id.
     *
     * @throws IOException if the loop has {@value WorkRequests#MAX_OWNER} channels already
     */
    public RdmaIoRegistration register(RdmaIoHandle handle) throws IOException {
        if (registrations.size() == WorkRequests.MAX_OWNER) {
            throw new IOException("an event loop carries at most " + WorkRequests.MAX_OWNER + " RDMA channels");
        }
        while (registrations.containsKey(nextId)) {
            nextId = nextId == WorkRequests.MAX_OWNER ? 1 : nextId + 1;
        }
        RdmaIoRegistration registration = new RdmaIoRegistration(this, handle, nextId);
        registrations.put(nextId, registration);
        nextId = nextId == WorkRequests.MAX_OWNER ? 1 : nextId + 1;
        return registration;
    }

    void removeRegistration(RdmaIoRegistration registration) {
        registrations.remove(registration.id());
    }

    /** Returns the registrations on the loop now, a copy. */
    public List<RdmaIoRegistration> registrations() {
        return new ArrayList<>(registrations.values());
    }

    /**
     * Hands a work completion to the channel whose registration id its {@code wr_id} carries, with
     * that id masked out; a shared receive's carries its queue's id instead, and goes to the channel
     * of queue pair {@code qpNum}.
     */
    void dispatchCompletion(long wrId, int status, int opcode, int byteLength, int immediate, int flags, int qpNum) {
        int owner = WorkRequests.ownerOf(wrId);
        if (SharedReceiveQueue.isShared(wrId)) {
            SharedReceiveQueue srq = sharedQueues.get(owner);
            if (srq == null) {
                return;
            }
            srq.taken(status);
            owner = srq.ownerOf(qpNum);
            if (owner == 0 || !registrations.containsKey(owner)) {
                // The queue pair is gone: its slot is nobody's, so it goes back to the queue.
                if (status != WorkCompletionStatus.WR_FLUSH_ERR) {
                    srq.release(SharedReceiveQueue.slotOf(wrId));
                    srq.postOrWarn();
                } else {
                    srq.setAside(SharedReceiveQueue.slotOf(wrId));
                }
                return;
            }
        }
        RdmaIoRegistration registration = registrations.get(owner);
        if (registration == null) {
            // Only a registration removed by force (loop or device going away) has completions left.
            logger.debug("a completion (wr_id 0x{}, status {}) for no registration", Long.toHexString(wrId), status);
            return;
        }
        event.completion(WorkRequests.connectionPart(wrId), status, opcode, byteLength, immediate, flags);
        registration.handle(event);
    }

    void dispatchCmEvent(RdmaIoRegistration registration, CmEvent cmEvent) {
        event.cm(cmEvent);
        registration.handle(event);
    }

    /** Returns the loop's CM event channel, creating and registering it on first use. */
    public CmEventDispatcher cm() throws IOException {
        if (cm == null) {
            CmEventDispatcher dispatcher = new CmEventDispatcher(this, completionQueues::drain);
            try {
                cmRegistration = EpollRegistrations.register(epoll, dispatcher);
            } catch (IOException e) {
                dispatcher.close();
                throw e;
            }
            cm = dispatcher;
        }
        return cm;
    }

    /**
     * Returns a completion queue of the loop on {@code device} with room for {@code entries} more
     * completions, reserved: one the loop has, or a new one registered with its epoll. A loop grows
     * its queues as connections come, instead of refusing a connection when one queue is full, and
     * closes those no connection needs any more ({@link CompletionQueuePool}).
     *
     * @throws IOException if the device cannot hold a queue of {@code entries}, or refuses a new one
     */
    public CompletionQueue reserveCompletionQueue(RdmaDevice device, int entries) throws IOException {
        useDevice(device);
        return completionQueues.reserve(device, entries);
    }

    /**
     * The device reported {@code cq} in error ({@code IBV_EVENT_CQ_ERR}): the channels whose work
     * completes into it fail, and it closes once none uses it. The loop serves on: its other queues
     * are untouched, and new connections get a queue that works.
     */
    void completionQueueFailed(CompletionQueue cq) {
        if (!cq.fail()) {
            return;
        }
        logger.warn("the completion queue of the RDMA device {} failed (IBV_EVENT_CQ_ERR): failing the channels on it",
                cq.device().name());
        for (RdmaIoRegistration registration : registrations()) {
            try {
                registration.handle().completionQueueFailed(cq);
            } catch (RuntimeException e) {
                logger.warn("failing {} on a failed completion queue failed", registration.handle(), e);
            }
        }
        if (cq.isIdle()) {
            completionQueues.idle(cq);
        }
    }

    /** Runs {@code task} on the loop, from any thread; not at all once the loop is stopping. */
    void execute(Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            // The loop is stopping: close() frees what the task would have handled.
        }
    }

    /** No connection reserves room in {@code cq} any more: the pool may close it. */
    void completionQueueIdle(CompletionQueue cq) {
        completionQueues.idle(cq);
    }

    /**
     * Returns a shared receive queue of this loop on {@code device} for slots of {@code slotSize}
     * bytes with room for {@code slots} more reserved, opening one if none has.
     */
    public SharedReceiveQueue sharedReceiveQueue(RdmaDevice device, int slotSize, int slots) throws IOException {
        useDevice(device);
        return sharedQueues.withRoom(device, slotSize, slots);
    }

    /**
     * Returns a receive queue of this loop for one connection alone, on {@code device}, in the
     * connection's own protection domain {@code pd} or, if {@code null}, the device's, with room for
     * {@code capacity} receives of {@code slotSize} bytes: a shared receive queue that only the
     * connection's queue pair uses, or with {@code onQueuePair} that queue pair's own receive queue.
     */
    public SharedReceiveQueue ownReceiveQueue(RdmaDevice device, ProtectionDomain pd, int slotSize, int capacity,
                                              boolean onQueuePair) throws IOException {
        useDevice(device);
        return sharedQueues.own(device, pd, slotSize, capacity, onQueuePair);
    }

    /** Makes this loop a user of {@code device}, told when it goes away. */
    private void useDevice(RdmaDevice device) throws IOException {
        if (devices.add(device)) {
            try {
                device.addUser(this);
            } catch (IOException e) {
                devices.remove(device);
                throw e;
            }
        }
    }

    /** Polls each completion queue for at most a wake-up's budget: after a backlog, or busy polling. */
    public int pollCompletionQueues() {
        return completionQueues.poll();
    }

    /**
     * Polls the completion queues that are not armed: those a completion may have reached without
     * raising an event, since an event disarms a queue.
     */
    public int pollUnarmedCompletionQueues() {
        return completionQueues.pollUnarmed();
    }

    /**
     * Arms each completion queue not armed and polls it once more, since a completion that landed
     * before the arm raised no event: the loop calls this before it waits.
     *
     * @return the completions dispatched; 0 means every queue is armed and empty, and the loop may wait
     */
    public int armCompletionQueues() {
        return completionQueues.arm();
    }

    /** Returns {@code true} if a queue's last poll stopped at its budget with completions possibly left. */
    public boolean hasBacklog() {
        return completionQueues.hasBacklog();
    }

    /** Returns what the loop did with its completion queues so far. */
    LoopCounters counters() {
        return counters;
    }

    /** Returns what the loop did so far, with the receives of its shared receive queues now. */
    public RdmaLoopMetrics metrics() {
        return counters.snapshot(sharedQueues.metrics());
    }

    /** Counts a channel of this loop that fell back to TCP for {@code reason}. */
    public void fellBack(RdmaFallbackReason reason) {
        counters.fallbacks[reason.ordinal()]++;
    }

    /** Returns the loop's channels that fell back to TCP so far, by reason. */
    public RdmaFallbackCounts fallbacks() {
        return new RdmaFallbackCounts(counters.fallbacks);
    }

    /** Counts a spin on the completion queues before waiting, its time, and whether it found completions. */
    public void busyPolled(boolean hit, long nanos) {
        counters.busyPolls++;
        counters.busyPollNanos += nanos;
        if (hit) {
            counters.busyPollHits++;
        }
    }

    /** Returns the work completions the loop has dispatched so far. */
    public long completionsDispatched() {
        return counters.completions;
    }

    /** Returns the loop's completion queues now, a copy. */
    List<CompletionQueue> completionQueues() {
        return completionQueues.queues();
    }

    /** Returns {@code true} once the loop has a completion queue (a channel of it reached a device). */
    public boolean hasCompletionQueues() {
        return !completionQueues.isEmpty();
    }

    @Override
    public void deviceRemoved(RdmaDevice device) {
        try {
            executor.execute(() -> dropDevice(device));
        } catch (RejectedExecutionException e) {
            // The loop is stopping: close() lets go of the device.
        }
    }

    /**
     * Lets go of everything the loop holds on a device that is being removed: its channels there,
     * open or closed and waiting for their work requests, free their queue pairs now; then its
     * shared receive queues and completion queues there are freed.
     */
    private void dropDevice(RdmaDevice device) {
        for (RdmaIoRegistration registration : registrations()) {
            try {
                registration.handle().deviceRemoved(device);
                registration.removeIfDrained();
            } catch (Exception e) {
                logger.warn("closing {} on the removed device {} failed", registration.handle(), device, e);
            }
        }
        sharedQueues.closeOn(device);
        completionQueues.closeOn(device);
        devices.remove(device);
        device.release(this);
    }

    /**
     * Frees the loop's queues and event channel. The channels on the loop are closed already; those
     * that still wait for work requests free their queue pairs now, before the queues go.
     */
    public void close() {
        for (RdmaIoRegistration registration : registrations()) {
            try {
                registration.handle().freeNow();
            } catch (Exception e) {
                logger.warn("freeing {} failed", registration.handle(), e);
            }
            registration.remove();
        }
        sharedQueues.close();
        completionQueues.close();
        if (cm != null) {
            cmRegistration.cancel();
            cm.close();
            cm = null;
        }
        for (RdmaDevice device : devices) {
            device.release(this);
        }
        devices.clear();
    }
}
