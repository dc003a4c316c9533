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

import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPostRecv;

/**
 * The receiving end of {@link VerbsWriteStream}'s RDMA Write floor: registers a ring of {@value #RING_BYTES}
 * bytes the peer ({@link VerbsWriter}) may write into, tells the peer where it is in its first message, and
 * counts the peer's RDMA Writes with immediate as their receive completions come
 * ({@link AbstractVerbsSink} has the protocol). It never reads the ring. Runs on a thread of its own.
 */
final class VerbsWriteSink extends AbstractVerbsSink {

    /**
     * The ring, as large as the transport's default receive ring ({@code RdmaSocketChannelConfig}'s
     * {@code DEFAULT_BUFFER_SIZE}, 1 MiB): at most this much is in flight, here as there. perftest's
     * {@code ib_write_bw} has no ring and keeps 128 writes in flight, 8 MiB at 64 KiB.
     */
    static final int RING_BYTES = 1 << 20;
    /**
     * Writes a writer may have unread here at most, whatever the size: each takes a posted receive, and
     * {@value} receives keep small messages' credit from turning over too fast to matter while staying far
     * below rxe's limit on a queue's work requests.
     */
    static final int MAX_CREDIT = 1024;
    /** The immediate data of a data write. */
    static final int IMM_DATA = 0;
    /** The immediate data of the stop; any value but {@link #IMM_DATA} reads as a stop, in either byte order. */
    static final int IMM_STOP = 1;
    /** The credit, the ring's rkey, address and length. */
    static final int RING_MESSAGE_BYTES = 20;

    /** What the receives' single gather element needs: a write with immediate puts nothing there. */
    private static final int SCRATCH_BYTES = 4;

    private final int size;
    /** Made and used by this end's thread only, as every field below. */
    private IbvMr ringMr;
    private SVCPostRecv receive;

    VerbsWriteSink(VerbsListener listener, int size, boolean waitForEvents) {
        super(listener, waitForEvents, window(size), RING_MESSAGE_BYTES);
        this.size = size;
    }

    /**
     * Returns the writes of {@code size} bytes a writer may have unread in the ring: as many as fit, at
     * most {@link #MAX_CREDIT}.
     */
    static int window(int size) {
        return Math.max(1, Math.min(RING_BYTES / size, MAX_CREDIT));
    }

    @Override
    void postReceives(VerbsQueuePair pair, int receives) throws IOException {
        ByteBuffer ring = ByteBuffer.allocateDirect(RING_BYTES);
        ringMr = pair.register(ring, IbvMr.IBV_ACCESS_LOCAL_WRITE | IbvMr.IBV_ACCESS_REMOTE_WRITE);
        ByteBuffer scratch = ByteBuffer.allocateDirect(SCRATCH_BYTES);
        IbvMr scratchMr = pair.register(scratch, IbvMr.IBV_ACCESS_LOCAL_WRITE);
        IbvRecvWR receiveRequest = new IbvRecvWR();
        receiveRequest.setSg_list(VerbsQueuePair.gather(scratchMr, 0, SCRATCH_BYTES));
        // Every receive is alike: one stateful call, executed once per receive.
        receive = pair.keep(pair.qp().postRecv(List.of(receiveRequest), null));
        for (int i = 0; i < receives; i++) {
            receive.execute();
        }
    }

    @Override
    void fillFirstMessage(ByteBuffer rest) {
        rest.putInt(0, ringMr.getRkey()).putLong(4, ringMr.getAddr()).putInt(12, RING_BYTES);
    }

    @Override
    boolean isStop(IbvWC wc) {
        return wc.getOpcode() == VerbsQueuePair.WC_RECV_RDMA_WITH_IMM && wc.getImm_data() != IMM_DATA;
    }

    @Override
    int received(IbvWC wc) throws IOException {
        if (wc.getOpcode() != VerbsQueuePair.WC_RECV_RDMA_WITH_IMM) {
            throw new IOException("a completion of opcode " + wc.getOpcode() + " (expected: "
                    + VerbsQueuePair.WC_RECV_RDMA_WITH_IMM + ")");
        }
        if (wc.getByte_len() != size) {
            throw new IOException("a write of " + wc.getByte_len() + " bytes (expected: " + size + ")");
        }
        receive.execute();
        return size;
    }
}
