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
import java.util.concurrent.TimeUnit;

import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPostRecv;
import com.ibm.disni.verbs.SVCPostSend;

/**
 * One end of {@link VerbsPingPong}'s connection, on DiSNI's verbs and nothing else: a {@link VerbsQueuePair}
 * and one registered buffer that holds the message to send followed by {@value #RECEIVES} receive slots of
 * the message size. Every verb of the steady state is a DiSNI stateful verb call made once and executed
 * again and again, so a round trip allocates nothing, as perftest does not.
 *
 * <p>A message is a Send of the message size whose first byte says what it is ({@link #PING} or
 * {@link #STOP}). Sends up to {@value #MAX_INLINE} bytes are posted inline, as the transport posts them
 * by default. Only one Send in {@value #SIGNAL_INTERVAL} asks for a completion: the completion frees the
 * send queue entries of the unsignaled ones before it, and a ping-pong needs no other.
 *
 * <p>Used by one thread at a time.
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
    /** One completion per poll, as a C ping-pong polls: a receive is handled the moment it is seen. */
    private static final int POLL_BATCH = 1;
    /** A wait for a message that takes longer is a stuck connection. */
    private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(20);
    /** Empty polls between two looks at the clock while busy polling: a clock read costs more than a poll. */
    private static final int POLLS_PER_CLOCK_READ = 1 << 14;

    private final VerbsQueuePair pair;
    private final int size;
    private final boolean waitForEvents;
    private final ByteBuffer buffer;
    private final SVCPostSend send;
    private final SVCPostSend signaledSend;
    private final SVCPostRecv[] receives = new SVCPostRecv[RECEIVES];
    private int sendsSinceSignal;

    /**
     * Registers the buffer on {@code pair}, not yet connected, makes the Sends and posts every receive: a
     * Send can never arrive before them.
     */
    private VerbsPeer(VerbsQueuePair pair, int size, boolean waitForEvents) throws IOException {
        this.pair = pair;
        this.size = size;
        this.waitForEvents = waitForEvents;
        buffer = ByteBuffer.allocateDirect(size * (1 + RECEIVES));
        IbvMr mr = pair.register(buffer, IbvMr.IBV_ACCESS_LOCAL_WRITE);
        int flags = size <= MAX_INLINE ? IbvSendWR.IBV_SEND_INLINE : 0;
        send = pair.keep(pair.qp().postSend(List.of(sendRequest(mr, size, flags)), null));
        signaledSend = pair.keep(pair.qp().postSend(List.of(sendRequest(mr, size,
                flags | IbvSendWR.IBV_SEND_SIGNALED)), null));
        for (int slot = 0; slot < RECEIVES; slot++) {
            IbvRecvWR receive = new IbvRecvWR();
            receive.setWr_id(slot);
            receive.setSg_list(VerbsQueuePair.gather(mr, size * (1 + slot), size));
            receives[slot] = pair.keep(pair.qp().postRecv(List.of(receive), null));
            receives[slot].execute();
        }
    }

    /** Connects to {@code server} and returns this end once the connection is established. */
    static VerbsPeer connect(InetSocketAddress server, int size, boolean waitForEvents) throws IOException {
        VerbsQueuePair pair = VerbsQueuePair.resolve(server, SEND_QUEUE_DEPTH, RECEIVES, maxInline(size),
                POLL_BATCH);
        VerbsPeer peer = new VerbsPeer(pair, size, waitForEvents);
        pair.connect();
        return peer;
    }

    /**
     * Waits for the next connect request on {@code listener}, makes the accepting end with its receives
     * posted, accepts, and returns that end once the connection is established.
     */
    static VerbsPeer accept(VerbsListener listener, int size, boolean waitForEvents) throws IOException {
        VerbsQueuePair pair = listener.nextRequest(SEND_QUEUE_DEPTH, RECEIVES, maxInline(size), POLL_BATCH);
        VerbsPeer peer = new VerbsPeer(pair, size, waitForEvents);
        pair.accept();
        return peer;
    }

    /** Returns the inline data the queue pair needs for messages of {@code size}: none if they go by DMA. */
    private static int maxInline(int size) {
        return size <= MAX_INLINE ? MAX_INLINE : 0;
    }

    private static IbvSendWR sendRequest(IbvMr mr, int size, int flags) {
        IbvSendWR request = new IbvSendWR();
        request.setOpcode(IbvSendWR.IBV_WR_SEND);
        request.setSend_flags(flags);
        request.setSg_list(VerbsQueuePair.gather(mr, 0, size));
        return request;
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
            if (pair.poll() > 0) {
                IbvWC wc = pair.completion(0);
                if (wc.getOpcode() == VerbsQueuePair.WC_RECV) {
                    return (int) wc.getWr_id();
                }
                // A signaled Send: its entries in the send queue are free again.
                continue;
            }
            if (waitForEvents) {
                pair.awaitEvent();
            }
            if (++emptyPolls == POLLS_PER_CLOCK_READ || waitForEvents) {
                emptyPolls = 0;
                if (System.nanoTime() - deadline > 0) {
                    throw new IOException("no message in " + TimeUnit.NANOSECONDS.toSeconds(STALL_NANOS) + " s");
                }
            }
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
        pair.awaitDisconnect();
    }

    /** Disconnects, waits until the peer has too, and frees every verbs object. */
    @Override
    public void close() throws IOException {
        pair.close();
    }
}
