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
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import com.ibm.disni.util.MemoryUtils;
import org.junit.jupiter.api.Test;

/** The registered allocator's block pool, without a device: sizes, reuse, the limit, the slab table. */
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
        // One slab in all: a block of another size cannot get a slab of its own.
        assertNull(pool.allocate(1024 * 1024));
        assertNull(pool.allocate(64));
        assertTrue(pool.free(taken.remove(0)));
        assertNotNull(pool.allocate(1024 * 1024));
        assertEquals(1, pool.slabs());
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
        long address = MemoryUtils.getAddress(block);
        RegisteredSlab slab = RegisteredSlab.find(address, 2048);
        assertNotNull(slab);
        assertSame(slab, RegisteredSlab.find(address + 100, 10));
        assertNull(RegisteredSlab.find(address, RegisteredMemoryPool.SLAB_SIZE + 1));
        assertNull(RegisteredSlab.find(MemoryUtils.getAddress(ByteBuffer.allocateDirect(64)), 64));
    }
}
