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

/**
 * The receives of an event loop's receive queues, which its connections take their peers' Sends from
 * ({@link RdmaLoopMetrics#receiveQueues()}): how many the connections reserved for their peers'
 * credits, how many the queues keep for that (the reservations and a margin), how many are posted,
 * and how many hold messages not read yet. Posted and held together never fall below the target while
 * every slot a completion took comes back (docs/security.md): a target that posted and held do not
 * reach, on a loop at rest, means receives were lost, and the loop's peers will meet
 * receiver-not-ready errors.
 */
public final class RdmaReceiveQueueMetrics {

    static final RdmaReceiveQueueMetrics NONE = new RdmaReceiveQueueMetrics(0, 0, 0, 0);

    private final int reserved;
    private final int target;
    private final int posted;
    private final int held;

    /** Creates a snapshot of these counts; the transport takes them with {@link RdmaSocketChannel#loopMetrics()}. */
    public RdmaReceiveQueueMetrics(int reserved, int target, int posted, int held) {
        this.reserved = reserved;
        this.target = target;
        this.posted = posted;
        this.held = held;
    }

    /** Returns the receives the loop's connections reserved: the credits they granted their peers, and may grant. */
    public int reserved() {
        return reserved;
    }

    /** Returns the receives the queues keep posted or held: the reserved ones and a margin. */
    public int target() {
        return target;
    }

    /** Returns the receives posted now. */
    public int posted() {
        return posted;
    }

    /** Returns the receives that completed and hold a message the pipeline has not read yet. */
    public int held() {
        return held;
    }

    @Override
    public String toString() {
        return "receiveQueues(reserved: " + reserved + ", target: " + target + ", posted: " + posted + ", held: "
                + held + ')';
    }
}
