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
package org.nettyrdma.channel.rdma;

import java.util.concurrent.TimeUnit;

import org.nettyrdma.channel.rdma.connection.RdmaConnection;
import org.nettyrdma.channel.rdma.loop.CompletionQueue;
import org.nettyrdma.channel.rdma.loop.LoopProbe;

/**
 * Fails the completion queue a channel's queue pair has to itself, as the loop does when the device
 * reports it in error, for device tests outside this package. Runs on the channel's event loop.
 */
public final class CompletionQueueProbe {

    private CompletionQueueProbe() {
    }

    /**
     * Fails the completion queue that {@code channel}'s work completes into and {@code other}'s does
     * not, and returns the name of its device.
     *
     * @throws IllegalStateException if the two channels share every queue, or one has no connection
     */
    public static String failOwnQueue(RdmaSocketChannel channel, RdmaSocketChannel other) throws Exception {
        if (channel.eventLoop() != other.eventLoop()) {
            throw new IllegalArgumentException("the channels are on different loops");
        }
        return channel.eventLoop().submit(() -> {
            RdmaConnection connection = channel.connection;
            RdmaConnection otherConnection = other.connection;
            if (connection == null || otherConnection == null) {
                throw new IllegalStateException("no connection: " + channel + ", " + other);
            }
            for (CompletionQueue cq : LoopProbe.completionQueues(channel.loop)) {
                if (connection.completesInto(cq) && !otherConnection.completesInto(cq)) {
                    LoopProbe.failCompletionQueue(channel.loop, cq);
                    return cq.device().name();
                }
            }
            throw new IllegalStateException(channel + " has no completion queue of its own");
        }).get(30, TimeUnit.SECONDS);
    }
}
