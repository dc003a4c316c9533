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

import io.netty.buffer.Unpooled;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

/**
 * Blocks of one connection, each registered for it alone when taken and deregistered when given
 * back, where the shared pool's cannot serve: in the connection's own protection domain
 * ({@link ProtectionDomain}), whose keys the pool's slabs do not have, or with local write access,
 * for the device to land RDMA Read data and atomic results in, which the pool's slabs do not grant.
 * {@link SendBlocks} keeps a spare between uses, so a steady exchange registers nothing per request.
 */
public final class RegisteredBlocks implements SendBlocks.Source {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RegisteredBlocks.class);

    private final RdmaDevice device;
    private final ProtectionDomain own;
    private final int access;
    private final String what;

    /**
     * Creates the source of blocks registered with {@code access} in {@code own}, a connection's
     * protection domain, which each block holds until given back, or in the device's shared domain if
     * {@code own} is {@code null}.
     */
    public RegisteredBlocks(RdmaDevice device, ProtectionDomain own, int access, String what) {
        this.device = device;
        this.own = own;
        this.access = access;
        this.what = what;
    }

    @Override
    public StagingBlock take(int size) {
        return takeOwn(size);
    }

    @Override
    public StagingBlock takeOwn(int size) {
        try {
            RegisteredBuffer block = new RegisteredBuffer(own != null ? own.handle() : device.pd(), size, access, what);
            if (own != null) {
                own.retain();
            }
            return new StagingBlock(Unpooled.wrappedBuffer(block.buffer()), block.address(), block.lkey(), block);
        } catch (IOException e) {
            logger.debug("no block of {} bytes for {} on {}", size, what, device, e);
            return null;
        }
    }

    @Override
    public boolean registersEachBlock() {
        return true;
    }

    @Override
    public void give(StagingBlock block) {
        ((RegisteredBuffer) block.registration()).close();
        if (own != null) {
            own.release();
        }
    }
}
