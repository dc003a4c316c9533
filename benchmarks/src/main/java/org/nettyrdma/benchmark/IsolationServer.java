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
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.SVCPollCq;
import org.nettyrdma.channel.rdma.internal.RdmaNative;

/**
 * The passive side of every {@link IsolationCost} connection: a {@link VerbsListener} on the host, the
 * shared PD (the window design's only one), and one completion channel and CQ for every connection's
 * QP, as the transport has one CQ per event loop. All on the calling thread.
 */
final class IsolationServer implements AutoCloseable {

    private static final int CQ_ENTRIES = 8192;
    /** The listener's backlog: the set-up connects several writers one after another. */
    private static final int BACKLOG = 8;

    final IbvContext context;
    final String deviceName;
    final IbvPd sharedPd;
    final IbvCQ cq;
    private final VerbsListener listener;
    private final IbvCompChannel completionChannel;
    private final IbvWC[] completions = new IbvWC[VerbsQueuePair.POLL_BATCH];
    private final SVCPollCq poll;

    private IsolationServer(VerbsListener listener) throws IOException {
        this.listener = listener;
        context = listener.context();
        deviceName = RdmaNative.deviceName(Verbs.handle(context));
        sharedPd = context.allocPd();
        completionChannel = context.createCompChannel();
        cq = context.createCQ(completionChannel, CQ_ENTRIES, 0);
        for (int i = 0; i < completions.length; i++) {
            completions[i] = new IbvWC();
        }
        poll = cq.poll(completions, completions.length);
    }

    /** Listens on {@code host}, on a port of the system's choice. */
    static IsolationServer listen(InetAddress host) throws IOException {
        VerbsListener listener = VerbsListener.listen(host, BACKLOG);
        try {
            return new IsolationServer(listener);
        } catch (IOException | RuntimeException e) {
            try {
                listener.close();
            } catch (IOException | RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    InetSocketAddress address() throws IOException {
        return listener.address();
    }

    /** Waits for the next connect request and returns its id, whose events come on the listener's channel. */
    RdmaCmId nextRequestId() throws IOException {
        return listener.nextRequestId();
    }

    /** Waits for the next event of the accepted connections, which must be of {@code type}. */
    void expect(RdmaCmEvent.EventType type) throws IOException {
        listener.expect(type);
    }

    /** Polls the shared CQ once; returns how many completions {@link #completion(int)} holds. */
    int poll() throws IOException {
        return poll.execute().getPolls();
    }

    /** Returns completion {@code index} of the last poll, whatever its status. */
    IbvWC completion(int index) {
        return completions[index];
    }

    /**
     * Polls until {@code count} flushed work requests arrived: a disconnected QP flushes its receives
     * into the shared CQ, where the next connection's poll must not find them. They are counted, not
     * matched by QP number: DiSNI's poll copies the QP number (and all but the work request id,
     * status and opcode) only from successful completions, so an error's is a previous one's.
     */
    void drain(int count) throws IOException {
        long deadline = System.nanoTime() + IsolationCost.STALL_NANOS;
        for (int left = count; left > 0; ) {
            int polled = poll();
            for (int i = 0; i < polled; i++) {
                IbvWC wc = completions[i];
                if (wc.getStatus() != IbvWC.IbvWcStatus.IBV_WC_WR_FLUSH_ERR.ordinal()) {
                    throw new IOException("work request " + wc.getWr_id() + " completed with "
                            + IbvWC.IbvWcStatus.valueOf(wc.getStatus()) + " while draining a closed QP");
                }
                left--;
            }
            if (left > 0 && System.nanoTime() - deadline > 0) {
                throw new IOException(left + " receives not flushed in "
                        + TimeUnit.NANOSECONDS.toSeconds(IsolationCost.STALL_NANOS) + " s");
            }
        }
    }

    @Override
    public void close() throws IOException {
        poll.free();
        Verbs.check(cq.destroyCQ(), "ibv_destroy_cq");
        Verbs.check(completionChannel.destroyCompChannel(), "ibv_destroy_comp_channel");
        Verbs.deallocate(sharedPd);
        listener.close();
    }
}
