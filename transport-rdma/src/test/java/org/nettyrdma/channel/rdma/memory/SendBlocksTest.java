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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/** The book of a connection's staging blocks, over a pool of heap blocks: no device, no registration. */
class SendBlocksTest {

    private static final int KIB = 1024;
    private static final int BLOCK = SendBlocks.BLOCK_SIZE;
    /** A receive slot of the default size, which bounds a Send with its 16-byte header. */
    private static final int SLOT = 8 * KIB;
    private static final int HEADER = 16;
    /** The Sends of a 64 KiB message: eight fill a block, the ninth carries the last 128 bytes. */
    private static final int SENDS_PER_64_KIB = 9;

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
        assertTrue(blocks.holdsOnlySpares());
        assertFalse(blocks.trimIfUnused(), "regions were taken since the last look");
        assertEquals(SendBlocks.BLOCK_SIZE, blocks.heldBytes());
        assertTrue(blocks.trimIfUnused(), "none since: the connection stopped sending");
        assertEquals(0, blocks.heldBytes(), "an idle connection holds no staging memory");
        assertEquals(0, pool.out);
    }

    /** A connection's own registrations ({@link RegisteredBlocks}): every block is registered for it alone. */
    private static final class RegisteringSource implements SendBlocks.Source {
        int registered;
        int held;

        @Override
        public StagingBlock take(int size) {
            return takeOwn(size);
        }

        @Override
        public StagingBlock takeOwn(int size) {
            registered++;
            held++;
            return new StagingBlock(Unpooled.buffer(size, size), 0, 9, () -> { });
        }

        @Override
        public void give(StagingBlock block) {
            held--;
        }

        @Override
        public boolean registersEachBlock() {
            return true;
        }
    }

    @Test
    void oneOperationAtATimeRegistersOneBlockOfItsOwnInAll() {
        // What RDMA Reads and atomics land in, and a connection exposing memory stages in: under
        // emulation a registration costs more than the operation, so each must not take one.
        RegisteringSource own = new RegisteringSource();
        SendBlocks blocks = new SendBlocks(own, 1024 * KIB);
        for (int i = 0; i < 100; i++) {
            assertTrue(blocks.take(64) >= 0);
            blocks.returnTo(blocks.mark());
        }
        assertEquals(1, own.registered);
        assertTrue(blocks.holdsOnlySpares());
        assertFalse(blocks.trimIfUnused(), "still taking");
        assertTrue(blocks.trimIfUnused(), "idle since the last look");
        assertEquals(0, own.held, "an idle connection holds no block of its own");
        blocks.take(64);
        blocks.close();
        assertEquals(0, own.held, "closed, it gives back the block in flight too");
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
        assertEquals(blocks.heldBytes(), pool.out, "the spares alone");
        assertTrue(blocks.holdsOnlySpares());
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

    @Test
    void aMessageSpanningTwoBlocksTakesThemFromThePoolForTheFirstMessageOnly() {
        CountingSource pool = new CountingSource(Long.MAX_VALUE);
        SendBlocks blocks = new SendBlocks(pool, 1024 * KIB);
        long[] marks = new long[SENDS_PER_64_KIB];
        for (int i = 0; i < 100; i++) {
            stage64KibMessage(blocks, marks);
            // Every Send signaled, so blocks are emptied one by one as well as all at once.
            for (long mark : marks) {
                blocks.returnTo(mark);
            }
            // The response arrives once the request completed: nothing staged is in flight between messages.
            assertTrue(blocks.holdsOnlySpares());
            assertEquals(2 * BLOCK, blocks.heldBytes(), "both blocks stay as spares");
            if (i % 10 == 9) {
                assertFalse(blocks.trimIfUnused(), "still sending");
            }
        }
        assertEquals(List.of(BLOCK, BLOCK), pool.taken, "two blocks, for the first message");
        assertEquals(2 * BLOCK, pool.out);
    }

    @Test
    void sparesStayWithinTheLimitAndGoBackAsFarAsALargerRegionNeedsRoom() {
        CountingSource pool = new CountingSource(Long.MAX_VALUE);
        SendBlocks blocks = new SendBlocks(pool, 512 * KIB);
        for (int burst = 0; burst < 3; burst++) {
            for (int i = 0; i < 8; i++) {
                assertEquals(0, blocks.take(40 * KIB), "a block per region: two do not fit in one");
            }
            assertEquals(-1, blocks.take(40 * KIB), "a ninth block would pass the limit");
            assertFalse(blocks.starved(), "the limit, not the pool");
            blocks.returnTo(blocks.mark());
            assertEquals(512 * KIB, blocks.heldBytes(), "all eight kept as spares: at the limit, not past it");
        }
        assertEquals(8, pool.taken.size(), "later bursts take the spares, not the pool");

        assertEquals(0, blocks.take(100 * KIB));
        long large = blocks.mark();
        assertEquals(128 * KIB, (int) pool.taken.get(8));
        assertEquals(512 * KIB, blocks.heldBytes(), "two spares went back to make room, the other six stay");
        for (int i = 0; i < 5; i++) {
            assertEquals(0, blocks.take(40 * KIB), "spares, not the pool");
        }
        assertEquals(9, pool.taken.size());
        assertEquals(-1, blocks.take(100 * KIB), "in flight, six blocks leave no room for another larger one");
        assertFalse(blocks.starved());
        assertEquals(512 * KIB, blocks.heldBytes(), "the spare it could not use stays for a usual region");
        assertEquals(0, blocks.take(40 * KIB), "the last spare");
        assertEquals(9, pool.taken.size());

        blocks.returnTo(large);
        assertEquals(0, blocks.take(100 * KIB), "the larger block, emptied, serves the next larger region");
        assertEquals(9, pool.taken.size());
        assertEquals(512 * KIB, pool.out);
    }

    @Test
    void noPatternPassesTheLimitAndNothingInFlightLeavesRoomForTheLargestRegion() {
        Random random = new Random(7);
        CountingSource pool = new CountingSource(Long.MAX_VALUE);
        int limit = 512 * KIB;
        SendBlocks blocks = new SendBlocks(pool, limit);
        ArrayDeque<Long> inFlight = new ArrayDeque<>();
        for (int step = 0; step < 20_000; step++) {
            int op = random.nextInt(10);
            if (op < 6) {
                int bound = random.nextInt(4) == 0 ? blocks.largestRegion() : SLOT;
                if (blocks.take(1 + random.nextInt(bound)) >= 0) {
                    inFlight.add(blocks.mark());
                }
            } else if (op < 9) {
                // In order, one completion for one or more requests.
                for (int n = random.nextInt(inFlight.size() + 1); n > 0; n--) {
                    blocks.returnTo(inFlight.poll());
                }
            } else {
                blocks.trimIfUnused();
            }
            assertTrue(blocks.heldBytes() <= limit, () -> "held: " + blocks.heldBytes());
            assertEquals(pool.out, blocks.heldBytes());
            if (inFlight.isEmpty()) {
                int spares = blocks.heldBytes();
                assertTrue(blocks.take(blocks.largestRegion()) >= 0,
                        () -> "nothing in flight, spares of " + spares + " B: room for the largest region");
                inFlight.add(blocks.mark());
            }
        }
    }

    @Test
    void aLookAfterAnIntervalWithoutSendsGivesEverySpareBack() {
        CountingSource pool = new CountingSource(Long.MAX_VALUE);
        SendBlocks blocks = new SendBlocks(pool, 1024 * KIB);
        for (int i = 0; i < 4; i++) {
            assertEquals(0, blocks.take(60 * KIB));
        }
        blocks.returnTo(blocks.mark());
        assertEquals(4 * BLOCK, blocks.heldBytes());
        assertTrue(blocks.holdsOnlySpares());
        assertFalse(blocks.trimIfUnused(), "regions were taken since the last look");
        assertEquals(4 * BLOCK, blocks.heldBytes());

        assertEquals(0, blocks.take(4 * KIB));
        blocks.returnTo(blocks.mark());
        assertFalse(blocks.trimIfUnused());
        assertEquals(4 * BLOCK, blocks.heldBytes(), "a send in the interval keeps them all");

        assertTrue(blocks.trimIfUnused(), "none since: the connection stopped sending");
        assertEquals(0, blocks.heldBytes(), "an idle connection holds no staging memory");
        assertEquals(0, pool.out);
        assertFalse(blocks.holdsOnlySpares());
        assertEquals(4, pool.taken.size());
    }

    @Test
    void aLargerBlockGoesBackOnceNothingIsInFlightWhileTheUsualOnesStay() {
        CountingSource pool = new CountingSource(Long.MAX_VALUE);
        SendBlocks blocks = new SendBlocks(pool, 1024 * KIB);
        assertEquals(0, blocks.take(60 * KIB));
        assertEquals(0, blocks.take(60 * KIB));
        assertEquals(0, blocks.take(200 * KIB));
        blocks.returnTo(blocks.mark());
        assertEquals(List.of(BLOCK, BLOCK, 256 * KIB), pool.taken);
        assertEquals(2 * BLOCK, blocks.heldBytes(), "the usual blocks stay as spares, the larger one is back");
        assertEquals(2 * BLOCK, pool.out);
    }

    @Test
    void aStreamOfLargerRegionsReusesTheLargerBlockWhileRegionsAreInFlight() {
        CountingSource pool = new CountingSource(Long.MAX_VALUE);
        SendBlocks blocks = new SendBlocks(pool, 1024 * KIB);
        assertEquals(0, blocks.take(200 * KIB));
        long first = blocks.mark();
        assertEquals(0, blocks.take(200 * KIB));
        blocks.returnTo(first);
        assertEquals(0, blocks.take(200 * KIB), "the first block, emptied");
        assertEquals(List.of(256 * KIB, 256 * KIB), pool.taken);
        blocks.returnTo(blocks.mark());
        assertEquals(0, blocks.heldBytes(), "nothing in flight: larger blocks are back");
    }

    @Test
    void aBlockOfItsOwnGoesBackOnceNothingIsInFlightWhileAPoolBlockStays() {
        CountingSource pool = new CountingSource(0);
        pool.ownFree = Long.MAX_VALUE;
        SendBlocks blocks = new SendBlocks(pool, 1024 * KIB);
        assertEquals(0, blocks.take(60 * KIB));
        assertEquals(BLOCK, pool.ownOut, "the pool had none, nothing was in flight");
        pool.free = BLOCK;
        assertEquals(0, blocks.take(8 * KIB), "a block of the pool, now that it has one");
        assertEquals(BLOCK, pool.out);
        blocks.returnTo(blocks.mark());
        assertEquals(0, pool.ownOut, "its own block is back, its registration with it");
        assertEquals(BLOCK, blocks.heldBytes(), "the pool's block stays as a spare");
        assertTrue(blocks.holdsOnlySpares());
    }

    @Test
    void nothingInFlightAndAnEmptyPoolGiveBackSparesTooSmallBeforeRegisteringABlockOfItsOwn() {
        CountingSource pool = new CountingSource(2 * BLOCK);
        pool.ownFree = Long.MAX_VALUE;
        SendBlocks blocks = new SendBlocks(pool, 1024 * KIB);
        assertEquals(0, blocks.take(60 * KIB));
        assertEquals(0, blocks.take(60 * KIB));
        blocks.returnTo(blocks.mark());
        assertEquals(2 * BLOCK, blocks.heldBytes());
        assertEquals(0, blocks.take(200 * KIB), "a block of its own");
        assertFalse(blocks.starved());
        assertEquals(0, pool.out, "the spares, too small for the region, went back first");
        assertEquals(256 * KIB, pool.ownOut);
        assertEquals(256 * KIB, blocks.heldBytes());
    }

    @Test
    void stagingA64KibMessageAllocatesNothingOnceWarm() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported());
        threads.setThreadAllocatedMemoryEnabled(true);
        CountingSource pool = new CountingSource(Long.MAX_VALUE);
        SendBlocks blocks = new SendBlocks(pool, 1024 * KIB);
        long[] marks = new long[SENDS_PER_64_KIB];
        long least = Long.MAX_VALUE;
        // Rounds until the JIT compiled the path; the least a round of 10000 messages allocated counts.
        // A block taken per message would be a StagingBlock and 64 KiB of heap (this source's) each.
        for (int round = 0; round < 20 && least >= 10_000; round++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 10_000; i++) {
                stage64KibMessage(blocks, marks);
                blocks.returnTo(blocks.mark());
            }
            least = Math.min(least, threads.getCurrentThreadAllocatedBytes() - before);
        }
        assertTrue(least < 10_000, least + " bytes for 10000 messages");
        assertEquals(2, pool.taken.size());
    }

    /**
     * Stages a 64 KiB message as {@code RdmaSender} does with slots of 8 KiB: Sends of a header and up
     * to a slot's worth, each taking a slot of room and giving back what its payload leaves. Eight
     * fill the first block; the ninth carries the last 128 bytes in a second block. The mark of each
     * Send goes into {@code marks}, which the caller reuses, so that staging allocates nothing here.
     */
    private static void stage64KibMessage(SendBlocks blocks, long[] marks) {
        int remaining = 64 * KIB;
        for (int i = 0; i < marks.length; i++) {
            int payload = Math.min(remaining, SLOT - HEADER);
            assertTrue(blocks.take(SLOT) >= 0);
            blocks.giveBack(SLOT - HEADER - payload);
            remaining -= payload;
            marks[i] = blocks.mark();
        }
        assertEquals(0, remaining);
    }
}
