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

import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPostRecv;

/**
 * The receiving end of {@link VerbsWriteStream}'s Send floor: registers {@value #CREDIT} receive slots of the
 * slot size, as many as the transport's default credit, and one more for the stop, posts a receive into
 * each, and counts the peer's ({@link VerbsSender}) Sends as they complete, posting each slot's receive
 * again ({@link AbstractVerbsSink} has the protocol). It never reads the slots. Runs on a thread of its own.
 */
final class VerbsSendSink extends AbstractVerbsSink {

    /**
     * The Sends a peer may have unread here: the transport's most receive slots per connection
     * ({@code RdmaChannelOption.RECEIVE_SLOTS}' default, docs/options.md).
     */
    static final int CREDIT = 64;

    private final int slotSize;
    private final int sendBytes;
    /** A receive per slot, its work request id the slot's index; made and used by this end's thread only. */
    private SVCPostRecv[] receives;

    /** Makes the end that receives Sends of {@code sendBytes} into slots of {@code slotSize} bytes. */
    VerbsSendSink(VerbsListener listener, int slotSize, int sendBytes, boolean waitForEvents) {
        super(listener, waitForEvents, CREDIT, CREDIT_MESSAGE_BYTES);
        this.slotSize = slotSize;
        this.sendBytes = sendBytes;
    }

    @Override
    void postReceives(VerbsQueuePair pair, int count) throws IOException {
        // The device writes the slots, the peer does not: local access is all they need.
        ByteBuffer slots = ByteBuffer.allocateDirect(count * slotSize);
        IbvMr slotsMr = pair.register(slots, IbvMr.IBV_ACCESS_LOCAL_WRITE);
        receives = pair.postReceives(slotsMr, 0, count, slotSize);
    }

    @Override
    boolean isStop(IbvWC wc) {
        return wc.getOpcode() == VerbsQueuePair.WC_RECV && wc.getByte_len() == 0;
    }

    @Override
    int received(IbvWC wc) throws IOException {
        if (wc.getOpcode() != VerbsQueuePair.WC_RECV || wc.getByte_len() != sendBytes) {
            throw new IOException("a completion of opcode " + wc.getOpcode() + ", " + wc.getByte_len()
                    + " bytes (expected: " + VerbsQueuePair.WC_RECV + ", " + sendBytes + " bytes)");
        }
        receives[(int) wc.getWr_id()].execute();
        return sendBytes;
    }
}
