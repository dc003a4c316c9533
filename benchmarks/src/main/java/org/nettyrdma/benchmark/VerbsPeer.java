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
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPostRecv;
import com.ibm.disni.verbs.SVCPostSend;

/**
 * One end of {@link VerbsPingPong}'s connection, on DiSNI's verbs and nothing else: a {@link VerbsQueuePair}
 * and one registered buffer that holds the message to send followed by the receive slots. Every verb of the
 * steady state is a DiSNI stateful verb call made once and executed again and again, so a round trip
 * allocates nothing, as perftest does not.
 *
 * <p>A message goes as {@code ceil(size / slot size)} Sends of at most the slot size, its parts, posted as
 * one chain into receives of the slot size; without {@code --send-slot} the slot size is the message size,
 * so a message is one Send. The last part's first byte says what the message is ({@link #PING} or
 * {@link #STOP}). RC delivers the parts in order, so a message is whole when its last part's receive
 * completes; the receives of the parts before it are posted again as they complete. Sends up to
 * {@value #MAX_INLINE} bytes are posted inline, as the transport posts them by default. Only the last part
 * of one message in a few asks for a completion (see {@link #signalInterval}): the completion frees the
 * send queue entries of the unsignaled ones before it, and a ping-pong needs no other.
 *
 * <p>Used by one thread at a time.
 */
final class VerbsPeer implements AutoCloseable {

    /** First byte of a message to answer. */
    static final byte PING = 0;
    /** First byte of the last message: the peer answers it and both ends disconnect. */
    static final byte STOP = 1;

    /** Receives posted at least: more than the one a ping-pong of one-part messages has in flight. */
    static final int RECEIVES = 16;
    /**
     * The most parts a message may have: 64 KiB in slots of 256 B, the transport's smallest. Its receives
     * and sends stay far below rxe's limit on a queue's work requests.
     */
    static final int MAX_PARTS = 256;
    private static final int SEND_QUEUE_DEPTH = 64;
    /** Send work requests between two signaled ones at most, where a message has fewer parts. */
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
    private final int slotSize;
    private final int parts;
    private final int signalInterval;
    private final boolean waitForEvents;
    private final ByteBuffer buffer;
    private final SVCPostSend send;
    private final SVCPostSend signaledSend;
    private final SVCPostRecv[] receives;
    private int sendsSinceSignal;
    private int partsReceived;

    /**
     * Registers the buffer on {@code pair}, not yet connected, makes the Sends and posts every receive: a
     * Send can never arrive before them.
     */
    private VerbsPeer(VerbsQueuePair pair, int size, int slotSize, boolean waitForEvents) throws IOException {
        this.pair = pair;
        this.size = size;
        this.slotSize = slotSize;
        this.waitForEvents = waitForEvents;
        parts = parts(size, slotSize);
        signalInterval = signalInterval(parts);
        int receiveCount = receives(parts);
        buffer = ByteBuffer.allocateDirect(size + receiveCount * slotSize);
        IbvMr mr = pair.register(buffer, IbvMr.IBV_ACCESS_LOCAL_WRITE);
        List<IbvSendWR> chain = new ArrayList<>(parts);
        List<IbvSendWR> signaledChain = new ArrayList<>(parts);
        for (int part = 0; part < parts; part++) {
            int offset = part * slotSize;
            int length = Math.min(slotSize, size - offset);
            int flags = length <= MAX_INLINE ? IbvSendWR.IBV_SEND_INLINE : 0;
            chain.add(sendRequest(mr, offset, length, flags));
            signaledChain.add(sendRequest(mr, offset, length,
                    part == parts - 1 ? flags | IbvSendWR.IBV_SEND_SIGNALED : flags));
        }
        send = pair.keep(pair.qp().postSend(chain, null));
        signaledSend = pair.keep(pair.qp().postSend(signaledChain, null));
        receives = pair.postReceives(mr, size, receiveCount, slotSize);
    }

    /**
     * Connects to {@code server} and returns this end, which sends messages of {@code size} in Sends of at
     * most {@code slotSize}, once the connection is established.
     */
    static VerbsPeer connect(InetSocketAddress server, int size, int slotSize, boolean waitForEvents)
            throws IOException {
        int parts = parts(size, slotSize);
        VerbsQueuePair pair = VerbsQueuePair.resolve(server, sendQueueDepth(parts), receives(parts),
                maxInline(size, slotSize), POLL_BATCH);
        VerbsPeer peer = new VerbsPeer(pair, size, slotSize, waitForEvents);
        pair.connect();
        return peer;
    }

    /**
     * Waits for the next connect request on {@code listener}, makes the accepting end with its receives
     * posted, accepts, and returns that end once the connection is established.
     */
    static VerbsPeer accept(VerbsListener listener, int size, int slotSize, boolean waitForEvents)
            throws IOException {
        int parts = parts(size, slotSize);
        VerbsQueuePair pair = listener.nextRequest(sendQueueDepth(parts), receives(parts),
                maxInline(size, slotSize), POLL_BATCH);
        VerbsPeer peer = new VerbsPeer(pair, size, slotSize, waitForEvents);
        pair.accept();
        return peer;
    }

    /** Returns the Sends a message of {@code size} takes in slots of {@code slotSize}. */
    static int parts(int size, int slotSize) {
        return (size - 1) / slotSize + 1;
    }

    /**
     * Returns the receives an end keeps posted: room for two whole messages, so that the one receive whose
     * repost waits until its message is answered never leaves the next message short.
     */
    static int receives(int parts) {
        return Math.max(RECEIVES, 2 * parts);
    }

    /**
     * Returns {@code n}: the last part of one message in {@code n} asks for a completion. The send queue
     * then holds at most the parts of {@code n} messages and of the signaled one before them, whose
     * completion may not have been polled yet: {@code (n + 1) * parts}, within {@link #sendQueueDepth}.
     */
    static int signalInterval(int parts) {
        return Math.max(1, SIGNAL_INTERVAL / parts);
    }

    /** Returns the send queue's depth: {@value #SEND_QUEUE_DEPTH}, or two messages' parts where that is more. */
    static int sendQueueDepth(int parts) {
        return Math.max(SEND_QUEUE_DEPTH, 2 * parts);
    }

    /** Returns the inline data the queue pair needs: none if every part goes by DMA (the last is the smallest). */
    private static int maxInline(int size, int slotSize) {
        return size - (parts(size, slotSize) - 1) * slotSize <= MAX_INLINE ? MAX_INLINE : 0;
    }

    private static IbvSendWR sendRequest(IbvMr mr, int offset, int length, int flags) {
        IbvSendWR request = new IbvSendWR();
        request.setOpcode(IbvSendWR.IBV_WR_SEND);
        request.setSend_flags(flags);
        request.setSg_list(VerbsQueuePair.gather(mr, offset, length));
        return request;
    }

    /** Posts the message, its last part's first byte {@code kind}, as one chain of its parts. */
    void send(byte kind) throws IOException {
        // An inline Send is copied when posted; any other is read by the device before the peer's answer
        // can arrive, so the next message may overwrite it then.
        buffer.put((parts - 1) * slotSize, kind);
        if (++sendsSinceSignal == signalInterval) {
            sendsSinceSignal = 0;
            signaledSend.execute();
        } else {
            send.execute();
        }
    }

    /**
     * Returns the receive slot of the next message's last part, polling the CQ without a pause or, when
     * this end waits for events, arming the CQ and sleeping on the completion channel whenever it is empty.
     * The receives of the parts before it are posted again on the way.
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
                    int slot = (int) wc.getWr_id();
                    if (++partsReceived < parts) {
                        receives[slot].execute();
                        continue;
                    }
                    partsReceived = 0;
                    return slot;
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

    /** Returns the kind ({@link #PING} or {@link #STOP}) of the message whose last part is in {@code slot}. */
    byte kind(int slot) {
        return buffer.get(size + slot * slotSize);
    }

    /** Posts the receive of {@code slot} again, once the message whose last part it holds has been read. */
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
