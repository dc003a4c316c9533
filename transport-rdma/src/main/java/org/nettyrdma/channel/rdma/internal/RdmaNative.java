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

/**
 * The native calls this project needs and DiSNI 2.1 does not offer. They live in the same
 * {@code libdisni.so} as DiSNI's own entry points (see {@code src/main/c/rdma_native.c}).
 *
 * <p>Every handle is the raw C pointer as a {@code long}, exactly like DiSNI's
 * ({@code NatObject.getObjId()}), so a DiSNI object and these calls can share one native object.
 * Results that do not fit a return value are written into caller-provided native memory whose
 * layouts are fixed by the {@code *_OFFSET} constants below, little-endian as on x86-64.
 *
 * <p>Thread-safety: the calls keep no state of their own; the objects they touch follow
 * rdma-core's rules. Nothing here blocks: the event-reading calls use the channels' non-blocking
 * fds, so they are safe to call from an event loop.
 *
 * <p>The first use of this class loads the library ({@link NativeLibrary#ensureLoaded()}), as Netty's
 * native classes do, and fails with its error when the library cannot be used.
 */
public final class RdmaNative {

    // ---- CM event record written by pollCmEvent -----------------------------------------------
    /** {@code rdma_cm_id*} the event is about (for a connect request: the new child id). */
    public static final int CM_EVENT_ID_OFFSET = 0;
    /** The listening {@code rdma_cm_id*} for a connect request, else 0. */
    public static final int CM_EVENT_LISTEN_ID_OFFSET = 8;
    /** {@code enum rdma_cm_event_type}, int. */
    public static final int CM_EVENT_TYPE_OFFSET = 16;
    /** {@code event->status}, int: a negative errno, or for a reject the transport's reject reason. */
    public static final int CM_EVENT_STATUS_OFFSET = 20;
    /** Length of the private data copied to {@link #CM_EVENT_PRIVATE_DATA_OFFSET}, int. */
    public static final int CM_EVENT_PRIVATE_DATA_LENGTH_OFFSET = 24;
    /** The peer's QP number from the connection parameters, int (0 when the event has none). */
    public static final int CM_EVENT_REMOTE_QP_NUM_OFFSET = 28;
    /** Start of the peer's private data (at most {@link #CM_EVENT_PRIVATE_DATA_MAX} bytes). */
    public static final int CM_EVENT_PRIVATE_DATA_OFFSET = 32;
    /** The most private data any RDMA CM event carries (an InfiniBand REP/REJ holds 196). */
    public static final int CM_EVENT_PRIVATE_DATA_MAX = 256;
    /** Size of the CM event record. */
    public static final int CM_EVENT_SIZE = CM_EVENT_PRIVATE_DATA_OFFSET + CM_EVENT_PRIVATE_DATA_MAX;

    // ---- device attributes written by queryDevice -----------------------------------------------
    /** {@code max_mr_size}, long. */
    public static final int DEVICE_MAX_MR_SIZE_OFFSET = 0;
    /** {@code max_qp_wr}, int. */
    public static final int DEVICE_MAX_QP_WR_OFFSET = 8;
    /** {@code max_sge}, int. */
    public static final int DEVICE_MAX_SGE_OFFSET = 12;
    /** {@code max_cqe}, int. */
    public static final int DEVICE_MAX_CQE_OFFSET = 16;
    /** {@code max_mr}, int. */
    public static final int DEVICE_MAX_MR_OFFSET = 20;
    /** {@code max_qp_rd_atom}, int. */
    public static final int DEVICE_MAX_QP_RD_ATOM_OFFSET = 24;
    /** {@code max_qp_init_rd_atom}, int. */
    public static final int DEVICE_MAX_QP_INIT_RD_ATOM_OFFSET = 28;
    /** {@code max_qp}, int. */
    public static final int DEVICE_MAX_QP_OFFSET = 32;
    /** {@code max_cq}, int. */
    public static final int DEVICE_MAX_CQ_OFFSET = 36;
    /** State of port 1 ({@code enum ibv_port_state}; 4 = ACTIVE), int. */
    public static final int DEVICE_PORT_STATE_OFFSET = 40;
    /** Active MTU of port 1 in bytes (256..4096), int. */
    public static final int DEVICE_PORT_ACTIVE_MTU_OFFSET = 44;
    /** {@code max_msg_sz} of port 1, int (unsigned in C; rxe reports 2^31). */
    public static final int DEVICE_PORT_MAX_MSG_SIZE_OFFSET = 48;
    /** Number of physical ports, int. */
    public static final int DEVICE_PHYS_PORT_COUNT_OFFSET = 52;
    /** {@code vendor_id}, int (IEEE OUI; rxe reports {@code 0xffffff}). */
    public static final int DEVICE_VENDOR_ID_OFFSET = 56;
    /** {@code device_cap_flags}, int ({@code enum ibv_device_cap_flags}). */
    public static final int DEVICE_CAP_FLAGS_OFFSET = 60;
    /** {@code max_srq}, int. */
    public static final int DEVICE_MAX_SRQ_OFFSET = 64;
    /** {@code max_srq_wr}, int. */
    public static final int DEVICE_MAX_SRQ_WR_OFFSET = 68;
    /** {@code atomic_cap}, int ({@code enum ibv_atomic_cap}: {@link #ATOMIC_NONE}, HCA or GLOB). */
    public static final int DEVICE_ATOMIC_CAP_OFFSET = 72;
    /** {@code max_mw}, int: the memory windows the device can allocate, 0 if it has none. */
    public static final int DEVICE_MAX_MW_OFFSET = 76;
    /** {@code max_sge_rd}, int: the scatter entries one RDMA Read may land in. */
    public static final int DEVICE_MAX_SGE_RD_OFFSET = 80;
    /** The device's {@code transport_type}, int ({@code enum ibv_transport_type}: {@link #TRANSPORT_IWARP}, ...). */
    public static final int DEVICE_TRANSPORT_TYPE_OFFSET = 84;
    /** The device's {@code node_type}, int ({@code enum ibv_node_type}: {@link #NODE_RNIC}, ...). */
    public static final int DEVICE_NODE_TYPE_OFFSET = 88;
    /** {@code link_layer} of port 1, int ({@code IBV_LINK_LAYER_*}: 1 InfiniBand, 2 Ethernet, 0 unspecified). */
    public static final int DEVICE_PORT_LINK_LAYER_OFFSET = 92;
    /** Size of the device attribute record. */
    public static final int DEVICE_ATTR_SIZE = 96;

    // ---- device enums, checked against the header by the C build ---------------------------------
    /** {@code IBV_ATOMIC_NONE}: the device runs no atomic operation. */
    public static final int ATOMIC_NONE = 0;
    /** {@code IBV_TRANSPORT_IB}: InfiniBand's transport, RoCE's too (mlx5, rxe). */
    public static final int TRANSPORT_IB = 0;
    /** {@code IBV_TRANSPORT_IWARP}: iWARP (siw, cxgb4, irdma in iWARP mode), which has no Write with immediate. */
    public static final int TRANSPORT_IWARP = 1;
    /** {@code IBV_NODE_RNIC}: the node type of an iWARP device. */
    public static final int NODE_RNIC = 4;

    // ---- QP capabilities, read and written by createQp -------------------------------------------
    /** {@code cap.max_send_wr}, int. */
    public static final int QP_CAP_MAX_SEND_WR_OFFSET = 0;
    /** {@code cap.max_recv_wr}, int. */
    public static final int QP_CAP_MAX_RECV_WR_OFFSET = 4;
    /** {@code cap.max_send_sge}, int. */
    public static final int QP_CAP_MAX_SEND_SGE_OFFSET = 8;
    /** {@code cap.max_recv_sge}, int. */
    public static final int QP_CAP_MAX_RECV_SGE_OFFSET = 12;
    /** {@code cap.max_inline_data}, int. */
    public static final int QP_CAP_MAX_INLINE_DATA_OFFSET = 16;
    /** Size of the QP capability record. */
    public static final int QP_CAP_SIZE = 20;

    // ---- access flags ---------------------------------------------------------------------------
    /** {@code IBV_ACCESS_MW_BIND}: an MR registered with it may have memory windows bound over it. */
    public static final int ACCESS_MW_BIND = 16;
    /** {@code IBV_DEVICE_MEM_WINDOW_TYPE_2B}: the device has type-2 memory windows. */
    public static final int DEVICE_CAP_MEM_WINDOW_TYPE_2B = 1 << 24;

    // ---- work completion flags ----------------------------------------------------------------
    /** {@code IBV_WC_WITH_INV}: the Send that completed this receive invalidated an rkey of this side. */
    public static final int WC_WITH_INV = 1 << 3;

    // ---- enum ibv_event_type, checked against the header by the C build ----------------------------

    /** {@code IBV_EVENT_CQ_ERR}: a completion queue overran or failed, and its queue pairs with it. */
    public static final int EVENT_CQ_ERR = 0;
    /** {@code IBV_EVENT_QP_FATAL}: a queue pair failed, and is in the error state. */
    public static final int EVENT_QP_FATAL = 1;
    /** {@code IBV_EVENT_QP_REQ_ERR}: the peer broke the transport's rules (an invalid request). */
    public static final int EVENT_QP_REQ_ERR = 2;
    /** {@code IBV_EVENT_QP_ACCESS_ERR}: the peer asked for memory its key does not grant. */
    public static final int EVENT_QP_ACCESS_ERR = 3;
    /** {@code IBV_EVENT_DEVICE_FATAL}: the device failed. */
    public static final int EVENT_DEVICE_FATAL = 8;
    /** {@code IBV_EVENT_PORT_ERR}: a port of the device went down. */
    public static final int EVENT_PORT_ERR = 10;
    /** {@code IBV_EVENT_SRQ_ERR}: a shared receive queue failed. */
    public static final int EVENT_SRQ_ERR = 14;
    /** {@code IBV_EVENT_SRQ_LIMIT_REACHED}: fewer receives posted to a shared receive queue than its limit. */
    public static final int EVENT_SRQ_LIMIT_REACHED = 15;

    static {
        NativeLibrary.ensureLoaded();
    }

    private RdmaNative() {
        // static methods only
    }

    /**
     * Returns the address of a direct buffer's memory (JNI {@code GetDirectBufferAddress}), or 0 for a
     * heap buffer. Unlike DiSNI's {@code MemoryUtils.getAddress} it needs no access to
     * {@code sun.nio.ch}.
     */
    public static native long directBufferAddress(ByteBuffer buffer);

    /** Returns the (non-blocking) file descriptor of an {@code rdma_event_channel*}. */
    public static native int eventChannelFd(long eventChannel) throws IOException;

    /** Returns the (non-blocking) file descriptor of an {@code ibv_comp_channel*}. */
    public static native int completionChannelFd(long completionChannel) throws IOException;

    /**
     * Takes at most one event from an RDMA CM event channel without blocking, copies it into the
     * {@link #CM_EVENT_SIZE} bytes at {@code eventOut} and acknowledges it.
     *
     * @return the event type, or {@code -1} if no event was waiting
     * @throws IOException if reading the channel failed for another reason than "no event"
     */
    public static native int pollCmEvent(long eventChannel, long eventOut) throws IOException;

    /** Moves an {@code rdma_cm_id*} to another event channel ({@code rdma_migrate_id}). */
    public static native void migrateId(long id, long eventChannel) throws IOException;

    /**
     * Accepts a connect request on the child id (whose QP must exist), sending {@code length}
     * bytes of private data from {@code privateData} (0 for none).
     */
    public static native void accept(long id, int rnrRetryCount, long privateData, int length)
            throws IOException;

    /** Rejects a connect request, sending {@code length} bytes of private data (0 for none). */
    public static native void reject(long id, long privateData, int length) throws IOException;

    /**
     * Creates an RC queue pair on the id with {@code sq_sig_all = 0}, taking its receives from the
     * shared receive queue {@code srq} ({@code ibv_srq*}; 0 for a receive queue of its own). The
     * requested capabilities are read from the {@link #QP_CAP_SIZE} bytes at {@code capInOut} (with
     * an SRQ the receive capabilities are ignored); the capabilities the provider actually granted are
     * written back there.
     *
     * @return the {@code ibv_qp*}
     */
    public static native long createQp(long id, long pd, long sendCq, long recvCq, long srq, long capInOut)
            throws IOException;

    /**
     * Creates a shared receive queue in {@code pd} for at least {@code maxWr} receives of one
     * scatter/gather element each, with no limit event armed.
     *
     * @return the {@code ibv_srq*}
     */
    public static native long createSrq(long pd, int maxWr) throws IOException;

    /**
     * Posts a chain of receive work requests ({@code ibv_recv_wr}, as {@link WorkRequests} lays them
     * out) to a shared receive queue.
     */
    public static native void postSrqRecv(long srq, long wrList) throws IOException;

    /** Destroys a shared receive queue; no queue pair may use it any more. */
    public static native void destroySrq(long srq) throws IOException;

    /**
     * Arms the limit event of a shared receive queue ({@code ibv_modify_srq} with {@code srq_limit}):
     * the device raises {@link #EVENT_SRQ_LIMIT_REACHED} once, when fewer than {@code limit}
     * receives are left posted, and disarms it; 0 disarms it now.
     */
    public static native void armSrqLimit(long srq, int limit) throws IOException;

    /**
     * Waits up to {@code timeoutMillis} for an async event of the verbs context {@code context},
     * acknowledges it, and writes the 8 bytes at {@code elementOut}: the {@code ibv_cq*},
     * {@code ibv_qp*} or {@code ibv_srq*} it names, the port number of a port event, or 0.
     *
     * @return the {@code enum ibv_event_type}, or -1 if none came in time
     */
    public static native int getAsyncEvent(long context, int timeoutMillis, long elementOut) throws IOException;

    /** Returns the current state of a QP ({@code enum ibv_qp_state}; 6 = ERR). */
    public static native int queryQpState(long qp) throws IOException;

    /**
     * Sets the type of service of an {@code rdma_cm_id*} ({@code rdma_set_option(RDMA_OPTION_ID_TOS)},
     * 0 ..= 255): the traffic class its queue pair's packets carry, if set before the route is resolved.
     */
    public static native void setTypeOfService(long id, int tos) throws IOException;

    /**
     * Sets whether an {@code rdma_cm_id*} bound to an IPv6 address takes that family alone
     * ({@code rdma_set_option(RDMA_OPTION_ID_AFONLY)}), before it is bound; otherwise
     * {@code net.ipv6.bindv6only} decides.
     */
    public static native void setAddressFamilyOnly(long id, boolean only) throws IOException;

    /** Returns the GRH traffic class of a QP's address vector ({@code ibv_query_qp}), or -1 without a GRH. */
    public static native int queryQpTrafficClass(long qp) throws IOException;

    /**
     * Moves a QP to the error state ({@code ibv_modify_qp} to {@code IBV_QPS_ERR}), whatever state it
     * is in: every work request still posted completes, flushed, signaled or not.
     */
    public static native void modifyQpToError(long qp) throws IOException;

    /** Writes the {@link #DEVICE_ATTR_SIZE}-byte device attribute record of a context. */
    public static native void queryDevice(long context, long attrOut) throws IOException;

    /** Returns the name of the device of an {@code ibv_context*}, for example {@code rxe0}. */
    public static native String deviceName(long context) throws IOException;

    /**
     * Allocates a type-2 memory window in {@code pd} ({@code ibv_alloc_mw(pd, IBV_MW_TYPE_2)}). It
     * grants nothing until a {@link #postBindMw} on a QP of the same PD has completed.
     *
     * @return the {@code ibv_mw*}
     */
    public static native long allocMw(long pd) throws IOException;

    /**
     * Returns the rkey the window has now ({@code mw->rkey}): the one given to the last
     * {@link #postBindMw} that was posted, or the allocation's before the first.
     */
    public static native int mwRkey(long mw) throws IOException;

    /**
     * Frees a window ({@code ibv_dealloc_mw}): any rkey of it stops working. The window may still be
     * bound, and its QP may already be destroyed.
     */
    public static native void deallocMw(long mw) throws IOException;

    /**
     * Posts ({@code ibv_post_send}) one {@code IBV_WR_BIND_MW} work request on {@code qp} with
     * {@code wrId}, signaled only if asked, binding {@code mw} with the new rkey {@code rkey} over
     * {@code [address, address + length)} of {@code mr} with {@code mwAccess} (for example
     * {@code IBV_ACCESS_REMOTE_WRITE}). A type-2 window is bound to this QP: only this QP's peer can
     * use the rkey.
     *
     * <p>{@code rkey} must be {@link #mwRkey(long)} with another low byte (the consumer-owned key,
     * as {@code ibv_inc_rkey} makes it); anything else is refused here, because the provider would
     * fail the bind only in its completion and move the QP to the error state. The QP must be in
     * RTS (on the passive side: once {@code rdma_accept} has returned); before, the call is refused
     * without posting, because rxe queues a request posted in INIT or RTR although it reports
     * {@code EINVAL}, and runs it when the QP reaches RTS. On a successful post
     * the window's rkey becomes {@code rkey}, so {@link #mwRkey(long)} answers it and a later bind
     * names the window by the key the device holds. Whether the bind took effect shows only in its
     * completion (or, unsignaled, in the first later completion with an error).
     */
    public static native void postBindMw(long qp, long wrId, boolean signaled, long mw, int rkey, long mr,
                                         long address, long length, int mwAccess) throws IOException;

    /**
     * Allocates {@code size} bytes of page-aligned, zeroed native memory and returns a direct
     * {@link ByteBuffer} over it (JNI {@code NewDirectByteBuffer}). The buffer has no
     * cleaner: the caller frees the memory with {@link #freeMemory(long)}, after which the buffer
     * must not be touched again.
     */
    public static native ByteBuffer allocateMemory(int size) throws IOException;

    /** Frees memory from {@link #allocateMemory(int)}, by its address; 0 is ignored. */
    public static native void freeMemory(long address);

    /**
     * Lets the kernel finish removing the device of {@code context}: the context's command and
     * async fds are replaced with {@code /dev/null}. librdmacm keeps a removed device's context open
     * while no other RDMA device exists, and rxe cannot detach a process from a device, so the
     * removal would otherwise wait for the process to end. Call it once this process freed every
     * object on the device, while an {@code rdma_cm_id} still holds the context; the context must not
     * be used by any verbs call afterwards.
     */
    public static native void abandonContext(long context) throws IOException;
}
