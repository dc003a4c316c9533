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
 * The sending end of {@link VerbsWriteStream}'s Send floor: Sends of {@code min(size, slot size)} bytes
 * each from one registered buffer, one per receive slot the peer ({@link VerbsSendSink}) granted, as
 * {@link AbstractVerbsStreamer}'s credit and send queue allow. A message larger than a slot goes as several
 * Sends, as the transport's does on a connection without a ring; the bytes are what is counted. Nothing is
 * sent inline, as the Write floor sends nothing inline.
 *
 * <p>Used by one thread at a time.
 */
final class VerbsSender extends AbstractVerbsStreamer {

    private static final int WC_SEND = IbvWC.IbvWcOpcode.IBV_WC_SEND.getOpcode();

    private final SVCPostSend send;
    private final SVCPostSend signaledSend;
    private final SVCPostSend.SendWRMod signaledRequest;
    private final SVCPostSend stop;

    private VerbsSender(VerbsQueuePair pair, int sendBytes, boolean waitForEvents) throws IOException {
        super(pair, waitForEvents, WC_SEND, AbstractVerbsSink.CREDIT_MESSAGE_BYTES);
        ByteBuffer source = ByteBuffer.allocateDirect(sendBytes);
        IbvMr sourceMr = pair.register(source, IbvMr.IBV_ACCESS_LOCAL_WRITE);
        send = pair.keep(pair.qp().postSend(List.of(send(sourceMr, sendBytes, 0)), null));
        signaledSend = pair.keep(pair.qp().postSend(List.of(send(sourceMr, sendBytes, IbvSendWR.IBV_SEND_SIGNALED)),
                null));
        signaledRequest = signaledSend.getWrMod(0);
        // A Send of no bytes: the peer tells it from the data, which always has some.
        IbvSendWR stopRequest = send(sourceMr, 0, IbvSendWR.IBV_SEND_SIGNALED);
        stopRequest.setWr_id(STOP_WR_ID);
        stop = pair.keep(pair.qp().postSend(List.of(stopRequest), null));
    }

    /**
     * Connects to {@code server} and returns this end, which sends {@code sendBytes} per Send, once the
     * peer has granted its credit.
     */
    static VerbsSender connect(InetSocketAddress server, int sendBytes, boolean waitForEvents) throws IOException {
        return connect(server, pair -> new VerbsSender(pair, sendBytes, waitForEvents));
    }

    private static IbvSendWR send(IbvMr source, int length, int flags) {
        IbvSendWR request = new IbvSendWR();
        request.setOpcode(IbvSendWR.IBV_WR_SEND);
        request.setSend_flags(flags);
        request.setSg_list(VerbsQueuePair.gather(source, 0, length));
        return request;
    }

    /** Sends into the peer's next posted receive: RC takes them in the order they were posted. */
    @Override
    void post(long index, boolean signaled) throws IOException {
        if (signaled) {
            signaledRequest.setWr_id(index);
            signaledSend.execute();
        } else {
            send.execute();
        }
    }

    @Override
    void postStop() throws IOException {
        stop.execute();
    }
}
