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

import java.nio.ByteBuffer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A chain of sends as the provider reads it ({@code struct ibv_send_wr} and {@code struct ibv_sge} on
 * x86-64): a Send that gathers a header and a buffer read in place points at its two entries, a plain
 * Send beside it at one, and each request at the next.
 */
class WorkRequestsLayoutTest {

    private static final int WR = 128;
    private static final int SGE = 16;

    private final WorkRequests chain = WorkRequests.sends(3);

    @AfterEach
    void free() {
        chain.close();
    }

    @Test
    void aGatherPointsAtItsTwoEntriesAndAPlainSendAtOne() {
        chain.addSend(1, WorkRequests.OPCODE_SEND, WorkRequests.FLAG_INLINE, 0x1000, 40, 0, 0, 0, 0);
        chain.addGather(2, 0, 0x2000, 16, 0x11, 0x7f0000, 8176, 0x22);
        chain.addSend(3, WorkRequests.OPCODE_RDMA_WRITE_WITH_IMM, 0, 0x3000, 64, 0x33, 0x9000, 0x44, 7);
        ByteBuffer memory = chain.layout();
        long base = chain.address();

        assertEquals(base + WR, memory.getLong(8), "the first request's next");
        assertEquals(base + 2 * WR, memory.getLong(WR + 8), "the gather's next");
        assertEquals(0, memory.getLong(2 * WR + 8), "the last request's next");

        assertEquals(1, memory.getInt(24), "a plain Send's entries");
        assertSge(memory, memory.getLong(16) - base, 0x1000, 40, 0);

        int gather = WR;
        assertEquals(2, connectionPart(memory.getLong(gather)), "the gather's wr_id");
        assertEquals(WorkRequests.OPCODE_SEND, memory.getInt(gather + 28), "the gather's opcode");
        assertEquals(2, memory.getInt(gather + 24), "the gather's entries");
        long entries = memory.getLong(gather + 16) - base;
        assertSge(memory, entries, 0x2000, 16, 0x11);
        assertSge(memory, entries + SGE, 0x7f0000, 8176, 0x22);

        int write = 2 * WR;
        assertEquals(1, memory.getInt(write + 24), "the Write's entries");
        assertSge(memory, memory.getLong(write + 16) - base, 0x3000, 64, 0x33);
        assertEquals(0x9000, memory.getLong(write + 40), "the Write's remote address");
        assertEquals(0x44, memory.getInt(write + 48), "the Write's rkey");
    }

    @Test
    void entriesOfDifferentRequestsDoNotOverlap() {
        chain.addGather(1, 0, 0x2000, 16, 1, 0x5000, 100, 2);
        chain.addGather(2, 0, 0x2010, 16, 1, 0x6000, 200, 2);
        ByteBuffer memory = chain.layout();
        long base = chain.address();
        long first = memory.getLong(16) - base;
        long second = memory.getLong(WR + 16) - base;
        assertEquals(first + 2 * SGE, second, "the second gather's entries follow the first's two");
        assertSge(memory, first + SGE, 0x5000, 100, 2);
        assertSge(memory, second, 0x2010, 16, 1);
        assertSge(memory, second + SGE, 0x6000, 200, 2);
    }

    private static long connectionPart(long wrId) {
        return WorkRequests.connectionPart(wrId);
    }

    private static void assertSge(ByteBuffer memory, long offset, long address, int length, int lkey) {
        int at = (int) offset;
        assertEquals(address, memory.getLong(at), "entry's address");
        assertEquals(length, memory.getInt(at + 8), "entry's length");
        assertEquals(lkey, memory.getInt(at + 12), "entry's lkey");
    }
}
