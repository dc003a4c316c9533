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

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.ThreadLocalRandom;

import com.ibm.disni.verbs.impl.NativeDispatcher;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.internal.DisniNative;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.channel.rdma.loop.CompletionQueue;
import org.nettyrdma.channel.rdma.loop.SharedReceiveQueue;
import org.nettyrdma.channel.rdma.memory.ConnectionBudget;
import org.nettyrdma.channel.rdma.memory.RdmaDevice;
import org.nettyrdma.channel.rdma.memory.RegisteredBuffer;
import org.nettyrdma.channel.rdma.protocol.RdmaProtocol;

/**
 * The verbs objects of one connection, and their frees: the queue pair, made on the loop's shared
 * receive queue, its reservation in the loop's completion queue, and, while a ring is open to the
 * peer, the memory window the peer writes into it through. The memory sends are staged in is not
 * here: the sender takes it from the shared pool while sends are in flight ({@link RdmaSender});
 * nor are the rings, which the receiver holds as they come and go ({@link RdmaReceiver}).
 *
 * <p>A ring is registered without remote access, as a region of its own; the peer writes into it
 * through a type-2 memory window bound to this connection's queue pair (docs/security.md). A window's
 * rkey works only on the queue pair it is bound to, whereas an rkey of a memory region works on every
 * queue pair of the protection domain, which all connections on a device share. The window is
 * allocated when a ring opens and freed when the peer released it, so its key is dead before the
 * ring's memory is deregistered. A connection on a device whose windows do not confine a peer opens
 * no ring and allocates no window ({@link RingPolicy}).
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
    private int controlInline;
    /** The queue pair takes two scatter/gather entries per send request. */
    private boolean gathers;
    /** The {@code ibv_mw*} over the open ring; 0 while none is open. */
    private long window;
    private boolean closed;
    /** Whether this holds one of the process's {@link ConnectionBudget} queue pairs. */
    private boolean counted;

    /**
     * Takes over what a connection was given before its queue pair exists: {@code cqEntries} reserved
     * in {@code cq}, and the receive queue {@code srq}. {@link #close()} gives both back, whether or
     * not {@link #open} made the queue pair.
     */
    QueuePairResources(CompletionQueue cq, int cqEntries, long id, SharedReceiveQueue srq) {
        this.device = cq.device();
        this.cq = cq;
        this.cqEntries = cqEntries;
        this.id = id;
        this.srq = srq;
    }

    /**
     * Creates the queue pair on {@code id}, taking its receives from the receive queue and completing
     * into the completion queue, once one queue pair of the process's {@link ConnectionBudget} is
     * reserved for it. On failure nothing more is held; {@link #close()} still frees what was given.
     *
     * @throws ConnectionBudget.LimitReachedException if the process holds as many queue pairs as it may
     */
    void open(int sendDepth, int maxInlineData) throws IOException {
        ConnectionBudget.reserve("a connection");
        counted = true;
        createQueuePair(sendDepth, maxInlineData);
    }

    /** Makes the queue pair, stored as soon as it exists so that {@link #close()} frees it. */
    private void createQueuePair(int sendDepth, int maxInlineData) throws IOException {
        ByteBuffer cap = ByteBuffer.allocateDirect(RdmaNative.QP_CAP_SIZE).order(ByteOrder.nativeOrder());
        // Room for every control message inline whatever the user asked for: then none needs
        // registered memory, and a burst of closes takes no staging block.
        qp = createQp(device, cq, id, srq, cap, sendDepth, Math.max(maxInlineData, RdmaProtocol.MAX_CONTROL_SIZE));
        srq.queuePairCreated(qp);
        // A device may grant more than was asked (rxe reports room for one SGE, 16 bytes, when 0
        // was asked); what the user asked for still bounds the data Sends, so that 0 means none.
        int granted = cap.getInt(RdmaNative.QP_CAP_MAX_INLINE_DATA_OFFSET);
        maxInline = Math.min(maxInlineData, granted);
        controlInline = Math.min(Math.max(maxInlineData, RdmaProtocol.MAX_CONTROL_SIZE), granted);
        gathers = cap.getInt(RdmaNative.QP_CAP_MAX_SEND_SGE_OFFSET) >= 2;
        qpNum = verbs._getQpNum(qp);
    }

    /**
     * Returns the most registered bytes a connection holds: its share of receive slots, a ring of
     * {@code ringSize} if one is open, and the staging blocks it holds while it sends, at most
     * {@code sendLimit} ({@code SO_SNDBUF}).
     */
    static long registeredBytes(int slots, int slotSize, int ringSize, int sendLimit) {
        return (long) slots * slotSize + ringSize + sendLimit;
    }

    /**
     * Creates the queue pair with room for {@code inline} bytes of inline data; if the device refuses
     * that, with room for the control messages only, and then without inline data, since a provider's
     * limit cannot be queried before.
     */
    private static long createQp(RdmaDevice device, CompletionQueue cq, long id, SharedReceiveQueue srq,
                                 ByteBuffer cap, int sendDepth, int inline) throws IOException {
        // A queue pair on an ibv_srq has no receive queue; one without takes its slots into its own.
        int receives = srq.queuePairReceives();
        cap.putInt(RdmaNative.QP_CAP_MAX_SEND_WR_OFFSET, sendDepth)
                .putInt(RdmaNative.QP_CAP_MAX_RECV_WR_OFFSET, receives)
                .putInt(RdmaNative.QP_CAP_MAX_SEND_SGE_OFFSET, device.verbs().gathersSends() ? 2 : 1)
                .putInt(RdmaNative.QP_CAP_MAX_RECV_SGE_OFFSET, receives > 0 ? 1 : 0)
                .putInt(RdmaNative.QP_CAP_MAX_INLINE_DATA_OFFSET, inline);
        try {
            return RdmaNative.createQp(id, srq.pd(), cq.cq(), cq.cq(), srq.srq(),
                    RdmaNative.directBufferAddress(cap));
        } catch (IOException e) {
            if (inline == 0) {
                throw e;
            }
            int less = inline > RdmaProtocol.MAX_CONTROL_SIZE ? RdmaProtocol.MAX_CONTROL_SIZE : 0;
            try {
                return createQp(device, cq, id, srq, cap, sendDepth, less);
            } catch (IOException again) {
                again.addSuppressed(e);
                throw again;
            }
        }
    }

    /**
     * Registers {@code size} bytes for a ring: local write and window binds only, so that only a
     * window's key reaches it, and as a region of its own, so that even a device that checks a
     * window's bounds only against its region's (rxe) confines the peer to the ring.
     *
     * @throws IOException if the registered memory limit or the device refuses it
     */
    RegisteredBuffer registerRing(int size) throws IOException {
        return new RegisteredBuffer(device, size, RegisteredBuffer.LOCAL_WRITE | RegisteredBuffer.MW_BIND,
                "a receive ring");
    }

    /**
     * Allocates a memory window and posts, unsignaled, its bind over the whole of {@code ring} to this
     * queue pair, with a fresh key: from then on the peer may write into the ring with that key, and
     * only it. The bind runs before any request posted after it, such as the {@code RING} that carries
     * the key.
     *
     * @return the key
     */
    int bindRing(long wrId, RegisteredBuffer ring) throws IOException {
        if (window != 0) {
            throw new IllegalStateException("qp " + qpNum + ": a ring is open already");
        }
        window = RdmaNative.allocMw(srq.pd());
        int current = RdmaNative.mwRkey(window);
        // The low byte is the key the consumer chooses; it must change with every bind.
        int key = (current + 1 + ThreadLocalRandom.current().nextInt(255)) & 0xff;
        int rkey = (current & 0xffffff00) | key;
        RdmaNative.postBindMw(qp, wrId, false, window, rkey, ring.mr(), ring.address(), ring.size(), REMOTE_WRITE);
        return rkey;
    }

    /**
     * Frees the window over the ring the peer released: its key is dead from now on, before the ring's
     * memory is deregistered and, later, reused.
     */
    void revokeRing() {
        deallocWindow(window);
        window = 0;
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

    /** Returns {@code true} if a Send may gather a header and a registered buffer's bytes (two entries). */
    boolean gathers() {
        return gathers;
    }

    /** The largest Send posted inline: what the user asked for, as far as the device granted it. */
    int maxInline() {
        return maxInline;
    }

    /**
     * The largest {@code HELLO} or control message posted inline: at least
     * {@link RdmaProtocol#MAX_CONTROL_SIZE} where the device granted it, whatever the user asked for.
     */
    int controlInline() {
        return controlInline;
    }

    /** Returns {@code true} if the queue pair's sends and receives complete into {@code queue}. */
    boolean completesInto(CompletionQueue queue) {
        return cq == queue;
    }

    /** Returns the shared receive queue the queue pair takes its receives from. */
    SharedReceiveQueue sharedReceiveQueue() {
        return srq;
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
     * reaches nothing any more, then the queue pair, so the device reaches nothing any more, and last
     * the completion queue entries. The window goes before the queue pair because rxe keeps a bound
     * window's queue pair alive, and destroying the queue pair first stalls in the kernel
     * (docs/decisions.md#teardown-order). The rings' registrations go after this, with the receiver.
     */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            deallocWindow(window);
            window = 0;
            boolean destroyed = qp == 0;
            if (qp != 0) {
                srq.detach(qpNum);
                int result = verbs._destroyQP(id);
                if (result != 0) {
                    logger.warn("qp {}: rdma_destroy_qp returned {}", qpNum, result);
                } else {
                    srq.queuePairDestroyed();
                    destroyed = true;
                }
            }
            if (qp == 0) {
                // No queue pair was made on it: a connection's own queue goes now.
                srq.releaseIfUnused();
            }
            // A queue pair the device did not destroy still costs what the bound is for.
            if (counted && destroyed) {
                ConnectionBudget.release();
            }
        } finally {
            cq.unreserve(cqEntries);
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
