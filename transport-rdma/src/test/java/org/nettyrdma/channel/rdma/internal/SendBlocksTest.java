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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/** The book of a connection's staging blocks, over a pool of heap blocks: no device, no registration. */
class SendBlocksTest {

    private static final int KIB = 1024;

    /**
     * A pool that hands out up to {@code free} bytes of blocks and counts what is out, and registers
     * up to {@code ownFree} bytes of blocks of a connection's own.
     */
    private static final class CountingSource implements SendBlocks.Source {
        long free;
        long out;
        long ownFree;
        long ownOut;
        final List<Integer> taken = new ArrayList<>();

        CountingSource(long free) {
            this.free = free;
        }

        @Override
        public StagingBlock take(int size) {
            if (size > free) {
                return null;
            }
            free -= size;
            out += size;
            taken.add(size);
            return new StagingBlock(Unpooled.buffer(size, size), 0, 7);
        }

        @Override
        public StagingBlock takeOwn(int size) {
            if (size > ownFree) {
                return null;
            }
            ownFree -= size;
            ownOut += size;
            return new StagingBlock(Unpooled.buffer(size, size), 0, 9, () -> { });
        }

        @Override
        public void give(StagingBlock block) {
            if (block.registration() != null) {
                ownFree += block.capacity();
                ownOut -= block.capacity();
                return;
            }
            free += block.capacity();
            out -= block.capacity();
        }
    }

    @Test
    void regionsShareTheNewestBlockAndTheSpareGoesBackOnceUnused() {
        CountingSource pool = new CountingSource(Long.MAX_VALUE);
        SendBlocks blocks = new SendBlocks(pool, 1024 * KIB);
        assertEquals(0, blocks.heldBytes(), "nothing held before the first send");
        assertEquals(0, blocks.take(100));
        long first = blocks.mark();
        assertEquals(100, blocks.take(200));
        long second = blocks.mark();
        assertEquals(List.of(SendBlocks.BLOCK_SIZE), pool.taken);
        assertEquals(SendBlocks.BLOCK_SIZE, blocks.heldBytes());

        blocks.returnTo(first);
        assertEquals(SendBlocks.BLOCK_SIZE, blocks.heldBytes(), "the second region is still in flight");
        blocks.returnTo(second);
        assertEquals(SendBlocks.BLOCK_SIZE, blocks.heldBytes(), "the spare, for the next send");
        assertTrue(blocks.holdsOnlyTheSpare());
        assertFalse(blocks.trimIfUnused(), "regions were taken since the last look");
        assertEquals(SendBlocks.BLOCK_SIZE, blocks.heldBytes());
        assertTrue(blocks.trimIfUnused(), "none since: the connection stopped sending");
        assertEquals(0, blocks.heldBytes(), "an idle connection holds no staging memory");
        assertEquals(0, pool.out);
    }

    @Test
    void oneMessageAtATimeTakesOneBlockFromThePoolInAll() {
        CountingSource pool = new CountingSource(Long.MAX_VALUE);
        SendBlocks blocks = new SendBlocks(pool, 1024 * KIB);
        for (int i = 0; i < 100; i++) {
            assertTrue(blocks.take(4 * KIB) >= 0);
            // A request and its response: the send completes before the next one is staged.
            blocks.returnTo(blocks.mark());
            if (i % 10 == 0) {
                assertFalse(blocks.trimIfUnused(), "still sending");
            }
        }
        assertEquals(List.of(SendBlocks.BLOCK_SIZE), pool.taken);
        assertEquals(SendBlocks.BLOCK_SIZE, pool.out);
    }

    @Test
    void aRegionThatDoesNotFitOpensANewBlockAndTheOldOneGoesBackWithItsLastRegion() {
        CountingSource pool = new CountingSource(Long.MAX_VALUE);
        SendBlocks blocks = new SendBlocks(pool, 1024 * KIB);
        int offset = blocks.take(60 * KIB);
        StagingBlock first = blocks.current();
        long inFirst = blocks.mark();
        assertEquals(0, offset);
        assertEquals(0, blocks.take(8 * KIB), "the tail of the first block is skipped");
        StagingBlock second = blocks.current();
        assertNotSame(first, second);
        assertEquals(0, blocks.take(KIB) - 8 * KIB, "the next region follows in the second block");
        assertSame(second, blocks.current());
        assertEquals(2 * SendBlocks.BLOCK_SIZE, blocks.heldBytes());

        blocks.returnTo(inFirst);
        assertEquals(2 * SendBlocks.BLOCK_SIZE, blocks.heldBytes(), "the emptied first block stays as the spare");
        assertEquals(2, pool.taken.size());
    }

    @Test
    void aSteadyStreamReusesTheSpareInsteadOfThePool() {
        CountingSource pool = new CountingSource(Long.MAX_VALUE);
        SendBlocks blocks = new SendBlocks(pool, 1024 * KIB);
        long previous = -1;
        for (int i = 0; i < 64; i++) {
            assertTrue(blocks.take(32 * KIB) >= 0);
            long mark = blocks.mark();
            if (previous >= 0) {
                // One region always in flight: the connection never goes idle.
                blocks.returnTo(previous);
            }
            previous = mark;
        }
        assertTrue(pool.taken.size() <= 3, () -> "blocks taken from the pool for 64 regions: " + pool.taken);
        assertTrue(blocks.heldBytes() <= 2 * SendBlocks.BLOCK_SIZE, () -> "held: " + blocks.heldBytes());
        blocks.returnTo(previous);
        assertEquals(SendBlocks.BLOCK_SIZE, pool.out, "the spare alone");
        blocks.trimIfUnused();
        blocks.trimIfUnused();
        assertEquals(0, pool.out);
    }

    @Test
    void aRegionLargerThanABlockGetsABlockOfItsOwnRoundedUp() {
        CountingSource pool = new CountingSource(Long.MAX_VALUE);
        SendBlocks blocks = new SendBlocks(pool, 1024 * KIB);
        assertEquals(0, blocks.take(200 * KIB));
        assertEquals(List.of(256 * KIB), pool.taken);
        assertEquals(256 * KIB, blocks.largestRegion());
        assertThrows(IllegalArgumentException.class, () -> blocks.take(1024 * KIB + 1));
    }

    @Test
    void theLimitBoundsTheBlocksHeldUntilRegionsComplete() {
        CountingSource pool = new CountingSource(Long.MAX_VALUE);
        SendBlocks blocks = new SendBlocks(pool, 128 * KIB);
        assertEquals(0, blocks.take(32 * KIB));
        long first = blocks.mark();
        assertEquals(32 * KIB, blocks.take(32 * KIB));
        assertEquals(0, blocks.take(32 * KIB), "a second block, still within the limit");
        assertEquals(32 * KIB, blocks.take(32 * KIB));
        assertEquals(-1, blocks.take(32 * KIB), "a third block would pass the limit");
        assertFalse(blocks.starved(), "the limit, not the pool");
        assertEquals(128 * KIB, blocks.heldBytes());

        blocks.returnTo(first);
        assertEquals(-1, blocks.take(32 * KIB), "the first block still holds a region in flight");
        blocks.returnTo(first + 32 * KIB);
        assertEquals(0, blocks.take(32 * KIB), "the first block, emptied, is taken again as the spare");
        assertEquals(2, pool.taken.size());
    }

    @Test
    void anEmptyPoolStarvesAndABlockBackEndsIt() {
        CountingSource pool = new CountingSource(0);
        SendBlocks blocks = new SendBlocks(pool, 1024 * KIB);
        assertEquals(-1, blocks.take(100));
        assertTrue(blocks.starved(), "the pool had no block");
        assertEquals(0, blocks.heldBytes());
        pool.free = SendBlocks.BLOCK_SIZE;
        assertEquals(0, blocks.take(100), "taken once the pool has a block again");
        assertFalse(blocks.starved());
    }

    @Test
    void giveBackReturnsTheUnusedTailOfTheLastRegion() {
        CountingSource pool = new CountingSource(Long.MAX_VALUE);
        SendBlocks blocks = new SendBlocks(pool, 1024 * KIB);
        assertEquals(0, blocks.take(8 * KIB));
        blocks.giveBack(8 * KIB - 100);
        assertEquals(100, blocks.mark());
        assertEquals(100, blocks.take(10));
        assertEquals(110, blocks.mark());
    }

    @Test
    void aLargerBlockDoesNotStayAsTheSpare() {
        CountingSource pool = new CountingSource(Long.MAX_VALUE);
        SendBlocks blocks = new SendBlocks(pool, 1024 * KIB);
        assertEquals(0, blocks.take(200 * KIB));
        blocks.returnTo(blocks.mark());
        assertEquals(0, blocks.heldBytes(), "a spare is a block of the usual size");
        assertEquals(0, pool.out);
    }

    @Test
    void closeGivesEveryBlockBackAndTakesNoMore() {
        CountingSource pool = new CountingSource(Long.MAX_VALUE);
        SendBlocks blocks = new SendBlocks(pool, 1024 * KIB);
        blocks.take(60 * KIB);
        blocks.take(60 * KIB);
        assertEquals(2 * SendBlocks.BLOCK_SIZE, pool.out);
        blocks.close();
        assertEquals(0, pool.out, "given back with regions still in flight: the queue pair is gone");
        assertEquals(-1, blocks.take(100));
        blocks.close();
        assertEquals(0, pool.out);
    }

    @Test
    void aSmallLimitMakesSmallBlocks() {
        CountingSource pool = new CountingSource(Long.MAX_VALUE);
        SendBlocks blocks = new SendBlocks(pool, 48 * KIB);
        assertEquals(0, blocks.take(KIB));
        assertEquals(List.of(32 * KIB), pool.taken, "a block never passes the limit");
    }

    @Test
    void aConnectionHoldingNothingRegistersABlockOfItsOwnWhenThePoolHasNone() {
        CountingSource pool = new CountingSource(SendBlocks.BLOCK_SIZE);
        pool.ownFree = Long.MAX_VALUE;
        SendBlocks blocks = new SendBlocks(pool, 1024 * KIB);
        assertEquals(0, blocks.take(60 * KIB));
        long inPool = blocks.mark();
        assertEquals(-1, blocks.take(8 * KIB), "the pool is empty; a completion will bring a block back");
        assertTrue(blocks.starved());
        assertEquals(0, pool.ownOut, "no block of its own while it holds one of the pool");

        blocks.returnTo(inPool);
        blocks.trimIfUnused();
        assertTrue(blocks.trimIfUnused(), "the spare went back");
        assertEquals(0, blocks.heldBytes());
        pool.free = 0;
        assertEquals(0, blocks.take(8 * KIB), "nothing to wait for: a block of its own");
        assertFalse(blocks.starved());
        assertEquals(SendBlocks.BLOCK_SIZE, pool.ownOut);
        blocks.returnTo(blocks.mark());
        assertEquals(0, pool.ownOut, "given back, its registration with it, once nothing is in flight");
    }
}
