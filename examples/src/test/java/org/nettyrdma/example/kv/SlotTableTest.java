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
package org.nettyrdma.example.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SlotTableTest {

    private final SlotLayout layout = new SlotLayout(4, 32);
    private final SlotTable table = new SlotTable(layout);

    @AfterEach
    void release() {
        table.release();
    }

    @Test
    void theMemoryIsTheWholeTableEveryVersionZero() {
        ByteBuf memory = table.memory();
        assertTrue(memory.hasMemoryAddress(), "direct, to expose");
        assertEquals(layout.tableLength(), memory.readableBytes());
        for (int slot = 0; slot < layout.slots(); slot++) {
            assertEquals(0, table.version(slot));
            assertArrayEquals(new byte[0], table.value(slot));
        }
    }

    @Test
    void aPutWritesTheSlotAndAdvancesItsVersionByTwo() {
        byte[] longer = "a longer value".getBytes(StandardCharsets.US_ASCII);
        table.put(2, longer);
        assertEquals(2, table.version(2));
        assertArrayEquals(longer, table.value(2));
        byte[] shorter = "short".getBytes(StandardCharsets.US_ASCII);
        table.put(2, shorter);
        assertEquals(4, table.version(2));
        assertArrayEquals(shorter, table.value(2));
        assertEquals(0, table.version(1), "its neighbours are untouched");
        assertEquals(0, table.version(3));
        assertEquals(shorter.length, table.memory().getIntLE(layout.bodyOffset(2)), "the length, little-endian");
    }

    @Test
    void aReadAcrossAPutIsNotStable() {
        long before = table.version(1);
        table.put(1, new byte[] {7});
        assertFalse(SlotLayout.stable(before, table.version(1)));
        assertTrue(SlotLayout.stable(table.version(1), table.version(1)));
    }

    @Test
    void aPutThatDoesNotFitChangesNothing() {
        assertThrows(IllegalArgumentException.class, () -> table.put(4, new byte[1]));
        assertThrows(IllegalArgumentException.class, () -> table.put(0, new byte[33]));
        assertEquals(0, table.version(0));
        table.put(0, new byte[32]);
        assertEquals(2, table.version(0));
    }
}
