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
import java.util.ArrayList;
import java.util.LinkedList;
import java.util.List;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCPostRecv;
import com.ibm.disni.verbs.SVCReqNotify;
import com.ibm.disni.verbs.StatefulVerbCall;
import org.nettyrdma.channel.rdma.internal.ConnectParameters;

/**
 * The verbs objects of one end of a floor benchmark's connection, whatever its role: the RDMA CM id and
 * its event channel, a protection domain, one CQ for both queues with its completion channel, and an RC
 * queue pair, with the CM handshake that connects or accepts it. The role on top ({@link VerbsPeer}, an
 * {@link AbstractVerbsStreamer}, an {@link AbstractVerbsSink}) registers its memory and makes its stateful
 * verb calls through this end, which frees them all in {@link #close()} in the order rdma-core requires. The end is
 * made before it is connected (by {@link #resolve} or {@link VerbsListener#nextRequest}) so that its role
 * can post its receives first: a message can never arrive before them.
 *
 * <p>Used by one thread at a time; the CM events of its id arrive on an event channel of its own.
 */
final class VerbsQueuePair implements AutoCloseable {

    /**
     * Completions a stream's poll takes at most, as perftest's bandwidth tools poll: a stream has many in
     * flight, unlike a ping-pong.
     */
    static final int POLL_BATCH = 16;
    static final int WC_SUCCESS = IbvWC.IbvWcStatus.IBV_WC_SUCCESS.ordinal();
    static final int WC_RECV = IbvWC.IbvWcOpcode.IBV_WC_RECV.getOpcode();
    static final int WC_RECV_RDMA_WITH_IMM = IbvWC.IbvWcOpcode.IBV_WC_RECV_RDMA_WITH_IMM.getOpcode();

    /** The transport's retry counts ({@link ConnectParameters#RETRY_COUNT}), as DiSNI's connect takes them. */
    private static final byte RETRY_COUNT = (byte) ConnectParameters.RETRY_COUNT;
    private static final byte RNR_RETRY_COUNT = (byte) ConnectParameters.RNR_RETRY_COUNT;
    private static final int CM_TIMEOUT_MILLIS = 20_000;
    private static final int EVENT_WAIT_MILLIS = 1000;

    private final RdmaEventChannel cmChannel;
    private final RdmaCmId id;
    private final IbvPd pd;
    private final IbvCompChannel completionChannel;
    private final IbvCQ cq;
    private final IbvQP qp;
    private final IbvWC[] completions;
    private final SVCPollCq poll;
    private final SVCReqNotify requestNotify;
    private final List<IbvMr> regions = new ArrayList<>();
    private final List<StatefulVerbCall<?>> calls = new ArrayList<>();
    private boolean armed;
    /** The peer's disconnect has been seen: {@link #close()} waits for no other. */
    private boolean disconnected;

    /**
     * Makes the verbs objects on {@code id}, whose address is resolved, with room for {@code sendDepth} and
     * {@code receiveDepth} work requests and {@code maxInline} bytes of inline data, polling up to
     * {@code pollBatch} completions at once. Takes over {@code cmChannel}, on which the id's events arrive.
     */
    VerbsQueuePair(RdmaEventChannel cmChannel, RdmaCmId id, int sendDepth, int receiveDepth, int maxInline,
                   int pollBatch) throws IOException {
        this.cmChannel = cmChannel;
        this.id = id;
        IbvContext context = id.getVerbs();
        pd = context.allocPd();
        completionChannel = context.createCompChannel();
        cq = context.createCQ(completionChannel, sendDepth + receiveDepth, 0);
        IbvQPInitAttr attributes = new IbvQPInitAttr();
        attributes.setQp_type(IbvQP.IBV_QPT_RC);
        // One CQ for both queues: one poll sees receives and signaled sends alike.
        attributes.setSend_cq(cq);
        attributes.setRecv_cq(cq);
        attributes.cap().setMax_send_wr(sendDepth);
        attributes.cap().setMax_recv_wr(receiveDepth);
        attributes.cap().setMax_send_sge(1);
        attributes.cap().setMax_recv_sge(1);
        attributes.cap().setMax_inline_data(maxInline);
        qp = id.createQP(pd, attributes);
        completions = new IbvWC[pollBatch];
        for (int i = 0; i < completions.length; i++) {
            completions[i] = new IbvWC();
        }
        poll = cq.poll(completions, completions.length);
        requestNotify = cq.reqNotification(false);
    }

    /**
     * Resolves {@code server}'s address and route and returns the connecting end, not yet connected: its
     * role posts its receives before {@link #connect()}. The arguments are the constructor's.
     */
    static VerbsQueuePair resolve(InetSocketAddress server, int sendDepth, int receiveDepth, int maxInline,
                                  int pollBatch) throws IOException {
        RdmaEventChannel cmChannel = RdmaEventChannel.createEventChannel();
        RdmaCmId id = cmChannel.createId(RdmaCm.RDMA_PS_TCP);
        id.resolveAddr(null, server, CM_TIMEOUT_MILLIS);
        expect(cmChannel, RdmaCmEvent.EventType.RDMA_CM_EVENT_ADDR_RESOLVED);
        id.resolveRoute(CM_TIMEOUT_MILLIS);
        expect(cmChannel, RdmaCmEvent.EventType.RDMA_CM_EVENT_ROUTE_RESOLVED);
        return new VerbsQueuePair(cmChannel, id, sendDepth, receiveDepth, maxInline, pollBatch);
    }

    /** Connects the end {@link #resolve} made; returns once the connection is established. */
    void connect() throws IOException {
        RdmaConnParam parameters = new RdmaConnParam();
        parameters.setRetry_count(RETRY_COUNT);
        parameters.setRnr_retry_count(RNR_RETRY_COUNT);
        id.connect(parameters);
        expect(cmChannel, RdmaCmEvent.EventType.RDMA_CM_EVENT_ESTABLISHED);
    }

    /** Accepts the connect request of this end's id; returns once the connection is established. */
    void accept() throws IOException {
        RdmaConnParam parameters = new RdmaConnParam();
        parameters.setRnr_retry_count(RNR_RETRY_COUNT);
        id.accept(parameters);
        expect(cmChannel, RdmaCmEvent.EventType.RDMA_CM_EVENT_ESTABLISHED);
    }

    /** Returns the next CM event of {@code channel}, which must be of {@code type}. */
    static RdmaCmEvent expect(RdmaEventChannel channel, RdmaCmEvent.EventType type) throws IOException {
        return expect(channel, type, CM_TIMEOUT_MILLIS);
    }

    /** Returns the next CM event of {@code channel} within {@code timeoutMillis}, which must be of {@code type}. */
    static RdmaCmEvent expect(RdmaEventChannel channel, RdmaCmEvent.EventType type, int timeoutMillis)
            throws IOException {
        RdmaCmEvent event = channel.getCmEvent(timeoutMillis);
        if (event == null) {
            throw new IOException("no RDMA CM event in " + timeoutMillis + " ms (expected: " + type + ")");
        }
        int received = event.getEvent();
        if (received != type.ordinal()) {
            RdmaCmEvent.EventType[] types = RdmaCmEvent.EventType.values();
            throw new IOException("RDMA CM event " + (received >= 0 && received < types.length ? types[received]
                    : Integer.toString(received)) + " (expected: " + type + ")");
        }
        return event;
    }

    IbvQP qp() {
        return qp;
    }

    /** Registers {@code buffer} with {@code access}; {@link #close()} deregisters it. */
    IbvMr register(ByteBuffer buffer, int access) throws IOException {
        IbvMr mr = pd.regMr(buffer, access).execute().free().getMr();
        regions.add(mr);
        return mr;
    }

    /** Returns {@code call}, which {@link #close()} frees. */
    <T extends StatefulVerbCall<?>> T keep(T call) {
        calls.add(call);
        return call;
    }

    /**
     * Posts {@code count} receives into consecutive slots of {@code length} bytes from {@code offset} in
     * {@code mr}, each with its slot's index as work request id, and returns their stateful calls, which
     * {@link #close()} frees: executing one again posts its slot's receive again.
     */
    SVCPostRecv[] postReceives(IbvMr mr, int offset, int count, int length) throws IOException {
        SVCPostRecv[] receives = new SVCPostRecv[count];
        for (int slot = 0; slot < count; slot++) {
            IbvRecvWR receive = new IbvRecvWR();
            receive.setWr_id(slot);
            receive.setSg_list(gather(mr, offset + slot * length, length));
            receives[slot] = keep(qp.postRecv(List.of(receive), null));
            receives[slot].execute();
        }
        return receives;
    }

    /** Returns a gather list of one element: {@code length} bytes at {@code offset} in {@code mr}. */
    static LinkedList<IbvSge> gather(IbvMr mr, int offset, int length) {
        IbvSge sge = new IbvSge();
        sge.setAddr(mr.getAddr() + offset);
        sge.setLength(length);
        sge.setLkey(mr.getLkey());
        LinkedList<IbvSge> list = new LinkedList<>();
        list.add(sge);
        return list;
    }

    /** Polls the CQ once; returns how many completions {@link #completion(int)} now holds. */
    int poll() throws IOException {
        return poll.execute().getPolls();
    }

    /** Returns completion {@code index} of the last poll, checked: a failed work request is an exception. */
    IbvWC completion(int index) throws IOException {
        IbvWC wc = completions[index];
        if (wc.getStatus() != WC_SUCCESS) {
            throw new IOException("work request " + wc.getWr_id() + " failed: "
                    + IbvWC.IbvWcStatus.valueOf(wc.getStatus()));
        }
        return wc;
    }

    /**
     * Arms the CQ if it is not, else sleeps until its completion channel has an event or a second passed.
     * The caller polls once between two calls: a completion that came before the arming raises no event.
     */
    void awaitEvent() throws IOException {
        if (!armed) {
            requestNotify.execute();
            armed = true;
        } else if (completionChannel.getCqEvent(cq, EVENT_WAIT_MILLIS)) {
            cq.ackEvents(1);
            armed = false;
        }
    }

    /** Waits until the peer disconnects: the end whose last message must arrive calls it before closing. */
    void awaitDisconnect() throws IOException {
        awaitDisconnect(CM_TIMEOUT_MILLIS);
    }

    /** Waits until the peer disconnects, at most {@code timeoutMillis}: for an end that only serves. */
    void awaitDisconnect(int timeoutMillis) throws IOException {
        expect(cmChannel, RdmaCmEvent.EventType.RDMA_CM_EVENT_DISCONNECTED, timeoutMillis);
        disconnected = true;
    }

    /**
     * Disconnects, waits until the peer has too, and destroys everything in the order rdma-core requires
     * (QP before CQ, CQ before its channel, MRs before the PD, id before its event channel).
     */
    @Override
    public void close() throws IOException {
        id.disconnect();
        IOException failure = null;
        if (!disconnected) {
            try {
                awaitDisconnect();
            } catch (IOException e) {
                failure = e;
            }
        }
        for (StatefulVerbCall<?> call : calls) {
            call.free();
        }
        poll.free();
        requestNotify.free();
        Verbs.check(id.destroyQP(), "rdma_destroy_qp");
        Verbs.check(cq.destroyCQ(), "ibv_destroy_cq");
        Verbs.check(completionChannel.destroyCompChannel(), "ibv_destroy_comp_channel");
        for (IbvMr mr : regions) {
            mr.deregMr().execute().free();
        }
        Verbs.deallocate(pd);
        Verbs.check(id.destroyId(), "rdma_destroy_id");
        Verbs.check(cmChannel.destroyEventChannel(), "rdma_destroy_event_channel");
        if (failure != null) {
            throw failure;
        }
    }
}
