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

import java.util.List;

/**
 * Reaches a loop's completion queues for device tests outside this package: which are open, and the
 * loop's handling of a queue the device reported in error. Call on the loop's thread.
 */
public final class LoopProbe {

    private LoopProbe() {
    }

    /** Returns the completion queues of {@code loop} now. */
    public static List<CompletionQueue> completionQueues(RdmaLoop loop) {
        return loop.completionQueues();
    }

    /**
     * Handles {@code cq} as the loop does on {@code IBV_EVENT_CQ_ERR}: rxe raises the event only on an
     * overrun, which the transport no longer makes (docs/decisions.md#completion-queue-bound).
     */
    public static void failCompletionQueue(RdmaLoop loop, CompletionQueue cq) {
        loop.completionQueueFailed(cq);
    }
}
