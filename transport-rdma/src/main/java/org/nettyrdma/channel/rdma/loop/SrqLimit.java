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
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.channel.rdma.memory.RdmaDevice;

/**
 * The {@code srq_limit} of a shared receive queue and the device's events for the queue: once fewer
 * receives than the limit are left posted, the device raises {@code IBV_EVENT_SRQ_LIMIT_REACHED} and
 * disarms the limit; the event runs the queue's refill on its loop, which arms the limit again. An
 * error event is logged: the queue pairs on the queue fail with their own completions.
 *
 * <p>Arming is a system call, so the limit is armed again only when the queue's low-water mark doubled
 * since, not at every reservation. A queue whose events are not {@linkplain #watch watched} never
 * arms it.
 *
 * <p>Used on the loop's thread only, but for the device's event thread handing an event over.
 */
final class SrqLimit {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(SrqLimit.class);
    private static final AtomicLong EVENTS = new AtomicLong();

    private final RdmaDevice device;
    private final long srq;
    /** What a limit event runs, on the loop; {@code null} while the events are not watched. */
    private Runnable refill;
    /** The limit armed on the device, 0 while none is (the event disarms it). */
    private int armed;
    private boolean closed;

    /** Creates the limit, not armed, of {@code srq}, an {@code ibv_srq*} of {@code device}. */
    SrqLimit(RdmaDevice device, long srq) {
        this.device = device;
        this.srq = srq;
    }

    /** Returns the limit events ({@code IBV_EVENT_SRQ_LIMIT_REACHED}) handled so far, process-wide. */
    static long events() {
        return EVENTS.get();
    }

    /**
     * Hands the device's events for the queue to {@code loop}: a limit event runs {@code refill}, an
     * error is logged. Call once, after the queue is made.
     */
    void watch(Executor loop, Runnable refill) {
        this.refill = refill;
        device.asyncEvents().watch(srq, type -> {
            try {
                loop.execute(() -> onEvent(type));
            } catch (RejectedExecutionException e) {
                // The loop is stopping: the queue goes with it.
            }
        });
    }

    private void onEvent(int type) {
        if (closed) {
            return;
        }
        if (type == RdmaNative.EVENT_SRQ_LIMIT_REACHED) {
            EVENTS.incrementAndGet();
            armed = 0;
            refill.run();
        } else {
            logger.warn("a shared receive queue of the RDMA device {} failed (async event {})", device.name(), type);
        }
    }

    /**
     * Arms the limit at {@code lowWaterMark} ({@link SharedSlots#lowWaterMark()}) if it is not armed or
     * the mark doubled since it was.
     */
    void arm(int lowWaterMark) {
        if (closed || refill == null || armed != 0 && lowWaterMark < 2 * armed) {
            return;
        }
        try {
            RdmaNative.armSrqLimit(srq, lowWaterMark);
            armed = lowWaterMark;
        } catch (IOException e) {
            // The queue works without the event; only the early refill is lost.
            logger.debug("arming the limit event of a shared receive queue of {} failed", device, e);
        }
    }

    /** Stops handing the device's events over: before the queue is destroyed. */
    void close() {
        closed = true;
        device.asyncEvents().unwatch(srq);
    }
}
