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

/** Whether the output half of a stream channel is shut, and why. */
enum OutputHalf {
    /** The channel writes to the peer. */
    OPEN,
    /** This side shut its output down: a {@code SHUTDOWN_OUTPUT} follows the data already posted. */
    SHUT_DOWN,
    /**
     * The writes failed with {@code AUTO_CLOSE} off, because the peer reads nothing more: Netty shuts
     * the output down, as after a TCP write error, and no {@code SHUTDOWN_OUTPUT} goes out.
     */
    FAILED;

    /** Returns {@code true} unless the output is {@link #OPEN}. */
    boolean isShut() {
        return this != OPEN;
    }
}
