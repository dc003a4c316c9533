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

import java.nio.ByteBuffer;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;

/**
 * A region of a connection's receive ring handed up the pipeline without copying: the bytes the peer
 * RDMA-Wrote stay where they landed. When the last reference is released, {@link Releaser} gives the
 * region back, which lets the peer write there again.
 */
public final class RingRegionBuf extends UnpooledDirectByteBuf {

    /** Gives a ring region back; may be called on any thread. */
    public interface Releaser {
        /** Called once, when the buffer's reference count drops to zero. */
        void release(long token);
    }

    private final Releaser releaser;
    private final long token;

    /** Wraps {@code length} bytes of {@code ring} at {@code offset}, readable at once. */
    public RingRegionBuf(ByteBufAllocator alloc, ByteBuffer ring, int offset, int length, Releaser releaser,
                         long token) {
        super(alloc, ring.duplicate().limit(offset + length).position(offset), length);
        this.releaser = releaser;
        this.token = token;
    }

    @Override
    protected void deallocate() {
        super.deallocate();
        releaser.release(token);
    }
}
