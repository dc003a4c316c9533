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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.memory.MemoryRegion;
import org.nettyrdma.channel.rdma.memory.ProtectionDomain;

/**
 * Memory a channel exposed to its peer ({@link OneSidedOperations#expose}): the readable bytes of a
 * buffer of {@link OneSidedOperations#allocateExposable}, whose memory never moves, registered in
 * the connection's own protection domain with the access granted. The peer reaches them with the
 * {@link #descriptor()} it was sent, on this connection only, until {@link #revoke()} or the
 * channel's close; the buffer is held meanwhile and released after.
 */
public final class ExposedRegion {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(ExposedRegion.class);
    /** Regions the device would not deregister: held here so that their buffers are never freed. */
    private static final Set<ExposedRegion> STRANDED = ConcurrentHashMap.newKeySet();
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private final EventLoop eventLoop;
    private final ByteBuf buffer;
    private final RemoteRegion descriptor;
    private final MemoryRegion region;
    private final ProtectionDomain pd;
    private final Runnable forget;
    private volatile boolean revoked;

    ExposedRegion(EventLoop eventLoop, ByteBuf buffer, RemoteRegion descriptor, MemoryRegion region,
                  ProtectionDomain pd, Runnable forget) {
        this.eventLoop = eventLoop;
        this.buffer = buffer;
        this.descriptor = descriptor;
        this.region = region;
        this.pd = pd;
        this.forget = forget;
    }

    /** Returns what the peer needs to reach the region: send it to the peer however the application likes. */
    public RemoteRegion descriptor() {
        return descriptor;
    }

    /**
     * Returns the exposed bytes, which the peer may read, write or update as granted while exposed:
     * what this side reads of them may change under it.
     */
    public ByteBuf buffer() {
        return buffer;
    }

    /** Returns {@code true} once revoked, by {@link #revoke()} or the channel's close. */
    public boolean isRevoked() {
        return revoked;
    }

    /**
     * Revokes the exposure: once the future completes the device refuses the key, a request of the
     * peer in flight either completed before or fails, and the buffer is released. A revoked
     * exposure is never valid again; revoking again does nothing.
     */
    public Future<Void> revoke() {
        Promise<Void> promise = eventLoop.newPromise();
        if (eventLoop.inEventLoop()) {
            revokeNow();
            promise.setSuccess(null);
        } else {
            eventLoop.execute(() -> {
                revokeNow();
                promise.setSuccess(null);
            });
        }
        return promise;
    }

    /**
     * Deregisters the memory and releases the buffer; on the event loop. If the device refuses the
     * deregistration, the peer may still reach the memory: the buffer and the domain are kept for the
     * life of the process, never released to be freed or reused ({@link RdmaMemoryMetrics#failedDeregistrations()}
     * counts them).
     */
    void revokeNow() {
        if (revoked) {
            return;
        }
        revoked = true;
        try {
            if (region.deregister()) {
                pd.release();
                buffer.release();
            } else {
                STRANDED.add(this);
                if (WARNED.compareAndSet(false, true)) {
                    logger.warn("the device refused to deregister {}: its buffer stays allocated and is never "
                            + "released, since the peer may still reach it; RdmaMemoryMetrics.failedDeregistrations() "
                            + "counts such regions, this warning is logged once", this);
                }
            }
        } finally {
            forget.run();
        }
    }

    @Override
    public String toString() {
        return "ExposedRegion(" + descriptor + (revoked ? ", revoked)" : ")");
    }
}
