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
 * Whether the input half of a stream channel is shut, and who shut it. A shut input drops what still
 * arrives (and returns its slots, so the peer is not stalled); the pipeline hears nothing more.
 */
enum InputHalf {
    /** The channel reads what the peer sends. */
    OPEN,
    /** This side shut its input down ({@code shutdownInput()}): the peer cannot be told, so it may still send. */
    SHUT_DOWN,
    /**
     * The peer's end of input was read (its {@code SHUTDOWN_OUTPUT}, {@code CLOSE} or disconnect) with
     * half-closure allowed: the pipeline saw the input shutdown events.
     */
    ENDED;

    /** Returns {@code true} unless the input is {@link #OPEN}. */
    boolean isShut() {
        return this != OPEN;
    }
}
