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

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import com.ibm.disni.verbs.impl.NativeDispatcher;
import io.netty.util.internal.CleanableDirectBuffer;
import io.netty.util.internal.PlatformDependent;

/**
 * A chain of work requests built in direct memory and posted with one {@code ibv_post_send} or
 * {@code ibv_post_recv}: one flush becomes one post, and building it allocates nothing.
 *
 * <p>Layouts are rdma-core's on x86-64 ({@code struct ibv_send_wr}: 128 bytes, {@code ibv_recv_wr}:
 * 32, {@code ibv_sge}: 16), the same DiSNI's start-up check verifies against the native library. A
 * receive has one scatter/gather entry; a send has room for two ({@link #addGather}) and uses one
 * otherwise. Bytes this class never writes stay zero. Not thread-safe.
 *
 * <p>Every {@code wr_id} carries, in bits {@value #OWNER_SHIFT} to 61, the id of the channel's
 * registration with its loop, as io_uring's user data carries the id of its registration: the loop
 * finds the channel of a completion by it, and a chain gets it when the registration claims it
 * ({@code RdmaIoRegistration#submit}). The bits below, and bit 62, are the connection's: it gives
 * each request an id there, and sees only those bits in its completions ({@link #connectionPart}).
 *
 * <p>The memory comes from Netty's {@code PlatformDependent.allocateDirect}, which on some JDKs no
 * collector frees: its owner calls {@link #close()} when its connection closes. A chain used after
 * that throws instead of writing to freed memory.
 */
public final class WorkRequests {

    /** {@code IBV_WR_RDMA_WRITE}: no completion, and no receive used, at the peer. */
    public static final int OPCODE_RDMA_WRITE = 0;
    /** {@code IBV_WR_RDMA_WRITE_WITH_IMM}. */
    public static final int OPCODE_RDMA_WRITE_WITH_IMM = 1;
    /** {@code IBV_WR_SEND}. */
    public static final int OPCODE_SEND = 2;
    /** {@code IBV_WR_RDMA_READ}: the device reads the peer's memory into a local buffer. */
    public static final int OPCODE_RDMA_READ = 4;
    /** {@code IBV_WR_ATOMIC_CMP_AND_SWP}. */
    public static final int OPCODE_ATOMIC_CMP_AND_SWP = 5;
    /** {@code IBV_WR_ATOMIC_FETCH_AND_ADD}. */
    public static final int OPCODE_ATOMIC_FETCH_AND_ADD = 6;
    /** {@code IBV_SEND_SIGNALED}: this request produces a completion. */
    public static final int FLAG_SIGNALED = 2;
    /**
     * {@code IBV_SEND_INLINE}: the provider copies the bytes into the work request when it is posted,
     * so the device does not read them from registered memory (one DMA read fewer per small Send).
     */
    public static final int FLAG_INLINE = 8;

    /** The lowest bit of the registration id in a {@code wr_id}. */
    public static final int OWNER_SHIFT = 46;
    /** The largest registration id: 16 bits, below the connection's bit 62. */
    public static final int MAX_OWNER = 0xFFFF;
    private static final long OWNER_BITS = (long) MAX_OWNER << OWNER_SHIFT;

    private static final int SEND_WR_SIZE = 128;
    private static final int RECV_WR_SIZE = 32;
    private static final int SGE_SIZE = 16;
    /** The scatter/gather entries a send request has room for: a header and a buffer read in place. */
    private static final int SEND_SGES = 2;
    private static final int WR_ID = 0;
    private static final int NEXT = 8;
    private static final int SG_LIST = 16;
    private static final int NUM_SGE = 24;
    private static final int OPCODE = 28;
    private static final int SEND_FLAGS = 32;
    private static final int IMM_DATA = 36;
    private static final int REMOTE_ADDR = 40;
    private static final int RKEY = 48;
    /** {@code wr.atomic}: {@code remote_addr} at {@link #REMOTE_ADDR}, then these. */
    private static final int COMPARE_ADD = 48;
    private static final int SWAP = 56;
    private static final int ATOMIC_RKEY = 64;

    private final NativeDispatcher verbs = DisniNative.dispatcher();
    private final boolean send;
    private final int capacity;
    private final int wrSize;
    private final int sgeRoom;
    private final CleanableDirectBuffer allocation;
    private final ByteBuffer memory;
    private final long address;
    private final long sgeBase;
    /** The owner's id, shifted into place: OR-ed into every {@code wr_id}. */
    private long owner;
    private int count;
    private boolean closed;

    private WorkRequests(boolean send, int capacity) {
        this.send = send;
        this.capacity = capacity;
        this.wrSize = send ? SEND_WR_SIZE : RECV_WR_SIZE;
        this.sgeRoom = (send ? SEND_SGES : 1) * SGE_SIZE;
        allocation = PlatformDependent.allocateDirect(capacity * (wrSize + sgeRoom));
        memory = allocation.buffer().order(ByteOrder.nativeOrder());
        // Some of Netty's allocators do not zero the memory (malloc); the fields never written must be 0.
        for (int i = 0; i < memory.capacity(); i += Long.BYTES) {
            memory.putLong(i, 0);
        }
        address = RdmaNative.directBufferAddress(memory);
        sgeBase = (long) capacity * wrSize;
    }

    /** Creates a chain of at most {@code capacity} send work requests. */
    public static WorkRequests sends(int capacity) {
        return new WorkRequests(true, capacity);
    }

    /** Creates a chain of at most {@code capacity} receive work requests. */
    public static WorkRequests receives(int capacity) {
        return new WorkRequests(false, capacity);
    }

    /** Returns the registration id a completion's {@code wr_id} carries. */
    public static int ownerOf(long wrId) {
        return (int) (wrId >>> OWNER_SHIFT) & MAX_OWNER;
    }

    /** Returns the bits of a completion's {@code wr_id} that the connection chose. */
    public static long connectionPart(long wrId) {
        return wrId & ~OWNER_BITS;
    }

    /** Makes every request of this chain carry {@code ownerId}, from the next one appended. */
    public void claim(int ownerId) {
        owner = (long) ownerId << OWNER_SHIFT;
    }

    /**
     * Returns {@code wrId} with this chain's owner in it: for a request posted outside a chain (the
     * bind of a memory window) whose completion must reach the same channel.
     *
     * @throws IllegalArgumentException if {@code wrId} uses the owner's bits
     */
    public long stamp(long wrId) {
        if ((wrId & OWNER_BITS) != 0) {
            // A connection's sequence numbers reach this after 2^46 requests: fail, never misroute.
            throw new IllegalArgumentException("wr_id 0x" + Long.toHexString(wrId)
                    + " uses the registration id's bits " + OWNER_SHIFT + "-61");
        }
        return wrId | owner;
    }

    /** Returns the number of requests in the chain. */
    public int count() {
        return count;
    }

    /** Returns {@code true} if no more requests fit. */
    public boolean isFull() {
        return count == capacity;
    }

    /** Appends a send request: a Send ({@code remoteAddress}, {@code rkey}, {@code immediate} unused) or a Write. */
    public void addSend(long wrId, int opcode, int flags, long localAddress, int length, int lkey,
                        long remoteAddress, int rkey, int immediate) {
        int wr = append(wrId, localAddress, length, lkey);
        memory.putInt(wr + OPCODE, opcode);
        memory.putInt(wr + SEND_FLAGS, flags);
        memory.putInt(wr + IMM_DATA, immediate);
        memory.putLong(wr + REMOTE_ADDR, remoteAddress);
        memory.putInt(wr + RKEY, rkey);
    }

    /**
     * Appends a Send that gathers two pieces: {@code headerLength} bytes at {@code headerAddress}
     * ({@code headerLkey}), then {@code payloadLength} bytes at {@code payloadAddress}
     * ({@code payloadLkey}). The queue pair must take two scatter/gather entries per send request.
     */
    public void addGather(long wrId, int flags, long headerAddress, int headerLength, int headerLkey,
                          long payloadAddress, int payloadLength, int payloadLkey) {
        addSend(wrId, OPCODE_SEND, flags, headerAddress, headerLength, headerLkey, 0, 0, 0);
        int wr = (count - 1) * wrSize;
        int sge = (int) sgeBase + (count - 1) * sgeRoom + SGE_SIZE;
        memory.putInt(wr + NUM_SGE, 2);
        memory.putLong(sge, payloadAddress);
        memory.putInt(sge + 8, payloadLength);
        memory.putInt(sge + 12, payloadLkey);
    }

    /**
     * Appends an atomic request on the 8-byte word at {@code remoteAddress}: its old value lands at
     * {@code localAddress}. {@code compareAdd} is the value compared, or added; {@code swap} the
     * value written if equal (unused by fetch-and-add).
     */
    public void addAtomic(long wrId, int opcode, int flags, long localAddress, int lkey, long remoteAddress,
                          int rkey, long compareAdd, long swap) {
        int wr = append(wrId, localAddress, Long.BYTES, lkey);
        memory.putInt(wr + OPCODE, opcode);
        memory.putInt(wr + SEND_FLAGS, flags);
        memory.putInt(wr + IMM_DATA, 0);
        memory.putLong(wr + REMOTE_ADDR, remoteAddress);
        memory.putLong(wr + COMPARE_ADD, compareAdd);
        memory.putLong(wr + SWAP, swap);
        memory.putInt(wr + ATOMIC_RKEY, rkey);
    }

    /** Appends a receive request for {@code length} bytes at {@code localAddress}. */
    public void addReceive(long wrId, long localAddress, int length, int lkey) {
        append(wrId, localAddress, length, lkey);
    }

    /** Sets or clears {@link #FLAG_SIGNALED} on the last request of the chain. */
    public void signalLast(boolean signaled) {
        ensureOpen();
        int wr = (count - 1) * wrSize;
        int flags = memory.getInt(wr + SEND_FLAGS);
        memory.putInt(wr + SEND_FLAGS, signaled ? flags | FLAG_SIGNALED : flags & ~FLAG_SIGNALED);
    }

    private int append(long wrId, long localAddress, int length, int lkey) {
        ensureOpen();
        if (count == capacity) {
            throw new IllegalStateException("work request chain full: " + capacity);
        }
        int wr = count * wrSize;
        int sge = (int) sgeBase + count * sgeRoom;
        if (count > 0) {
            memory.putLong((count - 1) * wrSize + NEXT, address + wr);
        }
        memory.putLong(wr + WR_ID, stamp(wrId));
        memory.putLong(wr + NEXT, 0);
        memory.putLong(wr + SG_LIST, address + sge);
        memory.putInt(wr + NUM_SGE, 1);
        memory.putLong(sge, localAddress);
        memory.putInt(sge + 8, length);
        memory.putInt(sge + 12, lkey);
        count++;
        return wr;
    }

    /** Returns the chain's memory, as the provider reads it: for tests of the layout. */
    ByteBuffer layout() {
        return memory.duplicate().order(ByteOrder.nativeOrder());
    }

    /** Returns the address of the chain's first request: where the provider starts reading. */
    long address() {
        return address;
    }

    /** Empties the chain without posting it. */
    public void clear() {
        count = 0;
    }

    /** Posts the chain to {@code qp} ({@code ibv_qp*}) and empties it. */
    public void post(long qp) throws IOException {
        if (count == 0) {
            return;
        }
        ensureOpen();
        try {
            if (send) {
                verbs._postSend(qp, address);
            } else {
                verbs._postRecv(qp, address);
            }
        } finally {
            count = 0;
        }
    }

    /** Posts the chain of receives to the shared receive queue {@code srq} ({@code ibv_srq*}) and empties it. */
    public void postShared(long srq) throws IOException {
        if (count == 0) {
            return;
        }
        ensureOpen();
        if (send) {
            throw new IllegalStateException("a shared receive queue takes receives only");
        }
        try {
            RdmaNative.postSrqRecv(srq, address);
        } finally {
            count = 0;
        }
    }

    /** Frees the chain's memory; nothing can be appended or posted after. Idempotent. */
    public void close() {
        if (!closed) {
            closed = true;
            count = 0;
            allocation.clean();
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("work request chain closed");
        }
    }
}
