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
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.nettyrdma.channel.rdma.internal.RdmaNative;

/**
 * The registered allocator's block pool, without a device: sizes, reuse, the limit, the slab table,
 * and what it gives back after a burst.
 */
class RegisteredMemoryPoolTest {

    @Test
    void roundsRequestsUpToPowerOfTwoBlocksAndLimitsToTheRequest() {
        RegisteredMemoryPool pool = new RegisteredMemoryPool(16L * RegisteredMemoryPool.SLAB_SIZE);
        ByteBuffer small = pool.allocate(1);
        assertEquals(RegisteredMemoryPool.MIN_BLOCK, small.capacity());
        assertEquals(1, small.limit());
        ByteBuffer odd = pool.allocate(5000);
        assertEquals(8192, odd.capacity());
        assertEquals(5000, odd.remaining());
        ByteBuffer largest = pool.allocate(RegisteredMemoryPool.MAX_BLOCK);
        assertEquals(RegisteredMemoryPool.MAX_BLOCK, largest.capacity());
        assertNull(pool.allocate(RegisteredMemoryPool.MAX_BLOCK + 1));
        assertNull(pool.allocate(0));
        assertEquals(3, pool.slabs());
    }

    @Test
    void aFreedBlockIsTheNextOneOfItsSize() {
        RegisteredMemoryPool pool = new RegisteredMemoryPool(RegisteredMemoryPool.SLAB_SIZE);
        ByteBuffer first = pool.allocate(3000);
        first.position(100);
        assertTrue(pool.free(first));
        ByteBuffer again = pool.allocate(4096);
        assertSame(first, again);
        assertEquals(0, again.position());
        assertEquals(4096, again.limit());
    }

    @Test
    void stopsAtItsLimitAndServesAgainWhenBlocksReturn() {
        RegisteredMemoryPool pool = new RegisteredMemoryPool(RegisteredMemoryPool.SLAB_SIZE);
        List<ByteBuffer> taken = new ArrayList<>();
        for (int i = 0; i < RegisteredMemoryPool.SLAB_SIZE / (1024 * 1024); i++) {
            taken.add(pool.allocate(1024 * 1024));
        }
        // One slab in all, every block out: no block of any size is left.
        assertNull(pool.allocate(1024 * 1024));
        assertNull(pool.allocate(64));
        assertTrue(pool.free(taken.remove(0)));
        assertNotNull(pool.allocate(1024 * 1024));
        assertEquals(1, pool.slabs());
    }

    @Test
    void atItsLimitASlabWithNoBlockOutServesAnotherSize() {
        RegisteredMemoryPool pool = new RegisteredMemoryPool(RegisteredMemoryPool.SLAB_SIZE);
        List<ByteBuffer> large = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            large.add(pool.allocate(1024 * 1024));
        }
        assertNull(pool.allocate(64 * 1024), "the only slab has its blocks out");
        for (ByteBuffer block : large) {
            assertTrue(pool.free(block));
        }

        List<ByteBuffer> small = new ArrayList<>();
        for (int i = 0; i < RegisteredMemoryPool.SLAB_SIZE / (64 * 1024); i++) {
            ByteBuffer block = pool.allocate(64 * 1024);
            assertNotNull(block, "block " + i + " of the slab carved again");
            assertEquals(64 * 1024, block.capacity());
            small.add(block);
        }
        assertEquals(1, pool.slabs(), "no memory beyond the limit");
        assertEquals(1, pool.recarvings());
        assertNull(pool.allocate(64 * 1024));
        assertNull(pool.allocate(1024 * 1024), "the slab serves 64 KiB blocks now");
        assertEquals(small.size(), distinctAddresses(small).size(), "every block handed out once");

        for (ByteBuffer block : small) {
            assertTrue(pool.free(block));
        }
        assertNotNull(pool.allocate(1024 * 1024), "and back to 1 MiB once all came back");
        assertEquals(2, pool.recarvings());
    }

    @Test
    void aSlabWithOneBlockOutIsNotCarvedAgain() {
        RegisteredMemoryPool pool = new RegisteredMemoryPool(RegisteredMemoryPool.SLAB_SIZE);
        ByteBuffer kept = pool.allocate(1024 * 1024);
        ByteBuffer returned = pool.allocate(1024 * 1024);
        assertTrue(pool.free(returned));
        assertNull(pool.allocate(64 * 1024));
        assertEquals(0, pool.recarvings());
        assertTrue(pool.free(kept));
        assertNotNull(pool.allocate(64 * 1024));
    }

    @Test
    void belowItsLimitThePoolGrowsInsteadOfCarvingAgain() {
        RegisteredMemoryPool pool = new RegisteredMemoryPool(2L * RegisteredMemoryPool.SLAB_SIZE);
        assertTrue(pool.free(pool.allocate(1024 * 1024)));
        assertNotNull(pool.allocate(64 * 1024));
        assertEquals(2, pool.slabs());
        assertEquals(0, pool.recarvings());
    }

    @Test
    void aBlockOfAnotherPoolIsRefused() {
        RegisteredMemoryPool one = new RegisteredMemoryPool(RegisteredMemoryPool.SLAB_SIZE);
        RegisteredMemoryPool other = new RegisteredMemoryPool(RegisteredMemoryPool.SLAB_SIZE);
        ByteBuffer block = one.allocate(4096);
        assertFalse(other.free(block));
        assertTrue(one.free(block));
    }

    @Test
    void keepsItsRetainedWhollyFreeSlabsAndReleasesTheOthers() {
        RegisteredMemoryPool pool = new RegisteredMemoryPool(16L * RegisteredMemoryPool.SLAB_SIZE,
                2L * RegisteredMemoryPool.SLAB_SIZE);
        List<ByteBuffer> burst = allocateSlabs(pool, 5);
        assertEquals(5, pool.slabs());
        List<RegisteredSlab> slabs = slabsOf(burst);
        for (ByteBuffer block : burst) {
            assertTrue(pool.free(block));
        }
        assertEquals(2, pool.slabs(), "two wholly free slabs kept");
        assertEquals(3, pool.releases());
        // The first two came back first and are kept; the later three left the table.
        assertSame(slabs.get(0), RegisteredSlab.find(RdmaNative.directBufferAddress(burst.get(0)), 1));
        assertSame(slabs.get(1), RegisteredSlab.find(RdmaNative.directBufferAddress(burst.get(1)), 1));
        for (int i = 2; i < 5; i++) {
            assertTrue(slabs.get(i).isReleased());
            assertNull(RegisteredSlab.find(RdmaNative.directBufferAddress(burst.get(i)), 1), "slab " + i + " still found");
        }

        // The kept slabs serve the next burst; the pool grows again past them.
        for (int i = 0; i < 3; i++) {
            assertNotNull(pool.allocate(RegisteredMemoryPool.MAX_BLOCK));
        }
        assertEquals(3, pool.slabs());
    }

    @Test
    void aSlabWithABlockOutIsNeverReleased() {
        RegisteredMemoryPool pool = new RegisteredMemoryPool(16L * RegisteredMemoryPool.SLAB_SIZE, 0);
        ByteBuffer kept = pool.allocate(64 * 1024);
        ByteBuffer returned = pool.allocate(64 * 1024);
        assertTrue(pool.free(returned));
        assertEquals(1, pool.slabs());
        assertEquals(0, pool.releases());
        assertTrue(pool.free(kept));
        assertEquals(0, pool.slabs(), "nothing retained");
        assertEquals(1, pool.releases());
        assertNotNull(pool.allocate(64 * 1024), "a new slab");
    }

    @Test
    void aBlockFreedAgainAfterItsSlabWasReleasedIsRefused() {
        RegisteredMemoryPool pool = new RegisteredMemoryPool(16L * RegisteredMemoryPool.SLAB_SIZE, 0);
        ByteBuffer block = pool.allocate(4096);
        RegisteredSlab slab = RegisteredSlab.find(RdmaNative.directBufferAddress(block), 4096);
        assertTrue(pool.free(block));
        assertTrue(slab.isReleased());
        // Out of the table: the pool no longer knows the address, as for memory it never had.
        assertFalse(pool.free(block));
    }

    @Test
    void aReleasedSlabRefusesARegistration() {
        RegisteredMemoryPool pool = new RegisteredMemoryPool(RegisteredMemoryPool.SLAB_SIZE, 0);
        ByteBuffer block = pool.allocate(4096);
        RegisteredSlab slab = RegisteredSlab.find(RdmaNative.directBufferAddress(block), 4096);
        assertTrue(pool.free(block));
        // No device is needed to be refused: the check comes before any registration.
        IOException refused = assertThrows(IOException.class, () -> slab.lkey(null));
        assertTrue(refused.getMessage().contains("released"), refused.getMessage());
    }

    @Test
    void atItsLimitAKeptSlabIsCarvedAgainAndCountedOnce() {
        RegisteredMemoryPool pool = new RegisteredMemoryPool(RegisteredMemoryPool.SLAB_SIZE,
                RegisteredMemoryPool.SLAB_SIZE);
        assertTrue(pool.free(pool.allocate(1024 * 1024)));
        assertEquals(0, pool.releases(), "the one slab is retained");
        ByteBuffer small = pool.allocate(64 * 1024);
        assertNotNull(small);
        assertEquals(1, pool.recarvings());
        assertTrue(pool.free(small));
        assertEquals(0, pool.releases(), "still the one retained slab");
        assertEquals(1, pool.slabs());
    }

    @Test
    void withADelayASlabBeyondTheRetainedStaysUntilItWasFreeThatLong() {
        ManualTimer timer = new ManualTimer();
        RegisteredMemoryPool pool = timer.pool(1L * RegisteredMemoryPool.SLAB_SIZE, 1000);
        List<ByteBuffer> burst = allocateSlabs(pool, 3);
        List<RegisteredSlab> slabs = slabsOf(burst);
        for (ByteBuffer block : burst) {
            assertTrue(pool.free(block));
        }
        assertEquals(3, pool.slabs(), "nothing released at once");
        assertEquals(1, timer.tasks.size(), "one release scheduled for the burst, not one per slab");
        assertEquals(1000, timer.delays.get(0));

        timer.now = 1000;
        timer.runDue();
        assertEquals(1, pool.slabs(), "one wholly free slab retained");
        assertEquals(2, pool.releases());
        // The two that came back first went first; the last one back is kept.
        assertTrue(slabs.get(0).isReleased());
        assertTrue(slabs.get(1).isReleased());
        assertFalse(slabs.get(2).isReleased());
        assertTrue(timer.tasks.isEmpty(), "nothing left to release, nothing scheduled");
    }

    @Test
    void withADelayASlabTakenAgainBeforeItEndsIsNotReleased() {
        ManualTimer timer = new ManualTimer();
        RegisteredMemoryPool pool = timer.pool(1L * RegisteredMemoryPool.SLAB_SIZE, 1000);
        List<ByteBuffer> burst = allocateSlabs(pool, 2);
        for (ByteBuffer block : burst) {
            assertTrue(pool.free(block));
        }
        // The load swings back before the delay ends: it finds both slabs still registered.
        timer.now = 500;
        List<ByteBuffer> again = allocateSlabs(pool, 2);
        assertEquals(2, pool.slabs(), "no new slab for the second swing");
        timer.now = 1000;
        timer.runDue();
        assertEquals(0, pool.releases(), "both slabs are in use");
        assertTrue(timer.tasks.isEmpty());
        for (ByteBuffer block : again) {
            assertTrue(pool.free(block));
        }
        assertEquals(1, timer.tasks.size());
        timer.now = 2000;
        timer.runDue();
        assertEquals(1, pool.releases());
        assertEquals(1, pool.slabs());
    }

    @Test
    void withADelayTheTimerComesBackForASlabFreedLater() {
        ManualTimer timer = new ManualTimer();
        RegisteredMemoryPool pool = timer.pool(0, 1000);
        List<ByteBuffer> burst = allocateSlabs(pool, 2);
        List<RegisteredSlab> slabs = slabsOf(burst);
        assertTrue(pool.free(burst.get(0)));
        timer.now = 600;
        assertTrue(pool.free(burst.get(1)));
        assertEquals(1, timer.tasks.size(), "the first free scheduled the release; the second waits for it");

        timer.now = 1000;
        timer.runDue();
        assertTrue(slabs.get(0).isReleased());
        assertFalse(slabs.get(1).isReleased(), "free for 400 ns only");
        assertEquals(1, timer.tasks.size(), "scheduled again for the second slab");
        assertEquals(600, timer.delays.get(0), "when the second slab's delay ends");

        timer.now = 1600;
        timer.runDue();
        assertTrue(slabs.get(1).isReleased());
        assertEquals(0, pool.slabs());
        assertEquals(2, pool.releases());
    }

    @Test
    void refusesANegativeDelay() {
        assertThrows(IllegalArgumentException.class, () -> new RegisteredMemoryPool(RegisteredMemoryPool.SLAB_SIZE,
                0, -1));
    }

    /** A timer that runs its tasks when told, on a clock the test moves. */
    private static final class ManualTimer {
        final List<Runnable> tasks = new ArrayList<>();
        final List<Long> delays = new ArrayList<>();
        final List<Long> dueAt = new ArrayList<>();
        long now;

        RegisteredMemoryPool pool(long retainedBytes, long delayNanos) {
            return new RegisteredMemoryPool(16L * RegisteredMemoryPool.SLAB_SIZE, retainedBytes, delayNanos,
                    (task, delay) -> {
                        tasks.add(task);
                        delays.add(delay);
                        dueAt.add(now + delay);
                    }, () -> now);
        }

        /** Runs the tasks due by now, as a timer would; a task may schedule another. */
        void runDue() {
            for (int i = 0; i < tasks.size(); i++) {
                if (dueAt.get(i) <= now) {
                    Runnable task = tasks.remove(i);
                    delays.remove(i);
                    dueAt.remove(i);
                    task.run();
                    i = -1;
                }
            }
        }
    }

    private static List<ByteBuffer> allocateSlabs(RegisteredMemoryPool pool, int count) {
        List<ByteBuffer> blocks = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            blocks.add(pool.allocate(RegisteredMemoryPool.MAX_BLOCK));
        }
        return blocks;
    }

    private static List<RegisteredSlab> slabsOf(List<ByteBuffer> blocks) {
        List<RegisteredSlab> slabs = new ArrayList<>();
        for (ByteBuffer block : blocks) {
            slabs.add(RegisteredSlab.find(RdmaNative.directBufferAddress(block), block.capacity()));
        }
        return slabs;
    }

    private static Set<Long> distinctAddresses(List<ByteBuffer> blocks) {
        Set<Long> addresses = new HashSet<>();
        for (ByteBuffer block : blocks) {
            addresses.add(RdmaNative.directBufferAddress(block));
        }
        return addresses;
    }

    @Test
    void refusesMemoryThatIsNotItsOwn() {
        RegisteredMemoryPool pool = new RegisteredMemoryPool(RegisteredMemoryPool.SLAB_SIZE);
        assertFalse(pool.free(ByteBuffer.allocateDirect(4096)));
        assertFalse(pool.free(ByteBuffer.allocate(4096)));
    }

    @Test
    void theSlabTableFindsEveryAddressOfABlockButNotPastItsSlab() {
        RegisteredMemoryPool pool = new RegisteredMemoryPool(RegisteredMemoryPool.SLAB_SIZE);
        ByteBuffer block = pool.allocate(2048);
        long address = RdmaNative.directBufferAddress(block);
        RegisteredSlab slab = RegisteredSlab.find(address, 2048);
        assertNotNull(slab);
        assertSame(slab, RegisteredSlab.find(address + 100, 10));
        assertNull(RegisteredSlab.find(address, RegisteredMemoryPool.SLAB_SIZE + 1));
        assertNull(RegisteredSlab.find(RdmaNative.directBufferAddress(ByteBuffer.allocateDirect(64)), 64));
    }
}
