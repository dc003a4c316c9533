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

import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoop;
import org.nettyrdma.channel.rdma.memory.RegionByteBuf;
import org.nettyrdma.channel.rdma.memory.RegisteredBuffer;

/**
 * The receive slots a connection lends to its pipeline: a Send's payload handed up where it landed,
 * in a buffer that gives the slot back when it is released (docs/decisions.md#lend-received-slots).
 * A completed receive is out of the peer's reach until the slot is posted again, so the bytes stay
 * still without a copy.
 *
 * <p>A lent slot is not posted, and the peer's credit for it does not come back, until the pipeline
 * releases it: a pipeline that keeps what it reads would stop its peer. So at most half the peer's
 * share is lent ({@link #mayLend}); beyond that the reader copies. The other half keeps the peer
 * sending, and the slots of other connections are not touched: a share is the connection's own, in a
 * queue of its own or the loop's, and its slots are registered whether lent or posted.
 *
 * <p>Lends on the channel's event loop; a buffer may be released on any thread, and the slot comes
 * back on the loop. A loan record is reused once its slot is back, so the steady state allocates
 * nothing here.
 */
final class SlotLoans {

    /** Takes a lent slot back, on the loop. */
    interface Returns {
        /** The pipeline released the buffer over {@code slot}. */
        void slotReturned(int slot);
    }

    private final EventLoop eventLoop;
    private final Returns returns;
    private final ArrayDeque<Loan> spare = new ArrayDeque<>();
    private int lent;

    /** Creates the loans of slots whose returns go to {@code returns} on {@code eventLoop}. */
    SlotLoans(EventLoop eventLoop, Returns returns) {
        this.eventLoop = eventLoop;
        this.returns = returns;
    }

    /**
     * Returns {@code true} if another slot may go up while {@code lent} are lent out of a share of
     * {@code share}: fewer than half the share (at least one slot) are.
     */
    static boolean mayLend(int lent, int share) {
        return lent < Math.max(1, share / 2);
    }

    /** Returns {@code true} if another slot may go up now, out of a share of {@code share}. */
    boolean mayLend(int share) {
        return mayLend(lent, share);
    }

    /** Returns the slots lent now. */
    int lent() {
        return lent;
    }

    /**
     * Returns a buffer over the {@code length} bytes at {@code offset} of {@code region}, the
     * registered region that holds {@code slot}: the buffer holds the region's memory, and gives the
     * slot back once released.
     */
    ByteBuf lend(ByteBufAllocator alloc, RegisteredBuffer region, int slot, int offset, int length) {
        Loan loan = spare.poll();
        if (loan == null) {
            loan = new Loan();
        }
        // Held until the buffer is released: the queue may be destroyed, and its regions deregistered, before.
        region.retainMemory();
        loan.region = region;
        lent++;
        return RegionByteBuf.ofRegion(alloc, region.buffer(), offset, length, loan, slot);
    }

    private void returned(Loan loan, int slot) {
        lent--;
        loan.region = null;
        spare.add(loan);
        returns.slotReturned(slot);
    }

    /** One slot lent: what its buffer lets go of when released. */
    private final class Loan implements RegionByteBuf.Releaser {
        /** Written on the loop before the buffer is handed up, read where the buffer is released. */
        private RegisteredBuffer region;

        @Override
        public void release(long token) {
            // The memory first, on the releasing thread: a loop that is gone takes no task.
            region.releaseMemory();
            int slot = (int) token;
            if (eventLoop.inEventLoop()) {
                returned(this, slot);
                return;
            }
            try {
                eventLoop.execute(() -> returned(this, slot));
            } catch (RejectedExecutionException e) {
                // The loop is gone, and the queue and connection with it: no one takes the slot back.
            }
        }
    }
}
