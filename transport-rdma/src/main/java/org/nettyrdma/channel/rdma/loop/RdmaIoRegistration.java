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

import io.netty.channel.IoOps;
import io.netty.channel.IoRegistration;
import org.nettyrdma.channel.rdma.internal.WorkRequests;

/**
 * The registration of an RDMA channel with its loop. It has no fd: its id travels in the
 * {@code wr_id} of every work request the channel posts ({@link WorkRequests}) and names the
 * channel's RDMA CM ids, and the loop hands each completion and CM event to the channel's
 * {@link RdmaIoHandle#handle handle} with this registration.
 *
 * <p>A cancelled registration stays with the loop until the handle has no work request outstanding:
 * the completions of requests still in flight (flushed when the queue pair goes to the error state)
 * reach the channel that posted them, which frees its queue pair only then. Used on its loop only.
 */
public final class RdmaIoRegistration implements IoRegistration {

    private final RdmaLoop loop;
    private final RdmaIoHandle handle;
    private final int id;
    private boolean valid = true;
    private boolean removed;

    RdmaIoRegistration(RdmaLoop loop, RdmaIoHandle handle, int id) {
        this.loop = loop;
        this.handle = handle;
        this.id = id;
    }

    /** Returns the id the channel's work requests carry. */
    public int id() {
        return id;
    }

    /** Returns the channel's handle. */
    public RdmaIoHandle handle() {
        return handle;
    }

    /** Returns the loop's shared RDMA state. */
    public RdmaLoop loop() {
        return loop;
    }

    /**
     * Returns this registration itself: the event loop hands the channel a wrapper of it, through
     * which the channel reaches the id and the loop.
     */
    @SuppressWarnings("unchecked")
    @Override
    public <T> T attachment() {
        return (T) this;
    }

    /**
     * Refuses: an RDMA registration has no fd whose interest could change. Its channel's work
     * requests reach it because their chains carry its {@link #id()} ({@link WorkRequests#claim}).
     */
    @Override
    public long submit(IoOps ops) {
        throw new UnsupportedOperationException("an RDMA registration takes no " + ops
                + ": its channel's work requests carry its id (WorkRequests.claim)");
    }

    @Override
    public boolean isValid() {
        return valid;
    }

    /**
     * Cancels the registration: it takes no more work, and leaves the loop once the handle's
     * outstanding work requests have completed.
     */
    @Override
    public boolean cancel() {
        if (!valid) {
            return false;
        }
        valid = false;
        removeIfDrained();
        return true;
    }

    /** Hands {@code event} to the handle; a cancelled registration then leaves if that was its last request. */
    void handle(RdmaIoEvent event) {
        handle.handle(this, event);
        removeIfDrained();
    }

    /** Leaves the loop if cancelled and the handle has no work request outstanding. */
    public void removeIfDrained() {
        if (!valid && !removed && handle.outstandingWorkRequests() == 0) {
            remove();
        }
    }

    /** Leaves the loop now, drained or not: the loop or the device is going away. */
    void remove() {
        if (removed) {
            return;
        }
        valid = false;
        removed = true;
        loop.removeRegistration(this);
        handle.unregistered();
    }

    @Override
    public String toString() {
        return "RdmaIoRegistration(" + id + ", " + handle + ')';
    }
}
