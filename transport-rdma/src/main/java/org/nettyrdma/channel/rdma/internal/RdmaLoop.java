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
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

import io.netty.channel.IoEvent;
import io.netty.channel.IoHandler;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.unix.FileDescriptor;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

/**
 * The RDMA objects one event loop shares among its channels: one RDMA CM event channel and, per
 * device, one completion queue, each registered as an ordinary handle with the loop's epoll. Made
 * lazily, so a loop that never carries an RDMA channel opens nothing.
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
    /** Closes the loop's channels on a device that is being removed. */
    private final Consumer<RdmaDevice> closeChannelsOn;
    /**
     * Entries of each completion queue the loop opens on a device (as far as the device allows); each
     * connection reserves what it can have in flight, and the loop opens another queue when none has room.
     */
    private final int completionQueueEntries;
    /** Completions one wake-up dispatches per queue before the loop turns to its other work. */
    private final int pollBudget;
    /**
     * The loop's completion queues, one or a few per device its channels use: a list, searched by
     * device and polled by index before every disconnect, so neither allocates an iterator.
     */
    private final List<CompletionQueue> completionQueueList = new ArrayList<>();
    private final List<IoRegistration> registrations = new ArrayList<>();
    private final List<AutoCloseable> resources = new ArrayList<>();
    /** Teardowns of closed connections waiting for their last sends, with the device they are on. */
    private final Map<Runnable, RdmaDevice> lingering = new LinkedHashMap<>();
    /** The devices this loop has completion queues on: it told each it uses it. */
    private final Set<RdmaDevice> devices = new LinkedHashSet<>();
    private final LoopCounters counters = new LoopCounters();
    private CmEventDispatcher cm;

    /**
     * Creates the state of a loop whose fds are watched by {@code epoll}, whose tasks run on
     * {@code executor}, and whose channels on a removed device {@code closeChannelsOn} closes; its
     * completion queues have {@code completionQueueEntries} entries and a wake-up's
     * {@code pollBudget}.
     */
    public RdmaLoop(IoHandler epoll, Executor executor, Consumer<RdmaDevice> closeChannelsOn,
                    int completionQueueEntries, int pollBudget) {
        this.epoll = epoll;
        this.executor = executor;
        this.closeChannelsOn = closeChannelsOn;
        this.completionQueueEntries = completionQueueEntries;
        this.pollBudget = pollBudget;
    }

    /** Returns the loop's CM event channel, creating and registering it on first use. */
    public CmEventDispatcher cm() throws IOException {
        if (cm == null) {
            CmEventDispatcher dispatcher = new CmEventDispatcher(this::drainCompletionQueues);
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
        CompletionQueue cq = new CompletionQueue(device, Math.max(completionQueueEntries, entries), pollBudget,
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
            registrations.add(registration);
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

    /** Dispatches every completion in the loop's queues now: before a disconnect is handled. */
    public void drainCompletionQueues() {
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

    /**
     * Remembers the teardown of a connection on {@code device} that closed but still waits for its
     * last sends to complete; if the loop shuts down or the device goes first, it runs then.
     */
    public void addLingering(RdmaDevice device, Runnable teardown) {
        lingering.put(teardown, device);
    }

    /** Forgets a teardown added with {@link #addLingering(Runnable)}, once it ran. */
    public void removeLingering(Runnable teardown) {
        lingering.remove(teardown);
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
     * Lets go of everything the loop holds on a device that is being removed: its channels there
     * fail, connections that closed but linger are torn down, its completion queues there are freed.
     */
    private void dropDevice(RdmaDevice device) {
        closeChannelsOn.accept(device);
        for (Map.Entry<Runnable, RdmaDevice> entry : new ArrayList<>(lingering.entrySet())) {
            if (entry.getValue() == device) {
                entry.getKey().run();
            }
        }
        for (int i = completionQueueList.size() - 1; i >= 0; i--) {
            CompletionQueue cq = completionQueueList.get(i);
            if (cq.device() == device) {
                completionQueueList.remove(i);
                int index = resources.indexOf(cq);
                registrations.remove(index).cancel();
                resources.remove(index);
                cq.close();
            }
        }
        devices.remove(device);
        device.release(this);
    }

    /** Frees the loop's CQs and event channel; the channels on the loop are closed already. */
    public void close() {
        for (Runnable teardown : new ArrayList<>(lingering.keySet())) {
            teardown.run();
        }
        lingering.clear();
        for (IoRegistration registration : registrations) {
            registration.cancel();
        }
        registrations.clear();
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
