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

import io.netty.buffer.ByteBuf;

/**
 * Where things are in a {@link SlotTable}: {@code slots} slots of {@link #slotSize()} bytes each, one
 * after another, slot {@code n} at {@code n * slotSize()}. A slot holds
 *
 * <pre>
 *  0  version   8 bytes: even while the slot is stable, odd while the server writes it (a seqlock)
 *  8  length    4 bytes: how many bytes of the value are used
 * 12  value     maxValueLength bytes, the first {@code length} of them the value
 * </pre>
 *
 * padded to a multiple of 8 bytes so that every version word is 8-byte aligned. The words are
 * little-endian, the byte order of the hosts RDMA runs on (x86-64, aarch64). A client reads the
 * version with one RDMA Read and the length and value, the slot's <em>body</em>, with another.
 *
 * @param slots how many slots, at least one
 * @param maxValueLength the largest value a slot holds, in bytes, at most {@link #MAX_VALUE_LENGTH}
 */
public record SlotLayout(int slots, int maxValueLength) {

    /** The offset of the version word in a slot. */
    public static final int VERSION = 0;
    /** The offset of the length in a slot, where its body starts. */
    public static final int LENGTH = 8;
    /** The offset of the value in a slot. */
    public static final int VALUE = 12;
    /** The largest value length a layout may have: 1 MiB. */
    public static final int MAX_VALUE_LENGTH = 1 << 20;

    /** Checks the numbers: a table of at least one slot, at most 1 GiB. */
    public SlotLayout {
        if (slots < 1 || maxValueLength < 0 || maxValueLength > MAX_VALUE_LENGTH
                || (long) slots * slotSize(maxValueLength) > 1 << 30) {
            throw new IllegalArgumentException("slots: " + slots + ", maxValueLength: " + maxValueLength
                    + " (expected: slots >= 1, 0 <= maxValueLength <= " + MAX_VALUE_LENGTH + ", at most 1 GiB in all)");
        }
    }

    private static int slotSize(int maxValueLength) {
        return (VALUE + maxValueLength + Long.BYTES - 1) & -Long.BYTES;
    }

    /** Returns the bytes of one slot, a multiple of 8. */
    public int slotSize() {
        return slotSize(maxValueLength);
    }

    /** Returns the bytes of the whole table. */
    public int tableLength() {
        return slots * slotSize();
    }

    /** Returns the offset of slot {@code slot}'s version word in the table. */
    public int versionOffset(int slot) {
        checkSlot(slot);
        return slot * slotSize() + VERSION;
    }

    /** Returns the offset of slot {@code slot}'s body (length and value) in the table. */
    public int bodyOffset(int slot) {
        checkSlot(slot);
        return slot * slotSize() + LENGTH;
    }

    /** Returns the bytes of a slot's body: the length and the whole value area. */
    public int bodyLength() {
        return VALUE - LENGTH + maxValueLength;
    }

    /** Returns {@code true} if {@code slot} is one of the table's. */
    public boolean hasSlot(int slot) {
        return slot >= 0 && slot < slots;
    }

    /** Throws an {@link IllegalArgumentException} unless {@code slot} is one of the table's. */
    public void checkSlot(int slot) {
        if (!hasSlot(slot)) {
            throw new IllegalArgumentException("slot: " + slot + " (expected: 0 to " + (slots - 1) + ")");
        }
    }

    /** Throws an {@link IllegalArgumentException} unless a value of {@code length} bytes fits a slot. */
    public void checkValueLength(int length) {
        if (length > maxValueLength) {
            throw new IllegalArgumentException("a value of " + length + " bytes (expected: at most "
                    + maxValueLength + ")");
        }
    }

    /**
     * Returns the value of a slot's body, as read from offset 0 of {@code body}: a body read while
     * the slot was stable ({@link #stable}).
     *
     * @throws IllegalStateException if the length is not one a slot can hold
     */
    public byte[] value(ByteBuf body) {
        int length = body.getIntLE(0);
        if (length < 0 || length > maxValueLength) {
            throw new IllegalStateException("a slot's length of " + length + " (expected: 0 to " + maxValueLength
                    + "): not written by a SlotTable of this layout");
        }
        byte[] value = new byte[length];
        body.getBytes(VALUE - LENGTH, value);
        return value;
    }

    /**
     * The seqlock's decision: returns {@code true} if a slot's version read {@code before} and
     * {@code after} its body shows that no write of the slot overlapped the body's read, so the body
     * is one value and not pieces of two. The server makes the version odd before it changes a slot and
     * even again, one higher, after: an odd version means a write was under way, a changed one that a
     * write began (and perhaps ended) in between.
     */
    public static boolean stable(long before, long after) {
        return before == after && (before & 1) == 0;
    }
}
