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
package org.nettyrdma.channel.rdma.internal;

import io.netty.channel.IoHandle;

/**
 * The handle an RDMA channel registers with {@code RdmaIoHandler}. It has no fd of its own: its queue
 * pair's completions and its CM events reach it through the loop's shared completion queue and event
 * channel ({@link RdmaLoop}), which its registration's attachment gives access to.
 */
public interface RdmaIoHandle extends IoHandle {

    /**
     * {@code device} is being removed: a channel with anything on it fails and frees it now, without
     * waiting for its peer. Called on the channel's event loop.
     */
    default void deviceRemoved(RdmaDevice device) {
    }
}
