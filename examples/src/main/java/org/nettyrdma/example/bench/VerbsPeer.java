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
package org.nettyrdma.example.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
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
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCPostRecv;
import com.ibm.disni.verbs.SVCPostSend;
import com.ibm.disni.verbs.SVCReqNotify;
import org.nettyrdma.channel.rdma.internal.RdmaProtocol;

/**
 * One end of {@link VerbsPingPong}'s connection, on DiSNI's verbs and nothing else: a protection domain,
 * a CQ with its completion channel, an RC queue pair, and one registered buffer that holds the message
 * to send followed by {@value #RECEIVES} receive slots of the message size. Every verb of the steady
 * state is a DiSNI stateful verb call made once and executed again and again, so a round trip
 * allocates nothing, as perftest does not.
 *
 * <p>A message is a Send of the message size whose first byte says what it is ({@link #PING} or
 * {@link #STOP}). Sends up to {@value #MAX_INLINE} bytes are posted inline, as the transport posts them
 * by default. Only one Send in {@value #SIGNAL_INTERVAL} asks for a completion: the completion frees the
 * send queue entries of the unsignaled ones before it, and a ping-pong needs no other.
 *
 * <p>Used by one thread at a time; the CM events of its id arrive on an event channel of its own.
 */
final class VerbsPeer implements AutoCloseable {

    /** First byte of a message to answer. */
    static final byte PING = 0;
    /** First byte of the last message: the peer answers it and both ends disconnect. */
    static final byte STOP = 1;

    /** Receives posted at all times: more than the one a ping-pong has in flight, so none waits for a repost. */
    static final int RECEIVES = 16;
    private static final int SEND_QUEUE_DEPTH = 64;
    private static final int SIGNAL_INTERVAL = SEND_QUEUE_DEPTH / 2;
    /** The transport's default {@code MAX_INLINE_DATA}. */
    private static final int MAX_INLINE = 128;
    /** The transport's retry counts ({@link RdmaProtocol#RETRY_COUNT}), as DiSNI's connect takes them. */
    private static final byte RETRY_COUNT = (byte) RdmaProtocol.RETRY_COUNT;
    private static final byte RNR_RETRY_COUNT = (byte) RdmaProtocol.RNR_RETRY_COUNT;
    private static final int CM_TIMEOUT_MILLIS = 20_000;
    /** A wait for a message that takes longer is a stuck connection. */
    private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(20);
    /** Empty polls between two looks at the clock while busy polling: a clock read costs more than a poll. */
    private static final int POLLS_PER_CLOCK_READ = 1 << 14;
    private static final int EVENT_WAIT_MILLIS = 1000;
    private static final int WC_SUCCESS = IbvWC.IbvWcStatus.IBV_WC_SUCCESS.ordinal();
    private static final int WC_RECV = IbvWC.IbvWcOpcode.IBV_WC_RECV.getOpcode();

    private final RdmaEventChannel cmChannel;
    private final RdmaCmId id;
    private final int size;
    private final boolean waitForEvents;
    private final IbvPd pd;
    private final IbvCompChannel completionChannel;
    private final IbvCQ cq;
    private final IbvQP qp;
    private final ByteBuffer buffer;
    private final IbvMr mr;
    private final SVCPostSend send;
    private final SVCPostSend signaledSend;
    private final SVCPostRecv[] receives = new SVCPostRecv[RECEIVES];
    /** One completion per poll, as a C ping-pong polls: a receive is handled the moment it is seen. */
    private final IbvWC[] completion = {new IbvWC()};
    private final SVCPollCq poll;
    private final SVCReqNotify requestNotify;
    private int sendsSinceSignal;
    private boolean armed;
    /** The peer's disconnect has been seen: {@link #close()} waits for no other. */
    private boolean disconnected;

    /**
     * Makes the verbs objects on {@code id}, whose address is resolved, and posts every receive: a Send
     * can never arrive before them. Takes over {@code cmChannel}, on which the id's events arrive.
     */
    VerbsPeer(RdmaEventChannel cmChannel, RdmaCmId id, int size, boolean waitForEvents) throws IOException {
        this.cmChannel = cmChannel;
        this.id = id;
        this.size = size;
        this.waitForEvents = waitForEvents;
        IbvContext context = id.getVerbs();
        pd = context.allocPd();
        completionChannel = context.createCompChannel();
        cq = context.createCQ(completionChannel, SEND_QUEUE_DEPTH + RECEIVES, 0);
        boolean inline = size <= MAX_INLINE;
        qp = id.createQP(pd, queuePairAttributes(cq, inline ? MAX_INLINE : 0));
        buffer = ByteBuffer.allocateDirect(size * (1 + RECEIVES));
        mr = pd.regMr(buffer, IbvMr.IBV_ACCESS_LOCAL_WRITE).execute().free().getMr();
        int flags = inline ? IbvSendWR.IBV_SEND_INLINE : 0;
        send = qp.postSend(List.of(sendRequest(size, flags)), null);
        signaledSend = qp.postSend(List.of(sendRequest(size, flags | IbvSendWR.IBV_SEND_SIGNALED)), null);
        for (int slot = 0; slot < RECEIVES; slot++) {
            IbvRecvWR receive = new IbvRecvWR();
            receive.setWr_id(slot);
            receive.setSg_list(gather(size * (1 + slot), size));
            receives[slot] = qp.postRecv(List.of(receive), null);
            receives[slot].execute();
        }
        poll = cq.poll(completion, completion.length);
        requestNotify = cq.reqNotification(false);
    }

    /** Connects to {@code server} and returns this end once the connection is established. */
    static VerbsPeer connect(InetSocketAddress server, int size, boolean waitForEvents) throws IOException {
        RdmaEventChannel cmChannel = RdmaEventChannel.createEventChannel();
        RdmaCmId id = cmChannel.createId(RdmaCm.RDMA_PS_TCP);
        id.resolveAddr(null, server, CM_TIMEOUT_MILLIS);
        expect(cmChannel, RdmaCmEvent.EventType.RDMA_CM_EVENT_ADDR_RESOLVED);
        id.resolveRoute(CM_TIMEOUT_MILLIS);
        expect(cmChannel, RdmaCmEvent.EventType.RDMA_CM_EVENT_ROUTE_RESOLVED);
        VerbsPeer peer = new VerbsPeer(cmChannel, id, size, waitForEvents);
        RdmaConnParam parameters = new RdmaConnParam();
        parameters.setRetry_count(RETRY_COUNT);
        parameters.setRnr_retry_count(RNR_RETRY_COUNT);
        id.connect(parameters);
        expect(cmChannel, RdmaCmEvent.EventType.RDMA_CM_EVENT_ESTABLISHED);
        return peer;
    }

    /** Accepts the connect request of this end's id and returns once the connection is established. */
    void accept() throws IOException {
        RdmaConnParam parameters = new RdmaConnParam();
        parameters.setRnr_retry_count(RNR_RETRY_COUNT);
        id.accept(parameters);
        expect(cmChannel, RdmaCmEvent.EventType.RDMA_CM_EVENT_ESTABLISHED);
    }

    /** Returns the next event of {@code channel}, which must be of {@code type}. */
    static RdmaCmEvent expect(RdmaEventChannel channel, RdmaCmEvent.EventType type) throws IOException {
        RdmaCmEvent event = channel.getCmEvent(CM_TIMEOUT_MILLIS);
        if (event == null) {
            throw new IOException("no RDMA CM event in " + CM_TIMEOUT_MILLIS + " ms (expected: " + type + ")");
        }
        int received = event.getEvent();
        if (received != type.ordinal()) {
            RdmaCmEvent.EventType[] types = RdmaCmEvent.EventType.values();
            throw new IOException("RDMA CM event " + (received >= 0 && received < types.length ? types[received]
                    : Integer.toString(received)) + " (expected: " + type + ")");
        }
        return event;
    }

    private static IbvQPInitAttr queuePairAttributes(IbvCQ cq, int maxInline) {
        IbvQPInitAttr attributes = new IbvQPInitAttr();
        attributes.setQp_type(IbvQP.IBV_QPT_RC);
        // One CQ for both queues: one poll sees the answer's receive and the signaled Sends alike.
        attributes.setSend_cq(cq);
        attributes.setRecv_cq(cq);
        attributes.cap().setMax_send_wr(SEND_QUEUE_DEPTH);
        attributes.cap().setMax_recv_wr(RECEIVES);
        attributes.cap().setMax_send_sge(1);
        attributes.cap().setMax_recv_sge(1);
        attributes.cap().setMax_inline_data(maxInline);
        return attributes;
    }

    private IbvSendWR sendRequest(int size, int flags) {
        IbvSendWR request = new IbvSendWR();
        request.setOpcode(IbvSendWR.IBV_WR_SEND);
        request.setSend_flags(flags);
        request.setSg_list(gather(0, size));
        return request;
    }

    private LinkedList<IbvSge> gather(int offset, int length) {
        IbvSge sge = new IbvSge();
        sge.setAddr(mr.getAddr() + offset);
        sge.setLength(length);
        sge.setLkey(mr.getLkey());
        LinkedList<IbvSge> list = new LinkedList<>();
        list.add(sge);
        return list;
    }

    /** Posts the message, its first byte {@code kind}. */
    void send(byte kind) throws IOException {
        // An inline Send is copied when posted; any other is read by the device before the peer's answer
        // can arrive, so the next message may overwrite it then.
        buffer.put(0, kind);
        if (++sendsSinceSignal == SIGNAL_INTERVAL) {
            sendsSinceSignal = 0;
            signaledSend.execute();
        } else {
            send.execute();
        }
    }

    /**
     * Returns the receive slot of the next message, polling the CQ without a pause or, when this end
     * waits for events, arming the CQ and sleeping on the completion channel whenever it is empty.
     *
     * @throws IOException if a work request failed, or no message came for 20 s
     */
    int awaitReceive() throws IOException {
        long deadline = System.nanoTime() + STALL_NANOS;
        int emptyPolls = 0;
        for (;;) {
            if (poll.execute().getPolls() > 0) {
                IbvWC wc = completion[0];
                if (wc.getStatus() != WC_SUCCESS) {
                    throw new IOException("work request " + wc.getWr_id() + " failed: "
                            + IbvWC.IbvWcStatus.valueOf(wc.getStatus()));
                }
                if (wc.getOpcode() == WC_RECV) {
                    return (int) wc.getWr_id();
                }
                // A signaled Send: its entries in the send queue are free again.
                continue;
            }
            if (waitForEvents) {
                waitForEvent();
            }
            if (++emptyPolls == POLLS_PER_CLOCK_READ || waitForEvents) {
                emptyPolls = 0;
                if (System.nanoTime() - deadline > 0) {
                    throw new IOException("no message in " + TimeUnit.NANOSECONDS.toSeconds(STALL_NANOS) + " s");
                }
            }
        }
    }

    /**
     * Arms the CQ if it is not, else sleeps until its completion channel has an event. The CQ is polled
     * once between the two: a completion that came before the arming raises no event.
     */
    private void waitForEvent() throws IOException {
        if (!armed) {
            requestNotify.execute();
            armed = true;
        } else if (completionChannel.getCqEvent(cq, EVENT_WAIT_MILLIS)) {
            cq.ackEvents(1);
            armed = false;
        }
    }

    /** Returns the kind ({@link #PING} or {@link #STOP}) of the message in {@code slot}. */
    byte kind(int slot) {
        return buffer.get(size * (1 + slot));
    }

    /** Posts the receive of {@code slot} again, once its message has been read. */
    void repostReceive(int slot) throws IOException {
        receives[slot].execute();
    }

    /**
     * Waits until the peer disconnects. The end that answers last calls this before {@link #close()}: its
     * own disconnect would move its QP to the error state, which may flush the answer before it is sent.
     */
    void awaitDisconnect() throws IOException {
        expect(cmChannel, RdmaCmEvent.EventType.RDMA_CM_EVENT_DISCONNECTED);
        disconnected = true;
    }

    /**
     * Disconnects, waits until the peer has too, and destroys everything in the order rdma-core requires
     * (QP before CQ, CQ before its channel, MR before the PD, id before its event channel).
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
        send.free();
        signaledSend.free();
        for (SVCPostRecv receive : receives) {
            receive.free();
        }
        poll.free();
        requestNotify.free();
        check(id.destroyQP(), "rdma_destroy_qp");
        check(cq.destroyCQ(), "ibv_destroy_cq");
        check(completionChannel.destroyCompChannel(), "ibv_destroy_comp_channel");
        mr.deregMr().execute().free();
        try {
            check(pd.deallocPd(), "ibv_dealloc_pd");
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            // DiSNI declares Exception here.
            throw new IOException("ibv_dealloc_pd failed", e);
        }
        check(id.destroyId(), "rdma_destroy_id");
        check(cmChannel.destroyEventChannel(), "rdma_destroy_event_channel");
        if (failure != null) {
            throw failure;
        }
    }

    private static void check(int result, String verb) throws IOException {
        if (result != 0) {
            throw new IOException(verb + " failed: " + result);
        }
    }
}
