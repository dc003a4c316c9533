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
package org.nettyrdma.channel.rdma.memory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.internal.RdmaNative;

/**
 * Reads the async events of one device ({@code ibv_get_async_event} on its context), acknowledges
 * each at once, and hands those that name a completion queue or a shared receive queue to whoever
 * watches that queue ({@link #watch}); the others are logged once per type.
 *
 * <p>One daemon thread per device, not a loop's epoll: the async fd belongs to the device's context,
 * which every loop shares, and a loop's epoll would tie the device's events to that loop's life.
 * The thread waits in {@code poll} on the fd for at most {@value #POLL_MILLIS} ms at a time, so that
 * {@link #stop()} ends it before the context goes. Events are rare (an overrun, a queue running low),
 * so a thread that sleeps in {@code poll} costs nothing on the data path. Thread-safe.
 */
public final class AsyncEvents implements Runnable {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(AsyncEvents.class);
    private static final int POLL_MILLIS = 250;
    private static final long STOP_WAIT_MILLIS = 2 * POLL_MILLIS;
    private static final AtomicLong COMPLETION_QUEUE_ERRORS = new AtomicLong();

    private final RdmaDevice device;
    /** {@code ibv_cq*} or {@code ibv_srq*} to what is told of its events, on this thread. */
    private final Map<Long, IntConsumer> watchers = new ConcurrentHashMap<>();
    /** The event types logged already: each is logged once. */
    private final Map<Integer, Boolean> logged = new ConcurrentHashMap<>();
    private final Thread thread;
    private volatile boolean stopped;

    private AsyncEvents(RdmaDevice device) {
        this.device = device;
        thread = new Thread(this, "netty-rdma-async-events-" + device.name());
        thread.setDaemon(true);
    }

    /** Starts reading the async events of {@code device}. */
    static AsyncEvents start(RdmaDevice device) {
        AsyncEvents events = new AsyncEvents(device);
        events.thread.start();
        return events;
    }

    /**
     * Tells {@code watcher}, on this reader's thread, the type of each event that names
     * {@code handle}, an {@code ibv_cq*} or {@code ibv_srq*}, or an {@code ibv_qp*} for the errors of
     * a queue pair, until {@link #unwatch}.
     */
    public void watch(long handle, IntConsumer watcher) {
        watchers.put(handle, watcher);
    }

    /** Stops telling the watcher of {@code handle}: before the queue is destroyed. */
    public void unwatch(long handle) {
        watchers.remove(handle);
    }

    /** Returns the {@code IBV_EVENT_CQ_ERR} events read so far, process-wide. */
    public static long completionQueueErrors() {
        return COMPLETION_QUEUE_ERRORS.get();
    }

    /**
     * Ends the thread and waits for it, so that nothing reads the context once it is given up: at
     * most one poll's wait.
     */
    void stop() {
        stopped = true;
        if (Thread.currentThread() == thread) {
            return;
        }
        try {
            thread.join(STOP_WAIT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void run() {
        ByteBuffer element = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
        long elementAddress = RdmaNative.directBufferAddress(element);
        while (!stopped) {
            int type;
            try {
                type = RdmaNative.getAsyncEvent(device.context(), POLL_MILLIS, elementAddress);
            } catch (IOException e) {
                logger.warn("reading the async events of the RDMA device {} failed; they are not read any more",
                        device.name(), e);
                return;
            }
            if (type >= 0) {
                dispatch(type, element.getLong(0));
            }
        }
    }

    private void dispatch(int type, long element) {
        if (type == RdmaNative.EVENT_CQ_ERR) {
            COMPLETION_QUEUE_ERRORS.incrementAndGet();
        }
        boolean queueEvent = type == RdmaNative.EVENT_CQ_ERR || type == RdmaNative.EVENT_SRQ_ERR
                || type == RdmaNative.EVENT_SRQ_LIMIT_REACHED;
        // A queue pair's error usually comes with its completions too, but not always: on iWARP a
        // key refused at the target ends the connection with a TERMINATE and no completion in error.
        boolean queuePairError = type == RdmaNative.EVENT_QP_FATAL || type == RdmaNative.EVENT_QP_REQ_ERR
                || type == RdmaNative.EVENT_QP_ACCESS_ERR;
        IntConsumer watcher = queueEvent || queuePairError ? watchers.get(element) : null;
        if (watcher != null) {
            try {
                watcher.accept(type);
            } catch (RuntimeException e) {
                logger.warn("handling async event {} of the RDMA device {} failed", type, device.name(), e);
            }
            return;
        }
        // A queue pair's other events, and a port's or the device's, say nothing the transport acts on.
        // Logged once a type, not per event.
        if (logged.putIfAbsent(type, Boolean.TRUE) == null) {
            boolean failure = queueEvent || type == RdmaNative.EVENT_DEVICE_FATAL || type == RdmaNative.EVENT_PORT_ERR;
            String message = "async event {} (enum ibv_event_type) of the RDMA device {}, element 0x{};"
                    + " further events of this type are not logged";
            if (failure) {
                logger.warn(message, type, device.name(), Long.toHexString(element));
            } else {
                logger.debug(message, type, device.name(), Long.toHexString(element));
            }
        }
    }
}
