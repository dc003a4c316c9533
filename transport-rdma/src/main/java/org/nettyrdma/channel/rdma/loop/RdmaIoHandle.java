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

import io.netty.channel.IoHandle;
import org.nettyrdma.channel.rdma.memory.RdmaDevice;

/**
 * The handle an RDMA channel registers with {@code RdmaIoHandler}. It has no fd of its own: the loop
 * hands it the work completions of its queue pair and the RDMA CM events of its ids as
 * {@link RdmaIoEvent}s, found by the id of its {@link RdmaIoRegistration}. Called on the loop.
 */
public interface RdmaIoHandle extends IoHandle {

    /**
     * Returns the work requests the handle posted that have not completed: a cancelled registration
     * leaves the loop only when this is 0.
     */
    int outstandingWorkRequests();

    /**
     * {@code device} is being removed: a channel with anything on it fails and frees it now, without
     * waiting for its peer or its outstanding work requests.
     */
    void deviceRemoved(RdmaDevice device);

    /**
     * The device reported {@code cq} in error: a channel whose work completes into it fails with
     * {@link CompletionQueue#failure()}; the others go on.
     */
    default void completionQueueFailed(CompletionQueue cq) {
    }

    /**
     * The loop is being destroyed: the channel frees everything native now, without waiting for its
     * outstanding work requests, since no more completions will be handled.
     */
    void freeNow();
}
