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

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.internal.DisniNative;

/**
 * A protection domain ({@code ibv_pd}) of one connection that exposes memory to its peer: a key
 * registered in it works on the queue pair made in it and on no other, whatever the device's memory
 * windows do (docs/one-sided.md#isolation). Its queue pair, receive slots, staging blocks and exposed
 * regions each {@linkplain #retain hold} it, and it is freed when the last of them lets go, since a
 * domain with anything left in it cannot be freed. The device's shared domain is not one of these.
 *
 * <p>Used on the connection's event loop only.
 */
public final class ProtectionDomain {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(ProtectionDomain.class);

    private final RdmaDevice device;
    private final long pd;
    private int holds = 1;

    private ProtectionDomain(RdmaDevice device, long pd) {
        this.device = device;
        this.pd = pd;
    }

    /** Allocates a protection domain on {@code device}, held once by the caller. */
    public static ProtectionDomain allocate(RdmaDevice device) throws IOException {
        long pd = DisniNative.dispatcher()._allocPd(device.context());
        if (pd <= 0) {
            throw new IOException("ibv_alloc_pd failed on " + device);
        }
        return new ProtectionDomain(device, pd);
    }

    /** Returns the {@code ibv_pd*}. */
    public long handle() {
        return pd;
    }

    /** Returns the device. */
    public RdmaDevice device() {
        return device;
    }

    /** Adds a hold: something made in the domain that must be freed before it. */
    public ProtectionDomain retain() {
        if (holds == 0) {
            throw new IllegalStateException("the protection domain of a connection on " + device + " is freed");
        }
        holds++;
        return this;
    }

    /** Lets one hold go; the last frees the domain. */
    public void release() {
        if (holds == 0) {
            return;
        }
        if (--holds == 0) {
            int result = DisniNative.dispatcher()._deallocPd(pd);
            if (result != 0) {
                logger.warn("freeing the protection domain of a connection on {} returned {}", device, result);
            }
        }
    }
}
