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
 * The keep-alive's view of a connection (SO_KEEPALIVE): whether anything completed between two
 * looks, so that only a connection that was idle for a whole period is probed. The probe itself is
 * {@link RdmaSender#probe()}; its own completion is no sign of the peer's activity
 * (docs/decisions.md#keep-alive).
 *
 * <p>Not thread-safe: used on the channel's event loop only.
 */
final class KeepAlive {

    private long completions;
    private long completionsAtLastLook;

    /** Counts a successful work completion. */
    void completed() {
        completions++;
    }

    /** Returns {@code true} if nothing completed since the last look, and starts a new period. */
    boolean idleSinceLastLook() {
        boolean idle = completions == completionsAtLastLook;
        completionsAtLastLook = completions;
        return idle;
    }

    /** Accounts for a probe just posted: its completion in the next period does not count as activity. */
    void probed() {
        completionsAtLastLook = completions + 1;
    }
}
