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

import io.netty.buffer.ByteBuf;
import org.nettyrdma.channel.rdma.memory.RdmaDevice;
import org.nettyrdma.channel.rdma.memory.SendBlocks;

/**
 * What a connection takes from the process's registered allocator, which the public package owns: the
 * pool's blocks to stage copied sends in, and Netty's leak detector for the receive slots and ring
 * pieces it hands up in place. Given to the {@link RdmaConnection} when it is made, so that the allocator keeps both out of its
 * public API. Called on the connection's event loop.
 */
public interface PooledMemory {

    /**
     * Returns where a connection on {@code device} takes the blocks it stages its copied sends in,
     * counted against the pool's limit and the registered memory limit like any buffer of the pool.
     */
    SendBlocks.Source stagingBlocks(RdmaDevice device);

    /** Returns {@code buf} as the leak detector tracks the allocator's own buffers. */
    ByteBuf trackLeaks(ByteBuf buf);
}
