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
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;

import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPostSend;

/**
 * The writing end of {@link VerbsWriteStream}'s RDMA Write floor: learns the peer's ring from its first
 * message ({@link VerbsWriteSink}), then writes messages of one size into consecutive positions of the ring
 * with RDMA Write with immediate, from one registered buffer, as {@link AbstractVerbsStreamer}'s credit and
 * send queue allow. Only the remote address of a write changes, in place, so a write allocates nothing.
 *
 * <p>Used by one thread at a time.
 */
final class VerbsWriter extends AbstractVerbsStreamer {

    private static final int WC_RDMA_WRITE = IbvWC.IbvWcOpcode.IBV_WC_RDMA_WRITE.getOpcode();

    private final int size;
    private final long ringAddress;
    /** Where the last whole message of the ring ends: the next position after it is the ring's start. */
    private final int ringEnd;
    private final SVCPostSend write;
    private final SVCPostSend.RdmaMod writeTarget;
    private final SVCPostSend signaledWrite;
    private final SVCPostSend.SendWRMod signaledRequest;
    private final SVCPostSend.RdmaMod signaledWriteTarget;
    private final SVCPostSend stop;
    private int offset;

    private VerbsWriter(VerbsQueuePair pair, int size, boolean waitForEvents) throws IOException {
        super(pair, waitForEvents, WC_RDMA_WRITE, VerbsWriteSink.RING_MESSAGE_BYTES);
        this.size = size;
        ByteBuffer ring = firstMessage();
        int rkey = ring.getInt(4);
        ringAddress = ring.getLong(8);
        int ringBytes = ring.getInt(16);
        if (ringBytes < size || credit() > ringBytes / size) {
            throw new IOException("the peer's ring: " + ringBytes + " bytes, credit " + credit() + " (expected: >= "
                    + size + " bytes, credit 1 to " + Math.max(0, ringBytes) / size + ")");
        }
        ringEnd = ringBytes / size * size;

        ByteBuffer source = ByteBuffer.allocateDirect(size);
        IbvMr sourceMr = pair.register(source, IbvMr.IBV_ACCESS_LOCAL_WRITE);
        write = pair.keep(pair.qp().postSend(List.of(write(sourceMr, size, 0, rkey, VerbsWriteSink.IMM_DATA)),
                null));
        writeTarget = write.getWrMod(0).getRdmaMod();
        signaledWrite = pair.keep(pair.qp().postSend(List.of(write(sourceMr, size, IbvSendWR.IBV_SEND_SIGNALED,
                rkey, VerbsWriteSink.IMM_DATA)), null));
        signaledRequest = signaledWrite.getWrMod(0);
        signaledWriteTarget = signaledRequest.getRdmaMod();
        IbvSendWR stopRequest = write(sourceMr, 0, IbvSendWR.IBV_SEND_SIGNALED, rkey, VerbsWriteSink.IMM_STOP);
        stopRequest.setWr_id(STOP_WR_ID);
        stop = pair.keep(pair.qp().postSend(List.of(stopRequest), null));
    }

    /** Connects to {@code server} and returns this end once it knows the peer's ring. */
    static VerbsWriter connect(InetSocketAddress server, int size, boolean waitForEvents) throws IOException {
        return connect(server, pair -> new VerbsWriter(pair, size, waitForEvents));
    }

    private IbvSendWR write(IbvMr source, int length, int flags, int rkey, int immediate) {
        IbvSendWR request = new IbvSendWR();
        request.setOpcode(IbvSendWR.IBV_WR_RDMA_WRITE_WITH_IMM);
        request.setSend_flags(flags);
        request.setImm_data(immediate);
        request.setSg_list(VerbsQueuePair.gather(source, 0, length));
        request.getRdma().setRemote_addr(ringAddress);
        request.getRdma().setRkey(rkey);
        return request;
    }

    /** Writes to the next position of the ring. */
    @Override
    void post(long index, boolean signaled) throws IOException {
        long target = ringAddress + offset;
        if (signaled) {
            signaledWriteTarget.setRemote_addr(target);
            signaledRequest.setWr_id(index);
            signaledWrite.execute();
        } else {
            writeTarget.setRemote_addr(target);
            write.execute();
        }
        offset += size;
        if (offset == ringEnd) {
            offset = 0;
        }
    }

    @Override
    void postStop() throws IOException {
        stop.execute();
    }
}
