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

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

class SlotLayoutTest {

    @Test
    void slotsAreWholeWordsOneAfterAnother() {
        SlotLayout layout = new SlotLayout(100, 1024);
        assertEquals(1040, layout.slotSize(), "8 + 4 + 1024, rounded up to a multiple of 8");
        assertEquals(104_000, layout.tableLength());
        assertEquals(0, layout.versionOffset(0));
        assertEquals(8, layout.bodyOffset(0));
        assertEquals(3 * 1040, layout.versionOffset(3));
        assertEquals(3 * 1040 + 8, layout.bodyOffset(3));
        assertEquals(4 + 1024, layout.bodyLength());
        assertEquals(16, new SlotLayout(1, 0).slotSize(), "an empty value still has its version and length");
        assertEquals(24, new SlotLayout(1, 5).slotSize());
    }

    @Test
    void slotsOutsideTheTableAreRefused() {
        SlotLayout layout = new SlotLayout(10, 64);
        assertTrue(layout.hasSlot(0));
        assertTrue(layout.hasSlot(9));
        assertFalse(layout.hasSlot(10));
        assertFalse(layout.hasSlot(-1));
        assertThrows(IllegalArgumentException.class, () -> layout.versionOffset(10));
        assertThrows(IllegalArgumentException.class, () -> layout.bodyOffset(-1));
        layout.checkValueLength(64);
        assertThrows(IllegalArgumentException.class, () -> layout.checkValueLength(65));
    }

    @Test
    void layoutsThatMakeNoTableAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new SlotLayout(0, 64));
        assertThrows(IllegalArgumentException.class, () -> new SlotLayout(1, -1));
        assertThrows(IllegalArgumentException.class, () -> new SlotLayout(1, SlotLayout.MAX_VALUE_LENGTH + 1));
        assertThrows(IllegalArgumentException.class, () -> new SlotLayout(1 << 20, 1024), "over 1 GiB");
    }

    @Test
    void aBodyReadsAsItsLengthsBytes() {
        SlotLayout layout = new SlotLayout(1, 8);
        ByteBuf body = Unpooled.buffer(layout.bodyLength()).writeIntLE(3).writeBytes(new byte[] {1, 2, 3, 9, 9, 9, 9, 9});
        assertArrayEquals(new byte[] {1, 2, 3}, layout.value(body));
        body.setIntLE(0, 9);
        assertThrows(IllegalStateException.class, () -> layout.value(body), "longer than a slot holds");
        body.setIntLE(0, -1);
        assertThrows(IllegalStateException.class, () -> layout.value(body));
        body.release();
    }

    @Test
    void onlyTheSameEvenVersionBeforeAndAfterMakesAReadStable() {
        assertTrue(SlotLayout.stable(0, 0));
        assertTrue(SlotLayout.stable(42, 42));
        assertFalse(SlotLayout.stable(41, 41), "odd: a write was under way when the read began");
        assertFalse(SlotLayout.stable(42, 43), "a write began during the read");
        assertFalse(SlotLayout.stable(42, 44), "a write began and ended during the read");
        assertFalse(SlotLayout.stable(41, 42), "a write ended during the read");
    }
}
