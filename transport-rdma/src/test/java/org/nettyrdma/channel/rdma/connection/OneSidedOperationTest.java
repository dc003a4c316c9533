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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.nettyrdma.channel.rdma.OneSidedCompletion;
import org.nettyrdma.channel.rdma.RemoteAccess;
import org.nettyrdma.channel.rdma.RemoteRegion;
import org.nettyrdma.channel.rdma.internal.WorkRequests;

/**
 * {@link OneSidedOperation}'s bookkeeping, without a device: told once, with the right result, only
 * after its last part; a failure told at once, the Write's bytes released, the record given back only
 * when its parts are done; and records reused, so that a steady run allocates nothing.
 */
class OneSidedOperationTest {

    private static final RemoteRegion REMOTE = new RemoteRegion(4096, 4096, 7, EnumSet.allOf(RemoteAccess.class));
    /** A fresh pool for each test; nothing is posted here. */
    private final OneSidedOperationPool pool = new OneSidedOperationPool(operation -> {
        throw new AssertionError("not posted here");
    });

    /** Counts what it is told. */
    private static final class Told implements OneSidedCompletion {
        int calls;
        long result;
        Throwable cause;

        @Override
        public void operationComplete(long result, Throwable cause) {
            calls++;
            this.result = result;
            this.cause = cause;
        }
    }

    /** A buffer no leak tracker follows: its records would count as garbage. */
    private static ByteBuf untracked(int capacity) {
        return Unpooled.wrappedBuffer(ByteBuffer.allocateDirect(capacity)).clear();
    }

    @Test
    void aReadInPartsIsToldOnceAfterItsLastPartAndAdvancesTheWriterIndex() {
        ByteBuf destination = untracked(256).writerIndex(10);
        Told told = new Told();
        OneSidedOperation read = pool.read(REMOTE, 0, 100, destination, 10, told);
        read.partsLeft = 2;
        read.partDone();
        assertEquals(0, told.calls, "a part is left");
        assertEquals(10, destination.writerIndex());
        read.partDone();
        assertEquals(1, told.calls);
        assertEquals(100, told.result, "the bytes read");
        assertNull(told.cause);
        assertEquals(110, destination.writerIndex());
        assertEquals(1, destination.refCnt(), "the destination stays the caller's");
        destination.release();
    }

    @Test
    void anAtomicIsToldTheWordsOldValue() {
        Told told = new Told();
        OneSidedOperation add = pool.atomic(REMOTE, 8, WorkRequests.OPCODE_ATOMIC_FETCH_AND_ADD,
                1, 0, "a fetch-and-add", told);
        assertTrue(add.isAtomic());
        add.partsLeft = 1;
        add.value = -5;
        add.partDone();
        assertEquals(1, told.calls);
        assertEquals(-5, told.result);
    }

    @Test
    void aFailedWriteIsToldAtOnceAndGivenBackAfterItsLastPart() {
        ByteBuf source = untracked(64).writeZero(64);
        Told told = new Told();
        OneSidedOperation write = pool.write(REMOTE, 0, source, told);
        write.partsLeft = 2;
        IOException cause = new IOException("refused");
        write.fail(cause);
        assertEquals(1, told.calls, "told at once");
        assertSame(cause, told.cause);
        assertEquals(0, told.result);
        assertEquals(0, source.refCnt(), "the Write's bytes were released");
        write.fail(new IOException("again"));
        write.partDone();
        write.partDone();
        assertEquals(1, told.calls, "told once, whatever its other parts did");
        assertSame(cause, told.cause);
    }

    @Test
    void anOperationThatFailsBeforeItsPartsIsToldAndGivenBack() {
        Told told = new Told();
        ByteBuf destination = untracked(8);
        OneSidedOperation first = pool.read(REMOTE, 0, 8, destination, 0, told);
        first.fail(new IOException("closed"));
        assertEquals(1, told.calls);
        assertEquals(0, destination.writerIndex(), "a failed Read leaves the writer index");
        assertEquals(1, destination.refCnt(), "and the destination the caller's");
        assertNull(first.buffer, "given back to the pool, it holds nothing of the caller's");
        // Given back before it was told: the next operation takes the same record.
        assertSame(first, pool.read(REMOTE, 0, 8, destination, 0, told));
        destination.release();
    }

    @Test
    void thePoolKeepsABoundedNumberOfRecords() {
        Told told = new Told();
        List<OneSidedOperation> inFlight = new ArrayList<>();
        for (int i = 0; i < OneSidedOperationPool.CAPACITY + 10; i++) {
            OneSidedOperation add = pool.atomic(REMOTE, 0, WorkRequests.OPCODE_ATOMIC_FETCH_AND_ADD, 1, 0,
                    "a fetch-and-add", told);
            add.partsLeft = 1;
            inFlight.add(add);
        }
        inFlight.forEach(OneSidedOperation::partDone);
        assertEquals(OneSidedOperationPool.CAPACITY + 10, told.calls);
        Set<OneSidedOperation> reused = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = 0; i < OneSidedOperationPool.CAPACITY + 10; i++) {
            reused.add(pool.atomic(REMOTE, 0, WorkRequests.OPCODE_ATOMIC_FETCH_AND_ADD, 1, 0, "a fetch-and-add", told));
        }
        reused.retainAll(inFlight);
        assertEquals(OneSidedOperationPool.CAPACITY, reused.size(), "the records kept, and no more");
    }

    @Test
    void aSteadyRunOfOperationsAllocatesNothing() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported());
        threads.setThreadAllocatedMemoryEnabled(true);
        ByteBuf destination = untracked(64);
        Told told = new Told();
        int operations = 10_000;
        long least = Long.MAX_VALUE;
        // Rounds until the JIT compiled the path; the least a round allocated counts. A record or a
        // boxed result per operation would be at least 16 bytes each.
        for (int round = 0; round < 20 && least >= operations; round++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < operations; i++) {
                OneSidedOperation read = pool.read(REMOTE, 0, 64, destination.clear(), 0, told);
                read.partsLeft = 1;
                read.partDone();
                OneSidedOperation add = pool.atomic(REMOTE, 0,
                        WorkRequests.OPCODE_ATOMIC_FETCH_AND_ADD, 1, 0, "a fetch-and-add", told);
                add.partsLeft = 1;
                add.value = i;
                add.partDone();
            }
            least = Math.min(least, threads.getCurrentThreadAllocatedBytes() - before);
        }
        assertTrue(least < operations, least + " bytes for " + 2 * operations + " operations");
        assertEquals(operations - 1, told.result);
        destination.release();
    }
}
