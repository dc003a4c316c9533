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
import java.util.concurrent.atomic.AtomicLong;

import io.netty.util.internal.SystemPropertyUtil;

/**
 * The process-wide bound on registered memory: every registration the transport makes (connection
 * buffers, receive rings, the allocator's slabs, once per device) reserves its bytes here first.
 * Registered memory is pinned, and a peer can make a server register memory just by connecting, so
 * it is bounded before the kernel's memlock limit is reached and a registration fails with a less
 * telling {@code ENOMEM}.
 *
 * <p>The limit is {@value #LIMIT_PROPERTY} (bytes), 1 GiB by default. Thread-safe.
 */
public final class RegisteredMemoryBudget {

    /** The system property that sets the limit, in bytes. */
    public static final String LIMIT_PROPERTY = "org.nettyrdma.maxRegisteredMemory";

    private static final long LIMIT = SystemPropertyUtil.getLong(LIMIT_PROPERTY, 1L << 30);
    private static final AtomicLong USED = new AtomicLong();
    private static final AtomicLong REFUSED = new AtomicLong();
    private static final AtomicLong FAILED_DEREGISTRATIONS = new AtomicLong();
    private static final AtomicLong REGISTRATIONS_MADE = new AtomicLong();

    private RegisteredMemoryBudget() {
    }

    /**
     * Reserves {@code bytes} if they fit under the limit.
     *
     * @return {@code false}, counted as refused, if they do not
     */
    public static boolean tryReserve(long bytes) {
        for (;;) {
            long used = USED.get();
            if (used + bytes > LIMIT) {
                REFUSED.incrementAndGet();
                return false;
            }
            if (USED.compareAndSet(used, used + bytes)) {
                return true;
            }
        }
    }

    /**
     * Returns {@code true} if {@code bytes} would fit under the limit now, without reserving them;
     * {@code false}, counted as refused, if not.
     */
    public static boolean hasRoom(long bytes) {
        if (USED.get() + bytes > LIMIT) {
            REFUSED.incrementAndGet();
            return false;
        }
        return true;
    }

    /** Returns bytes reserved with {@link #tryReserve(long)}. */
    public static void release(long bytes) {
        USED.addAndGet(-bytes);
    }

    /** Counts a registration the device made ({@code ibv_reg_mr} succeeded). */
    public static void registered() {
        REGISTRATIONS_MADE.incrementAndGet();
    }

    /** Returns how many registrations the device made so far, process-wide. */
    public static long registrationsMade() {
        return REGISTRATIONS_MADE.get();
    }

    /** Counts a deregistration the device refused: its memory stays pinned until the process ends. */
    static void deregistrationFailed() {
        FAILED_DEREGISTRATIONS.incrementAndGet();
    }

    /** Returns the bytes registered now, process-wide. */
    public static long used() {
        return USED.get();
    }

    /** Returns the limit in bytes. */
    public static long limit() {
        return LIMIT;
    }

    /** Returns how many registrations were refused because they would have passed the limit. */
    public static long refused() {
        return REFUSED.get();
    }

    /** Returns how many deregistrations failed. */
    public static long failedDeregistrations() {
        return FAILED_DEREGISTRATIONS.get();
    }

    /** Returns the exception for a registration of {@code bytes} for {@code what} that the limit refused. */
    public static LimitReachedException refusal(String what, long bytes) {
        return new LimitReachedException("registered memory limit reached: " + what + " needs "
                + mebibytes(bytes) + ", " + mebibytes(USED.get()) + " of " + mebibytes(LIMIT)
                + " are registered (-D" + LIMIT_PROPERTY + " raises the limit)");
    }

    /** A registration the limit refused: the connection that needed it fails with this. */
    public static final class LimitReachedException extends IOException {
        private static final long serialVersionUID = 1L;

        LimitReachedException(String message) {
            super(message);
        }
    }

    private static String mebibytes(long bytes) {
        return String.format(java.util.Locale.ROOT, "%.2f MiB", bytes / (double) (1 << 20));
    }
}
