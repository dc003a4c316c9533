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

/**
 * Decides which send work requests of a chain are signaled: the chain's last, and one every
 * {@link #INTERVAL_BYTES} payload bytes before it. A completion covers every request up to its own,
 * so unsignaled requests cost no completion and are still accounted for.
 *
 * <p>Signaling inside a chain, not only its last request, lets each completion take a slice of the
 * flushed writes out of the outbound buffer instead of the whole window at once: a writer refills in
 * small steps while the rest is on the wire, and the recycled outbound entries and buffers it takes
 * back at each step stay few enough for the recyclers' thread-local batches: larger swings spill into
 * their queues, whose chunks are garbage (docs/decisions.md#signal-interval).
 *
 * <p>Not thread-safe: used on the channel's event loop only.
 */
final class SendSignals {

    /** Payload bytes that may go unsignaled in a chain before a request of it is signaled. */
    static final int INTERVAL_BYTES = 16 * 1024;

    private final int interval;
    private int unsignaledBytes;

    SendSignals() {
        this(INTERVAL_BYTES);
    }

    SendSignals(int interval) {
        this.interval = interval;
    }

    /**
     * Accounts for a request with {@code payload} bytes just added to the chain.
     *
     * @return {@code true} if that request is to be signaled
     */
    boolean added(int payload) {
        unsignaledBytes += payload;
        if (unsignaledBytes >= interval) {
            unsignaledBytes = 0;
            return true;
        }
        return false;
    }

    /** Accounts for the chain posted with its last request signaled: nothing is unsignaled any more. */
    void posted() {
        unsignaledBytes = 0;
    }
}
