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
 * in one or more pieces, the slot given back once all of it was read and every piece released
 * (docs/decisions.md#lend-received-slots).
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
     * Lends {@code slot}, which {@code region} holds, for pieces of its payload ({@link #piece}): it
     * comes back once {@link #allRead} was called and every piece was released.
     */
    Loan open(RegisteredBuffer region, int slot) {
        Loan loan = spare.poll();
        if (loan == null) {
            loan = new Loan();
        }
        loan.region = region;
        loan.slot = slot;
        loan.pieces = 0;
        loan.allRead = false;
        lent++;
        return loan;
    }

    /**
     * Returns a buffer over the {@code length} bytes at {@code offset} of the slot's region: it holds
     * the region's memory, since the queue may be destroyed and its regions deregistered before it is
     * released.
     */
    ByteBuf piece(Loan loan, ByteBufAllocator alloc, int offset, int length) {
        loan.region.retainMemory();
        loan.pieces++;
        return RegionByteBuf.ofRegion(alloc, loan.region.buffer(), offset, length, loan, loan.slot);
    }

    /** The reader handed up the last piece of the slot's payload: the slot comes back with the last release. */
    void allRead(Loan loan) {
        loan.allRead = true;
        if (loan.pieces == 0) {
            returned(loan);
        }
    }

    private void pieceReleased(Loan loan) {
        if (--loan.pieces == 0 && loan.allRead) {
            returned(loan);
        }
    }

    private void returned(Loan loan) {
        int slot = loan.slot;
        lent--;
        loan.region = null;
        spare.add(loan);
        returns.slotReturned(slot);
    }

    /** One slot lent: the pieces of it handed up, and what each lets go of when released. */
    final class Loan implements RegionByteBuf.Releaser {
        /** Written on the loop before a piece is handed up, read where the piece is released. */
        private RegisteredBuffer region;
        private int slot;
        /** Pieces handed up and not released yet; counted on the loop. */
        private int pieces;
        private boolean allRead;

        @Override
        public void release(long token) {
            // The memory first, on the releasing thread: a loop that is gone takes no task.
            region.releaseMemory();
            if (eventLoop.inEventLoop()) {
                pieceReleased(this);
                return;
            }
            try {
                eventLoop.execute(() -> pieceReleased(this));
            } catch (RejectedExecutionException e) {
                // The loop is gone, and the queue and connection with it: no one takes the slot back.
            }
        }
    }
}
