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
package org.nettyrdma.channel.rdma.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import io.netty.channel.IoEvent;
import io.netty.channel.IoHandler;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.unix.FileDescriptor;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

/**
 * The RDMA objects one event loop shares among its channels: one RDMA CM event channel and, per
 * device, one completion queue, each registered as an ordinary handle with the loop's epoll. Made
 * lazily, so a loop that never carries an RDMA channel opens nothing. It also holds the
 * registrations of the loop's RDMA channels by id, and hands each completion its queues poll and each
 * CM event to the channel whose registration id it carries ({@link RdmaIoRegistration}).
 *
 * <p>Used on its event loop only.
 */
public final class RdmaLoop implements RdmaDevice.User {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RdmaLoop.class);

    /** What {@link #eachCompletionQueue(int)} does to each queue. */
    private static final int POLL = 0;
    private static final int POLL_UNARMED = 1;
    private static final int ARM = 2;
    private static final int DRAIN = 3;

    private final IoHandler epoll;
    private final Executor executor;
    /**
     * Entries of each completion queue the loop opens on a device (as far as the device allows); each
     * connection reserves what it can have in flight, and the loop opens another queue when none has room.
     */
    private final int completionQueueEntries;
    /** Completions one wake-up dispatches per queue before the loop turns to its other work. */
    private final int pollBudget;
    /**
     * The loop's completion queues, one or a few per device its channels use: a list, searched by
     * device and polled by index on every turn, so neither allocates an iterator.
     */
    private final List<CompletionQueue> completionQueueList = new ArrayList<>();
    private final List<IoRegistration> epollRegistrations = new ArrayList<>();
    private final List<AutoCloseable> resources = new ArrayList<>();
    /** The registrations of the loop's RDMA channels, by the id their work requests carry. */
    private final IntObjectMap<RdmaIoRegistration> registrations = new IntObjectHashMap<>();
    /** The one event handed to the channels, refilled for each. */
    private final RdmaIoEvent event = new RdmaIoEvent();
    /** The id the next registration tries first: ids go round, so a stale id is reused last. */
    private int nextId = 1;
    /** The devices this loop has completion queues on: it told each it uses it. */
    private final Set<RdmaDevice> devices = new LinkedHashSet<>();
    private final LoopCounters counters = new LoopCounters();
    private CmEventDispatcher cm;

    /**
     * Creates the state of a loop whose fds are watched by {@code epoll} and whose tasks run on
     * {@code executor}; its completion queues have {@code completionQueueEntries} entries and a
     * wake-up's {@code pollBudget}.
     */
    public RdmaLoop(IoHandler epoll, Executor executor, int completionQueueEntries, int pollBudget) {
        this.epoll = epoll;
        this.executor = executor;
        this.completionQueueEntries = completionQueueEntries;
        this.pollBudget = pollBudget;
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
     * that id masked out.
     */
    void dispatchCompletion(long wrId, int status, int opcode, int byteLength, int immediate, int flags) {
        RdmaIoRegistration registration = registrations.get(WorkRequests.ownerOf(wrId));
        if (registration == null) {
            // Only a registration removed by force (loop or device going away) has completions left.
            logger.debug("a completion (wr_id 0x{}, status {}) for no registration", Long.toHexString(wrId), status);
            return;
        }
        event.completion(WorkRequests.connectionPart(wrId), status, opcode, byteLength, immediate, flags);
        registration.handle(event);
    }

    /** Hands an RDMA CM event to the channel registered for its id. */
    void dispatchCmEvent(RdmaIoRegistration registration, CmEvent cmEvent) {
        event.cm(cmEvent);
        registration.handle(event);
    }

    /**
     * Makes the chains of a connection on the CM id {@code cmId} carry the id of the registration
     * the CM id belongs to: their completions then reach that channel.
     */
    void claim(long cmId, WorkRequests... chains) {
        RdmaIoRegistration registration = cm != null ? cm.registrationOf(cmId) : null;
        if (registration == null) {
            throw new IllegalStateException("no registration for rdma_cm_id 0x" + Long.toHexString(cmId));
        }
        for (WorkRequests chain : chains) {
            registration.submit(chain);
        }
    }

    /** Returns the loop's CM event channel, creating and registering it on first use. */
    public CmEventDispatcher cm() throws IOException {
        if (cm == null) {
            CmEventDispatcher dispatcher = new CmEventDispatcher(this, this::drainCompletionQueues);
            register(new Watched(dispatcher), dispatcher);
            cm = dispatcher;
        }
        return cm;
    }

    /**
     * Returns a completion queue of the loop on {@code device} with room for {@code entries} more
     * completions, reserved: one the loop has, or a new one registered with its epoll. A loop grows
     * its queues as connections come, instead of refusing a connection when one queue is full, and
     * keeps them until it shuts down.
     *
     * @throws IOException if the device cannot hold a queue of {@code entries}, or refuses a new one
     */
    public CompletionQueue reserveCompletionQueue(RdmaDevice device, int entries) throws IOException {
        for (int i = 0; i < completionQueueList.size(); i++) {
            CompletionQueue cq = completionQueueList.get(i);
            if (cq.device() == device && cq.reserve(entries)) {
                return cq;
            }
        }
        if (entries > device.maxCqe()) {
            throw new IOException("a connection needs " + entries + " completion queue entries, but " + device
                    + " allows at most " + device.maxCqe() + " per queue: use fewer receive slots or a shallower"
                    + " send queue");
        }
        if (devices.add(device)) {
            try {
                device.addUser(this);
            } catch (IOException e) {
                devices.remove(device);
                throw e;
            }
        }
        CompletionQueue cq = new CompletionQueue(this, device, Math.max(completionQueueEntries, entries), pollBudget,
                counters);
        register(new Watched(cq), cq);
        completionQueueList.add(cq);
        if (!cq.reserve(entries)) {
            throw new IllegalStateException("a new completion queue of " + cq.capacity() + " entries refused "
                    + entries);
        }
        return cq;
    }

    private void register(EpollIoHandle handle, AutoCloseable resource) throws IOException {
        try {
            IoRegistration registration = epoll.register(handle);
            registration.submit(EpollIoOps.EPOLLIN);
            epollRegistrations.add(registration);
            resources.add(resource);
        } catch (Exception e) {
            try {
                resource.close();
            } catch (Exception suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e instanceof IOException ? (IOException) e : new IOException("registering with epoll failed", e);
        }
    }

    /**
     * Polls every completion queue of the loop, each at most one wake-up's budget.
     *
     * @return the number of completions dispatched
     */
    public int pollCompletionQueues() {
        return eachCompletionQueue(POLL);
    }

    /**
     * Polls the completion queues that are not armed: no event announces their completions, so the
     * loop looks on every turn until it arms them.
     *
     * @return the number of completions dispatched
     */
    public int pollUnarmedCompletionQueues() {
        return eachCompletionQueue(POLL_UNARMED);
    }

    /**
     * Arms the completion queues that are not armed, before the loop waits, and polls them once
     * more: what completed before the arm raises no event.
     *
     * @return the number of completions dispatched; if not 0, the loop must not wait
     */
    public int armCompletionQueues() {
        return eachCompletionQueue(ARM);
    }

    /**
     * Dispatches every completion in the loop's queues now: before a device removal is handled, since
     * the queues go with the device. Nothing a peer does leads here (docs/decisions.md#disconnect-by-flush).
     */
    private void drainCompletionQueues() {
        eachCompletionQueue(DRAIN);
    }

    private int eachCompletionQueue(int action) {
        int total = 0;
        for (int i = 0; i < completionQueueList.size(); i++) {
            CompletionQueue cq = completionQueueList.get(i);
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

    /**
     * Returns {@code true} if a completion queue stopped at its budget: the loop must poll it again
     * before it waits, since no event announces completions that were already there.
     */
    public boolean hasBacklog() {
        for (int i = 0; i < completionQueueList.size(); i++) {
            if (completionQueueList.get(i).hasBacklog()) {
                return true;
            }
        }
        return false;
    }

    /** Returns what the loop did with its completion queues so far. */
    public LoopCounters counters() {
        return counters;
    }

    /** Counts a spin on the completion queues before waiting, and whether it found completions. */
    public void busyPolled(boolean hit) {
        counters.busyPolls++;
        if (hit) {
            counters.busyPollHits++;
        }
    }

    /** Returns {@code true} once the loop has a completion queue (a channel of it reached a device). */
    public boolean hasCompletionQueues() {
        return !completionQueueList.isEmpty();
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
     * open or closed and waiting for their work requests, free their queue pairs now, and its
     * completion queues there are freed.
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
        for (int i = completionQueueList.size() - 1; i >= 0; i--) {
            CompletionQueue cq = completionQueueList.get(i);
            if (cq.device() == device) {
                completionQueueList.remove(i);
                int index = resources.indexOf(cq);
                epollRegistrations.remove(index).cancel();
                resources.remove(index);
                cq.close();
            }
        }
        devices.remove(device);
        device.release(this);
    }

    /**
     * Frees the loop's CQs and event channel. The channels on the loop are closed already; those that
     * still wait for work requests free their queue pairs now, as the queues go.
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
        for (IoRegistration registration : epollRegistrations) {
            registration.cancel();
        }
        epollRegistrations.clear();
        for (AutoCloseable resource : resources) {
            try {
                resource.close();
            } catch (Exception e) {
                logger.warn("closing {} failed", resource, e);
            }
        }
        resources.clear();
        completionQueueList.clear();
        cm = null;
        for (RdmaDevice device : devices) {
            device.release(this);
        }
        devices.clear();
    }

    /**
     * What epoll watches for a CQ or the CM event channel. Epoll closes the handles it watches when
     * the loop prepares to stop, before the loop's channels have torn down their queue pairs; a CQ
     * freed then answers EBUSY and leaks. So epoll gets this view, whose close does nothing, and
     * {@link #close()} frees the object itself once the queue pairs are gone.
     */
    private static final class Watched implements EpollIoHandle {
        private final EpollIoHandle target;

        Watched(EpollIoHandle target) {
            this.target = target;
        }

        @Override
        public FileDescriptor fd() {
            return target.fd();
        }

        @Override
        public void handle(IoRegistration registration, IoEvent ioEvent) {
            target.handle(registration, ioEvent);
        }

        @Override
        public void close() {
            // Freed by RdmaLoop.close().
        }
    }
}
