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

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import com.ibm.disni.util.MemoryUtils;

/**
 * A direct buffer registered with a device: the only memory the device may touch, and, with remote
 * access, the only memory a peer may write. {@link #close()} deregisters it; the Java buffer stays
 * valid for as long as something refers to it, so bytes already handed up the pipeline remain
 * readable after the connection closed, while the peer has lost all access.
 *
 * <p>Counts every live registration process-wide ({@link #liveRegistrations()},
 * {@link #liveBytes()}), so tests can check that no memory region outlives its channel.
 * Not thread-safe except for the counters.
 */
public final class RegisteredBuffer implements AutoCloseable {

    /** {@code IBV_ACCESS_LOCAL_WRITE}: the device may write into it (receives, RDMA Read targets). */
    public static final int LOCAL_WRITE = 1;
    /** {@code IBV_ACCESS_REMOTE_WRITE}: a peer holding the rkey may RDMA Write into it. */
    public static final int REMOTE_WRITE = 2;

    private static final AtomicInteger LIVE_REGISTRATIONS = new AtomicInteger();
    private static final AtomicLong LIVE_BYTES = new AtomicLong();

    private final ByteBuffer buffer;
    private final long address;
    private final long mr;
    private final int lkey;
    private final int rkey;
    private boolean closed;

    /** Allocates {@code size} bytes of direct memory and registers them with {@code access}. */
    public RegisteredBuffer(RdmaDevice device, int size, int access) throws IOException {
        buffer = ByteBuffer.allocateDirect(size);
        address = MemoryUtils.getAddress(buffer);
        ByteBuffer keys = ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder());
        long keysAddress = MemoryUtils.getAddress(keys);
        mr = DisniNative.dispatcher()._regMr(device.pd(), address, size, access, keysAddress, keysAddress + 4,
                keysAddress + 8);
        lkey = keys.getInt(0);
        rkey = keys.getInt(4);
        LIVE_REGISTRATIONS.incrementAndGet();
        LIVE_BYTES.addAndGet(size);
    }

    /** Returns the registered memory; its position and limit are the caller's to use. */
    public ByteBuffer buffer() {
        return buffer;
    }

    /** Returns the virtual address of the first byte. */
    public long address() {
        return address;
    }

    /** Returns the size in bytes. */
    public int size() {
        return buffer.capacity();
    }

    /** Returns the local key, for scatter/gather entries. */
    public int lkey() {
        return lkey;
    }

    /** Returns the remote key: whoever holds it may access the buffer as the registration allows. */
    public int rkey() {
        return rkey;
    }

    /** Deregisters the memory; from then on neither the device nor a peer can access it. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        LIVE_REGISTRATIONS.decrementAndGet();
        LIVE_BYTES.addAndGet(-buffer.capacity());
        DisniNative.dispatcher()._deregMr(mr);
    }

    /** Returns the number of registrations not yet closed, process-wide. */
    public static int liveRegistrations() {
        return LIVE_REGISTRATIONS.get();
    }

    /** Returns the bytes registered and not yet deregistered, process-wide. */
    public static long liveBytes() {
        return LIVE_BYTES.get();
    }
}
