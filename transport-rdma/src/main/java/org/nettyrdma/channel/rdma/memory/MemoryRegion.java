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
package org.nettyrdma.channel.rdma.memory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.nettyrdma.channel.rdma.internal.DisniNative;
import org.nettyrdma.channel.rdma.internal.RdmaNative;

/**
 * A registration ({@code ibv_mr}) of memory in one protection domain, counted against the
 * {@link RegisteredMemoryBudget} while registered: of a {@link RegisteredBuffer}'s memory, or of the
 * bytes of an application's buffer exposed to a peer, in its connection's protection domain with
 * exactly the access granted and exactly its bounds, which is what the device enforces
 * (docs/one-sided.md#isolation). Not thread-safe.
 */
public final class MemoryRegion implements AutoCloseable {

    /** {@code IBV_ACCESS_LOCAL_WRITE}: needed by any remote write or atomic access. */
    public static final int LOCAL_WRITE = 1;
    /** {@code IBV_ACCESS_REMOTE_WRITE}. */
    public static final int REMOTE_WRITE = 2;
    /** {@code IBV_ACCESS_REMOTE_READ}. */
    public static final int REMOTE_READ = 4;
    /** {@code IBV_ACCESS_REMOTE_ATOMIC}. */
    public static final int REMOTE_ATOMIC = 8;

    private final long mr;
    private final int lkey;
    private final int rkey;
    private final int length;
    private boolean closed;

    private MemoryRegion(long mr, int lkey, int rkey, int length) {
        this.mr = mr;
        this.lkey = lkey;
        this.rkey = rkey;
        this.length = length;
    }

    /**
     * Registers {@code length} bytes at {@code address} in protection domain {@code pd} with
     * {@code access} ({@link #REMOTE_READ} and the others).
     *
     * @param what what the memory is for, for the message when the budget refuses it
     * @throws IOException if the budget or the device refuses it
     */
    public static MemoryRegion register(long pd, long address, int length, int access, String what)
            throws IOException {
        if (!RegisteredMemoryBudget.tryReserve(length)) {
            throw RegisteredMemoryBudget.refusal(what, length);
        }
        try {
            ByteBuffer keys = ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder());
            long keysAddress = RdmaNative.directBufferAddress(keys);
            long mr = DisniNative.dispatcher()._regMr(pd, address, length, access, keysAddress, keysAddress + 4,
                    keysAddress + 8);
            RegisteredMemoryBudget.registered();
            return new MemoryRegion(mr, keys.getInt(0), keys.getInt(4), length);
        } catch (IOException | RuntimeException e) {
            RegisteredMemoryBudget.release(length);
            throw e;
        }
    }

    /** Returns the local key. */
    public int lkey() {
        return lkey;
    }

    /** Returns the {@code ibv_mr*}. */
    public long mr() {
        return mr;
    }

    /** Returns the remote key, which a peer names to reach the memory. */
    public int rkey() {
        return rkey;
    }

    /**
     * Deregisters the memory: once this returns, the device refuses the remote key, and requests that
     * name it fail. A deregistration the device refuses is counted
     * ({@link RegisteredMemoryBudget#failedDeregistrations()}), and the budget keeps the bytes.
     */
    @Override
    public void close() {
        deregister();
    }

    /**
     * Deregisters the memory, as {@link #close()}.
     *
     * @return {@code false} if the device refused: the memory is still registered, and must never be
     *         freed, since the device could still write into it
     */
    public boolean deregister() {
        if (closed) {
            return true;
        }
        closed = true;
        try {
            DisniNative.dispatcher()._deregMr(mr);
        } catch (IOException e) {
            RegisteredMemoryBudget.deregistrationFailed();
            return false;
        }
        RegisteredMemoryBudget.release(length);
        return true;
    }
}
