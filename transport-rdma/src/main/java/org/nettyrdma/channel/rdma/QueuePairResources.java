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
package org.nettyrdma.channel.rdma;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.ThreadLocalRandom;

import com.ibm.disni.verbs.impl.NativeDispatcher;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.internal.CompletionQueue;
import org.nettyrdma.channel.rdma.internal.DisniNative;
import org.nettyrdma.channel.rdma.internal.RdmaDevice;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.channel.rdma.internal.RegisteredBuffer;
import org.nettyrdma.channel.rdma.internal.SharedReceiveQueue;

/**
 * The verbs objects of one connection, and their frees: the queue pair, made on the loop's shared
 * receive queue, its reservation in the loop's completion queue, and, from this side's
 * {@code HELLO} on, the ring the peer writes into with its memory window. The memory sends are
 * staged in is not here: the sender takes it from the shared pool while sends are in flight
 * ({@link RdmaSender}).
 *
 * <p>The ring is made only when this side sends its {@code HELLO}: an accepting side sends it in
 * answer to the peer's, so a peer that connects and never speaks holds a queue pair and its
 * reservation in the shared receive queue ({@link RdmaReceiver}), no memory of its own.
 *
 * <p>The ring is registered without remote access; the peer writes into it through a type-2 memory
 * window bound to this connection's queue pair (docs/security.md). A window's rkey works only on the
 * queue pair it is bound to, whereas an rkey of a memory region works on every queue pair of the
 * protection domain, which all connections on a device share. The window dies with the connection.
 * A connection on a device whose windows do not confine a peer has no ring and no window
 * ({@link RingPolicy}).
 *
 * <p>Used on the channel's event loop only.
 */
final class QueuePairResources {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(QueuePairResources.class);

    /** {@code IBV_ACCESS_REMOTE_WRITE}: what the window grants the peer; never remote read. */
    private static final int REMOTE_WRITE = 2;

    private final NativeDispatcher verbs = DisniNative.dispatcher();
    private final RdmaDevice device;
    private final CompletionQueue cq;
    private final int cqEntries;
    private final long id;
    private final SharedReceiveQueue srq;
    /** The {@code ibv_qp*}; 0 until created. */
    private long qp;
    private int qpNum;
    private int maxInline;
    private RegisteredBuffer ring;
    private long window;
    private int ringKey;
    private boolean closed;

    private QueuePairResources(CompletionQueue cq, int cqEntries, long id, SharedReceiveQueue srq) {
        this.device = cq.device();
        this.cq = cq;
        this.cqEntries = cqEntries;
        this.id = id;
        this.srq = srq;
    }

    /**
     * Creates the queue pair on {@code id}, taking its receives from {@code srq}, with
     * {@code cqEntries} already reserved in {@code cq}: the result owns that reservation. All or
     * nothing: on failure whatever was made is freed, in reverse order, and the reservation is returned.
     */
    static QueuePairResources create(CompletionQueue cq, int cqEntries, long id, SharedReceiveQueue srq,
                                     int sendDepth, int maxInlineData) throws IOException {
        QueuePairResources resources = new QueuePairResources(cq, cqEntries, id, srq);
        boolean created = false;
        try {
            resources.open(sendDepth, maxInlineData);
            created = true;
            return resources;
        } finally {
            if (!created) {
                resources.close();
            }
        }
    }

    /** Makes the queue pair, stored as soon as it exists so that {@link #close()} frees it. */
    private void open(int sendDepth, int maxInlineData) throws IOException {
        ByteBuffer cap = ByteBuffer.allocateDirect(RdmaNative.QP_CAP_SIZE).order(ByteOrder.nativeOrder());
        qp = createQp(device, cq, id, srq, cap, sendDepth, maxInlineData);
        // A device may grant more than was asked (rxe reports room for one SGE, 16 bytes, when 0
        // was asked); what the user asked for still bounds it, so that 0 means none.
        maxInline = Math.min(maxInlineData, cap.getInt(RdmaNative.QP_CAP_MAX_INLINE_DATA_OFFSET));
        qpNum = verbs._getQpNum(qp);
    }

    /**
     * Returns the most registered bytes a connection holds: its share of receive slots, its ring, and
     * the staging blocks of its sends in flight, at most {@code sendLimit} ({@code SO_SNDBUF}).
     */
    static long registeredBytes(int slots, int slotSize, int ringSize, int sendLimit) {
        return (long) slots * slotSize + ringSize + sendLimit;
    }

    /**
     * Creates the queue pair with room for {@code inline} bytes of inline data; if the device refuses
     * that, without inline data, since a provider's limit cannot be queried before.
     */
    private static long createQp(RdmaDevice device, CompletionQueue cq, long id, SharedReceiveQueue srq,
                                 ByteBuffer cap, int sendDepth, int inline) throws IOException {
        cap.putInt(RdmaNative.QP_CAP_MAX_SEND_WR_OFFSET, sendDepth)
                .putInt(RdmaNative.QP_CAP_MAX_RECV_WR_OFFSET, 0)
                .putInt(RdmaNative.QP_CAP_MAX_SEND_SGE_OFFSET, 1)
                .putInt(RdmaNative.QP_CAP_MAX_RECV_SGE_OFFSET, 0)
                .putInt(RdmaNative.QP_CAP_MAX_INLINE_DATA_OFFSET, inline);
        try {
            return RdmaNative.createQp(id, device.pd(), cq.cq(), cq.cq(), srq.srq(),
                    RdmaNative.directBufferAddress(cap));
        } catch (IOException e) {
            if (inline == 0) {
                throw e;
            }
            try {
                return createQp(device, cq, id, srq, cap, sendDepth, 0);
            } catch (IOException again) {
                again.addSuppressed(e);
                throw again;
            }
        }
    }

    /**
     * Registers the ring of {@code ringSize} bytes with its memory window, unless {@code ringSize} is 0
     * (no ring: the peer may write nowhere). On failure the connection fails, and {@link #close()}
     * frees what was made.
     */
    void openBuffers(int ringSize) throws IOException {
        // Each is stored as soon as it exists: close() frees what a failure here leaves.
        if (ringSize > 0) {
            ring = new RegisteredBuffer(device, ringSize, RegisteredBuffer.LOCAL_WRITE | RegisteredBuffer.MW_BIND,
                    "the receive ring of a connection");
            window = RdmaNative.allocMw(device.pd());
        }
    }

    /**
     * Posts, unsignaled, the bind of the memory window over the whole ring to this queue pair, with a
     * fresh key: from then on the peer may write into the ring with {@link #ringKey()}, and only it.
     * The bind runs before any request posted after it, such as the {@code HELLO} that carries the key.
     */
    void bindRing(long wrId) throws IOException {
        int current = RdmaNative.mwRkey(window);
        // The low byte is the key the consumer chooses; it must change with every bind.
        int key = (current + 1 + ThreadLocalRandom.current().nextInt(255)) & 0xff;
        int rkey = (current & 0xffffff00) | key;
        RdmaNative.postBindMw(qp, wrId, false, window, rkey, ring.mr(), ring.address(), ring.size(), REMOTE_WRITE);
        ringKey = rkey;
    }

    RdmaDevice device() {
        return device;
    }

    long qp() {
        return qp;
    }

    int qpNum() {
        return qpNum;
    }

    /** The largest Send posted inline: what the user asked for, as far as the device granted it. */
    int maxInline() {
        return maxInline;
    }

    /** Returns the shared receive queue the queue pair takes its receives from. */
    SharedReceiveQueue sharedReceiveQueue() {
        return srq;
    }

    /** The ring; {@code null} before {@link #openBuffers}, and for a connection without one. */
    RegisteredBuffer ring() {
        return ring;
    }

    /** The rkey of the window over the ring, once bound. */
    int ringKey() {
        return ringKey;
    }

    /** Returns the registered bytes of its own held now: the ring (slots are shared, staging blocks the sender's). */
    long registeredBytes() {
        return ring != null ? ring.size() : 0;
    }

    /**
     * Moves the queue pair to the error state, so that every posted request comes back flushed, and
     * starts an orderly disconnect: the peer gets {@code DISCONNECTED}.
     */
    void disconnect() {
        if (qp != 0) {
            try {
                RdmaNative.modifyQpToError(qp);
            } catch (IOException e) {
                logger.warn("qp {}: moving it to the error state failed", qpNum, e);
            }
        }
        int result = verbs._disconnect(id);
        if (result != 0) {
            // Not connected (yet or any more): a refused or never established connection has nothing to end.
            logger.debug("qp {}: rdma_disconnect returned {}", qpNum, result);
        }
    }

    /**
     * Frees everything this holds, once, whatever part of it was made: the window first, so the peer
     * reaches nothing any more, then the queue pair, so the device reaches nothing any more, then the
     * registrations in the reverse order of their making, and last the completion queue entries. The
     * window goes before the queue pair because rxe keeps a bound window's queue pair alive, and destroying
     * the queue pair first stalls in the kernel (docs/decisions.md#teardown-order).
     * The ring's memory outlives this while buffers handed up over it are not released
     * ({@link RegisteredBuffer}).
     */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            deallocWindow(window);
            window = 0;
            if (qp != 0) {
                srq.detach(qpNum);
                int result = verbs._destroyQP(id);
                if (result != 0) {
                    logger.warn("qp {}: rdma_destroy_qp returned {}", qpNum, result);
                }
            }
        } finally {
            try {
                closeBuffer(ring);
            } finally {
                cq.unreserve(cqEntries);
            }
        }
    }

    private static void closeBuffer(RegisteredBuffer buffer) {
        if (buffer != null) {
            buffer.close();
        }
    }

    private void deallocWindow(long mw) {
        if (mw == 0) {
            return;
        }
        try {
            RdmaNative.deallocMw(mw);
        } catch (IOException e) {
            logger.warn("qp {}: freeing the memory window of the ring failed", qpNum, e);
        }
    }
}
