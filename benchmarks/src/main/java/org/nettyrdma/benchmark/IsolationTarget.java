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
package org.nettyrdma.benchmark;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.SVCPostRecv;
import org.nettyrdma.channel.rdma.internal.RdmaNative;

/**
 * The server side of one {@link IsolationCost} connection of a design: its registered memory, its QP on
 * the server's CQ, and, for the window, the window bound over the ring; {@link #setUp} has the time each
 * verb took. Used by one thread.
 */
final class IsolationTarget implements AutoCloseable {

    private static final int SEND_DEPTH = 128;
    private static final int RECEIVE_DEPTH = 64;
    private static final long BIND_WR_ID = -2;
    private static final int WC_BIND_MW = IbvWC.IbvWcOpcode.IBV_WC_BIND_MW.getOpcode();

    final IsolationDesign design;
    final RdmaCmId id;
    final long ringAddress;
    /** The receive the writes with immediate each take, posted again after each. */
    SVCPostRecv receive;
    /** The key the writer uses: the ring MR's, or once {@link #bindWindow} returned, the window's. */
    int rkey;
    IsolationSetUp setUp;
    private final ByteBuffer[] buffers = new ByteBuffer[3];
    private final IbvMr[] mrs = new IbvMr[3];
    private IbvPd pd;
    private IbvQP qp;
    private long window;

    /**
     * Makes the registrations and the QP of {@code design} on {@code id}, the child id of a connect
     * request; on a failure, frees what it made, the id included.
     */
    IsolationTarget(IsolationServer server, RdmaCmId id, IsolationDesign design) throws IOException {
        this.design = design;
        this.id = id;
        try {
            for (int i = 0; i < buffers.length; i++) {
                buffers[i] = RdmaNative.allocateMemory(i == 0 ? IsolationCost.SLOTS_BYTES
                        : i == 1 ? IsolationCost.RING_BYTES : IsolationCost.SEND_BYTES);
            }
            ringAddress = MemoryUtils.getAddress(buffers[1]);
            long start = System.nanoTime();
            pd = design.protectionDomain(server);
            long pdDone = System.nanoTime();
            mrs[0] = pd.regMr(buffers[0], IbvMr.IBV_ACCESS_LOCAL_WRITE).execute().free().getMr();
            long slotsDone = System.nanoTime();
            mrs[1] = pd.regMr(buffers[1], design.ringAccess()).execute().free().getMr();
            long ringDone = System.nanoTime();
            mrs[2] = pd.regMr(buffers[2], 0).execute().free().getMr();
            long sendDone = System.nanoTime();
            IbvQPInitAttr attributes = new IbvQPInitAttr();
            attributes.setQp_type(IbvQP.IBV_QPT_RC);
            attributes.setSend_cq(server.cq);
            attributes.setRecv_cq(server.cq);
            attributes.cap().setMax_send_wr(SEND_DEPTH);
            attributes.cap().setMax_recv_wr(RECEIVE_DEPTH);
            attributes.cap().setMax_send_sge(1);
            attributes.cap().setMax_recv_sge(1);
            qp = id.createQP(pd, attributes);
            long qpDone = System.nanoTime();
            setUp = new IsolationSetUp(design.ownsProtectionDomain() ? pdDone - start : 0, slotsDone - pdDone,
                    ringDone - slotsDone, sendDone - ringDone, qpDone - sendDone, 0, 0);
            rkey = mrs[1].getRkey();
            // The writes with immediate of a stream each take a receive; their data goes to the ring.
            IbvRecvWR request = new IbvRecvWR();
            request.setSg_list(VerbsQueuePair.gather(mrs[0], 0, IsolationCost.SLOTS_BYTES / RECEIVE_DEPTH));
            receive = qp.postRecv(List.of(request), null);
            for (int i = 0; i < IsolationCost.STREAM_RECEIVES; i++) {
                receive.execute();
            }
        } catch (IOException | RuntimeException e) {
            try {
                close();
            } catch (IOException | RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** Allocates the window and binds it over the whole ring on this QP, which must be connected. */
    void bindWindow(IsolationServer server) throws IOException {
        long start = System.nanoTime();
        window = RdmaNative.allocMw(Verbs.handle(pd));
        long allocated = System.nanoTime();
        int current = RdmaNative.mwRkey(window);
        // ibv_inc_rkey: the low byte is the consumer's.
        int next = (current & 0xffff_ff00) | ((current + 1) & 0xff);
        RdmaNative.postBindMw(Verbs.handle(qp), BIND_WR_ID, true, window, next, Verbs.handle(mrs[1]), ringAddress,
                IsolationCost.RING_BYTES, IbvMr.IBV_ACCESS_REMOTE_WRITE);
        long deadline = start + IsolationCost.STALL_NANOS;
        for (boolean bound = false; !bound; ) {
            int polled = server.poll();
            for (int i = 0; i < polled; i++) {
                IbvWC wc = server.completion(i);
                if (wc.getStatus() != VerbsQueuePair.WC_SUCCESS) {
                    throw new IOException("the bind failed: " + IbvWC.IbvWcStatus.valueOf(wc.getStatus()));
                }
                if (wc.getWr_id() != BIND_WR_ID || wc.getOpcode() != WC_BIND_MW) {
                    throw new IOException("completion " + wc.getWr_id() + " of opcode " + wc.getOpcode()
                            + " while binding (expected: the bind's)");
                }
                bound = true;
            }
            if (!bound && System.nanoTime() - deadline > 0) {
                throw new IOException("the bind did not complete in " + IsolationCost.STALL_NANOS / 1_000_000_000
                        + " s");
            }
        }
        long boundAt = System.nanoTime();
        rkey = next;
        setUp = setUp.withWindow(allocated - start, boundAt - allocated);
    }

    /**
     * Frees everything in the order rxe needs: the window before the QP it is bound to (rxe's
     * destroy of that QP would wait for the window's reference until a timeout) and before the MR
     * under it (rxe refuses that MR's deregistration while a window is bound), MRs before their PD.
     */
    @Override
    public void close() throws IOException {
        if (receive != null) {
            receive.free();
            receive = null;
        }
        if (window != 0) {
            RdmaNative.deallocMw(window);
            window = 0;
        }
        if (qp != null) {
            qp = null;
            Verbs.check(id.destroyQP(), "rdma_destroy_qp");
        }
        for (int i = 0; i < mrs.length; i++) {
            if (mrs[i] != null) {
                mrs[i].deregMr().execute().free();
                mrs[i] = null;
            }
        }
        if (design.ownsProtectionDomain() && pd != null) {
            Verbs.deallocate(pd);
        }
        pd = null;
        Verbs.check(id.destroyId(), "rdma_destroy_id");
        for (int i = 0; i < buffers.length; i++) {
            if (buffers[i] != null) {
                RdmaNative.freeMemory(MemoryUtils.getAddress(buffers[i]));
                buffers[i] = null;
            }
        }
    }
}
