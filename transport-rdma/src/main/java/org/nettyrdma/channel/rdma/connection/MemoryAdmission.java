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
 * Decides whether a connection may hold more registered memory, beyond what it was admitted with:
 * its peer's receive share as it grows, and a ring when the peer asks for one. On a server it is
 * the bound on the connection's source address
 * ({@code RdmaChannelOption.MAX_REGISTERED_MEMORY_PER_ADDRESS}); a connecting channel has none.
 * The connection asks before it registers and tells when it deregisters, on its event loop.
 */
public interface MemoryAdmission {

    /** Admits every request: a connection bounded only by the process-wide limit. */
    MemoryAdmission UNBOUNDED = new MemoryAdmission() {
        @Override
        public boolean mayHoldMore(long bytes) {
            return true;
        }

        @Override
        public void heldLess(long bytes) {
        }
    };

    /**
     * Asks whether the connection may hold {@code bytes} more registered memory; if so they count
     * as held from now on, until {@link #heldLess} gives them back.
     */
    boolean mayHoldMore(long bytes);

    /** The connection holds {@code bytes} less registered memory than it was allowed. */
    void heldLess(long bytes);
}
