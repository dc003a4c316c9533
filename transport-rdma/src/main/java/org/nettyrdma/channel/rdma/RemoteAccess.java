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

import java.util.Set;

import org.nettyrdma.channel.rdma.memory.MemoryRegion;

/**
 * What a peer may do with a region a channel exposed to it ({@link OneSidedOperations#expose}): each
 * grants the one-sided operations of that name, which the device checks on every request.
 */
public enum RemoteAccess {
    /** RDMA Read: {@link OneSidedOperations#read}. */
    READ(1, MemoryRegion.REMOTE_READ),
    /** RDMA Write: {@link OneSidedOperations#write}. */
    WRITE(2, MemoryRegion.REMOTE_WRITE | MemoryRegion.LOCAL_WRITE),
    /** Atomics on 8-byte words: {@link OneSidedOperations#compareAndSwap}, {@link OneSidedOperations#fetchAndAdd}. */
    ATOMIC(4, MemoryRegion.REMOTE_ATOMIC | MemoryRegion.LOCAL_WRITE);

    /** The bit of this access in a {@link RemoteRegion}'s encoding. */
    final int bit;
    /** The {@code ibv_access_flags} that grant it. */
    final int verbsFlags;

    RemoteAccess(int bit, int verbsFlags) {
        this.bit = bit;
        this.verbsFlags = verbsFlags;
    }

    /** Returns the encoding bits of {@code access}. */
    static int bits(Set<RemoteAccess> access) {
        int bits = 0;
        for (RemoteAccess a : access) {
            bits |= a.bit;
        }
        return bits;
    }

    /** Returns the {@code ibv_access_flags} that grant {@code access} and nothing more. */
    static int verbsFlags(Set<RemoteAccess> access) {
        int flags = 0;
        for (RemoteAccess a : access) {
            flags |= a.verbsFlags;
        }
        return flags;
    }
}
