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
package org.nettyrdma.channel.rdma.connection;

import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.memory.RdmaDevice;

/**
 * Decides which receive queue a connection takes: its event loop's shared receive queue, where it
 * asked for one ({@code RdmaChannelOption.SHARED_RECEIVE_QUEUE}); else a shared receive queue of its
 * own (docs/decisions.md#receive-queue-per-connection); and on a device without shared receive queues
 * ({@code max_srq} 0, {@link org.nettyrdma.channel.rdma.memory.DeviceVerbs#sharedReceiveQueues()})
 * its queue pair's own receive queue, with the same slots, credits and bounds
 * (docs/decisions.md#receive-queue-of-the-queue-pair). There a request for the loop's queue is
 * ignored, and one log line per device says so (docs/decisions.md#shared-receive-queue-where-there-is-none).
 *
 * <p>The system property {@value #PROPERTY} is {@code auto} (the default: shared receive queues
 * where the device has them) or {@code never}: none on any device, as on one without them, so that
 * the device tests run that path on rxe. It is read at each connection, so a test can change it
 * between connections.
 */
final class ReceiveQueuePolicy {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(ReceiveQueuePolicy.class);

    /** The system property that turns shared receive queues off everywhere: {@code auto} or {@code never}. */
    static final String PROPERTY = "org.nettyrdma.sharedReceiveQueue";
    private static final String AUTO = "auto";

    /** Devices whose ignored request was logged: once per device and process is enough. */
    private static final Set<String> LOGGED = ConcurrentHashMap.newKeySet();

    private ReceiveQueuePolicy() {
        // static methods only
    }

    /**
     * Returns {@code true} unless {@value #PROPERTY} turns shared receive queues off on every device.
     *
     * @throws IllegalArgumentException if {@value #PROPERTY} is neither {@code auto} nor {@code never}
     */
    static boolean allowed() {
        return allowed(System.getProperty(PROPERTY, AUTO));
    }

    /**
     * Returns {@code true} unless {@code mode}, the value of {@value #PROPERTY}, turns shared receive
     * queues off on every device.
     *
     * @throws IllegalArgumentException if {@code mode} is neither {@code auto} nor {@code never}
     */
    static boolean allowed(String mode) {
        switch (mode.trim().toLowerCase(Locale.ROOT)) {
            case AUTO:
                return true;
            case "never":
                return false;
            default:
                throw new IllegalArgumentException("-D" + PROPERTY + '=' + mode + " (expected: auto or never)");
        }
    }

    /** Returns {@code true} if connections on {@code device} take their receives from shared receive queues. */
    static boolean sharedQueues(RdmaDevice device) {
        return sharedQueues(device.verbs().sharedReceiveQueues(), System.getProperty(PROPERTY, AUTO));
    }

    /**
     * Returns {@code true} if connections on a device that has shared receive queues, or not, take
     * their receives from them under {@code mode}, the value of {@value #PROPERTY}.
     *
     * @throws IllegalArgumentException if {@code mode} is neither {@code auto} nor {@code never}
     */
    static boolean sharedQueues(boolean deviceHasThem, String mode) {
        // The mode is checked whatever the device: a wrong value fails on every device alike.
        return allowed(mode) && deviceHasThem;
    }

    /**
     * Returns {@code true} if a connection on {@code device} that {@code asks} for its loop's shared
     * receive queue takes it; logs, once per device, a request it cannot grant.
     */
    static boolean takesLoopQueue(boolean asks, RdmaDevice device) {
        boolean shared = sharedQueues(device);
        if (asks && !shared && LOGGED.add(device.name())) {
            logger.info("RdmaChannelOption.SHARED_RECEIVE_QUEUE is ignored on the RDMA device {} ({}): each "
                    + "connection posts its receives to its queue pair's own receive queue", device.name(),
                    device.verbs().sharedReceiveQueues() ? "-D" + PROPERTY + '=' + System.getProperty(PROPERTY)
                            : "max_srq " + device.capabilities().maxSrq());
        }
        return asks && shared;
    }
}
