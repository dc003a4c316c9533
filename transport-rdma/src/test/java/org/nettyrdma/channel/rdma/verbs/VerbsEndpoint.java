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
package org.nettyrdma.channel.rdma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.SVCPollCq;
import org.nettyrdma.channel.rdma.internal.RdmaNative;

/**
 * The verbs objects of one side of a connection, all made through DiSNI's API: a protection domain
 * (its own, or one shared with other endpoints), a completion channel and CQ, an RC queue pair and
 * one registered buffer. {@link #close()} frees them in the order rdma-core requires and asserts
 * that every destroy call succeeded, so a test that leaves a QP, CQ or MR behind fails; a shared PD
 * is left to its owner.
 */
final class VerbsEndpoint implements AutoCloseable {

    static final int BUFFER_SIZE = 1 << 20;
    /** Deep enough for a flood of 128 Sends in flight, as a hostile peer would post them. */
    static final int QUEUE_DEPTH = 128;
    /** {@code IBV_WR_SEND_WITH_INV} of libibverbs' {@code enum ibv_wr_opcode}; DiSNI names no such constant. */
    static final int IBV_WR_SEND_WITH_INV = 9;
    static final int ACCESS = IbvMr.IBV_ACCESS_LOCAL_WRITE | IbvMr.IBV_ACCESS_REMOTE_WRITE
            | IbvMr.IBV_ACCESS_REMOTE_READ;

    final RdmaCmId id;
    final IbvPd pd;
    final IbvCompChannel completionChannel;
    final IbvCQ cq;
    final IbvQP qp;
    final ByteBuffer buffer;
    final IbvMr mr;

    private final IbvWC[] completions = new IbvWC[QUEUE_DEPTH];
    private final SVCPollCq poll;
    private final boolean ownsPd;
    private boolean qpDestroyed;

    VerbsEndpoint(RdmaCmId id) throws IOException {
        this(id, null);
    }

    /** Makes the endpoint in {@code sharedPd} (which it never frees), or in a PD of its own if null. */
    VerbsEndpoint(RdmaCmId id, IbvPd sharedPd) throws IOException {
        this.id = id;
        IbvContext context = id.getVerbs();
        ownsPd = sharedPd == null;
        pd = ownsPd ? context.allocPd() : sharedPd;
        completionChannel = context.createCompChannel();
        cq = context.createCQ(completionChannel, 2 * QUEUE_DEPTH, 0);
        IbvQPInitAttr attr = new IbvQPInitAttr();
        attr.cap().setMax_send_wr(QUEUE_DEPTH);
        attr.cap().setMax_recv_wr(QUEUE_DEPTH);
        attr.cap().setMax_send_sge(1);
        attr.cap().setMax_recv_sge(1);
        attr.setQp_type(IbvQP.IBV_QPT_RC);
        attr.setSend_cq(cq);
        attr.setRecv_cq(cq);
        qp = id.createQP(pd, attr);
        buffer = ByteBuffer.allocateDirect(BUFFER_SIZE);
        mr = pd.regMr(buffer, ACCESS).execute().free().getMr();
        for (int i = 0; i < completions.length; i++) {
            completions[i] = new IbvWC();
        }
        poll = cq.poll(completions, completions.length);
    }

    /** Returns the address of {@code offset} in the registered buffer. */
    long address(int offset) {
        return mr.getAddr() + offset;
    }

    void postReceive(long wrId, int offset, int length) throws IOException {
        IbvRecvWR wr = new IbvRecvWR();
        wr.setWr_id(wrId);
        wr.setSg_list(sges(offset, length));
        qp.postRecv(List.of(wr), null).execute().free();
    }

    void postSend(long wrId, int offset, int length) throws IOException {
        post(wrId, IbvSendWR.IBV_WR_SEND, offset, length, 0, 0, 0);
    }

    /**
     * Posts a Send with Invalidate naming {@code rkey}: the receiver's device invalidates that key before
     * the receive completes. libibverbs' {@code IBV_WR_SEND_WITH_INV}; its {@code invalidate_rkey} shares
     * the union DiSNI fills with the immediate.
     */
    void postSendWithInvalidate(long wrId, int offset, int length, int rkey) throws IOException {
        post(wrId, IBV_WR_SEND_WITH_INV, offset, length, 0, 0, rkey);
    }

    void postWrite(long wrId, int offset, int length, long remoteAddress, int rkey) throws IOException {
        post(wrId, IbvSendWR.IBV_WR_RDMA_WRITE, offset, length, remoteAddress, rkey, 0);
    }

    void postWriteWithImmediate(long wrId, int offset, int length, long remoteAddress, int rkey, int immediate)
            throws IOException {
        post(wrId, IbvSendWR.IBV_WR_RDMA_WRITE_WITH_IMM, offset, length, remoteAddress, rkey, immediate);
    }

    void postRead(long wrId, int offset, int length, long remoteAddress, int rkey) throws IOException {
        post(wrId, IbvSendWR.IBV_WR_RDMA_READ, offset, length, remoteAddress, rkey, 0);
    }

    private void post(long wrId, int opcode, int offset, int length, long remoteAddress, int rkey, int immediate)
            throws IOException {
        IbvSendWR wr = new IbvSendWR();
        wr.setWr_id(wrId);
        wr.setOpcode(opcode);
        wr.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
        wr.setSg_list(sges(offset, length));
        wr.getRdma().setRemote_addr(remoteAddress);
        wr.getRdma().setRkey(rkey);
        wr.setImm_data(immediate);
        qp.postSend(List.of(wr), null).execute().free();
    }

    private LinkedList<IbvSge> sges(int offset, int length) {
        IbvSge sge = new IbvSge();
        sge.setAddr(address(offset));
        sge.setLength(length);
        sge.setLkey(mr.getLkey());
        LinkedList<IbvSge> list = new LinkedList<>();
        list.add(sge);
        return list;
    }

    /** Returns the QP's state as the kernel has it ({@code enum ibv_qp_state}: 3 = RTS, 6 = ERR). */
    int qpState() throws IOException {
        return RdmaNative.queryQpState(ConnectedPair.handle(qp));
    }

    /** Destroys the QP ahead of {@link #close()}, which then leaves it out; returns what destroy answered. */
    int destroyQp() throws IOException {
        qpDestroyed = true;
        return id.destroyQP();
    }

    /** Polls the CQ once, returning copies of the completions (DiSNI reuses its WC objects). */
    List<IbvWC> pollOnce() throws IOException {
        int n = poll.execute().getPolls();
        List<IbvWC> result = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            result.add(completions[i].clone());
        }
        return result;
    }

    /** Polls until {@code count} completions arrived or the deadline passed (then throws). */
    List<IbvWC> awaitCompletions(int count) throws IOException, InterruptedException {
        List<IbvWC> result = new ArrayList<>(count);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (result.size() < count) {
            result.addAll(pollOnce());
            if (result.size() < count) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("only " + result.size() + " of " + count + " completions in 20 s");
                }
                Thread.sleep(1);
            }
        }
        return result;
    }

    /** Awaits one completion and asserts that it succeeded with the given work request id. */
    IbvWC awaitSuccess(long wrId) throws IOException, InterruptedException {
        IbvWC wc = awaitCompletions(1).get(0);
        assertEquals(WcStatus.SUCCESS.ordinal(), wc.getStatus(), () -> "completion status "
                + WcStatus.name(wc.getStatus()) + " for wr_id " + wc.getWr_id());
        assertEquals(wrId, wc.getWr_id());
        return wc;
    }

    @Override
    public void close() throws Exception {
        poll.free();
        // QP before CQ, CQ before its channel, MRs before the PD: out of order, rdma-core answers EBUSY
        // and the object leaks (DiSNI's own endpoints ignore that).
        if (!qpDestroyed) {
            assertEquals(0, id.destroyQP(), "destroy QP");
        }
        assertEquals(0, cq.destroyCQ(), "destroy CQ");
        assertEquals(0, completionChannel.destroyCompChannel(), "destroy completion channel");
        mr.deregMr().execute().free();
        if (ownsPd) {
            assertEquals(0, pd.deallocPd(), "deallocate PD");
        }
    }
}
