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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPostSend;

/**
 * What the receiving ends of {@link VerbsWriteStream} share, whatever verb carries the data
 * ({@link VerbsWriteSink}: RDMA Writes with immediate into a ring; {@link VerbsSendSink}: Sends into
 * receive slots): accepts one connection, grants the peer ({@link AbstractVerbsStreamer}) its credit, then
 * counts the data as the receive completions come, returning credit for them, until the peer's stop. It
 * never reads the data: the floor measures the verbs, not a copy. Runs on a thread of its own;
 * {@link #bytes()} and {@link #failure()} may be read from any thread.
 *
 * <p>The wire protocol, every message on one RC queue pair:
 *
 * <table>
 *   <caption>Messages of the stream</caption>
 *   <tr><th>message</th><th>verb, direction</th><th>fields (big-endian)</th></tr>
 *   <tr><td>first</td><td>Send, this end to the streamer, once, first</td><td>the streamer's credit in
 *       messages (4 bytes); for writes, then the ring's rkey (4), its address (8) and its length in bytes
 *       (4): 20 bytes</td></tr>
 *   <tr><td>data</td><td>RDMA Write with immediate {@value VerbsWriteSink#IMM_DATA} to the next position
 *       of the ring, wrapping at its last whole message; or a Send into the next posted receive</td>
 *       <td>a message (write), or {@code min(size, slot size)} bytes of the stream (Send)</td></tr>
 *   <tr><td>credit</td><td>Send, this end to the streamer</td><td>the data messages whose receives (and
 *       ring positions) are free again (4 bytes), one message per quarter of the credit</td></tr>
 *   <tr><td>stop</td><td>RDMA Write with immediate {@value VerbsWriteSink#IMM_STOP}, or a Send, streamer
 *       to this end</td><td>none (0 bytes): the last message; the streamer disconnects once it
 *       completes</td></tr>
 * </table>
 *
 * <p>Each data message and the stop consume a posted receive, so this end keeps one posted per data
 * message the streamer may have unread here (its credit) and one for the stop: no message can find none
 * posted. A field that breaks these bounds is an error.
 */
abstract class AbstractVerbsSink implements AbstractVerbsBenchmark.PassiveEnd {

    static final int CREDIT_MESSAGE_BYTES = 4;
    /** Inline data the control messages need at most: both are sent inline, so their buffer is free at once. */
    static final int MAX_INLINE = 64;

    /** Sends this end has posted and not seen complete at most: credit messages are few. */
    private static final int SEND_DEPTH = 16;
    /** One Send in this many asks for a completion, which frees the send queue entries of those before it. */
    private static final int SIGNAL_INTERVAL = 4;
    private static final int CREDIT_OFFSET = 0;
    private static final int FIRST_MESSAGE_OFFSET = 8;
    private static final int CONTROL_BYTES = 64;
    private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(20);
    /** Empty polls between two looks at the clock while busy polling: a clock read costs more than a poll. */
    private static final int POLLS_PER_CLOCK_READ = 1 << 14;
    private static final int WC_SEND = IbvWC.IbvWcOpcode.IBV_WC_SEND.getOpcode();

    private final VerbsListener listener;
    private final boolean waitForEvents;
    private final int credit;
    private final int creditBatch;
    private final int firstMessageBytes;
    /** Bytes received so far; written by this end's thread only, read by the measuring one. */
    private final AtomicLong bytes = new AtomicLong();
    private volatile Throwable failure;

    /**
     * Makes the end that accepts the next connection on {@code listener} and grants {@code credit} data
     * messages in a first message of {@code firstMessageBytes}.
     */
    AbstractVerbsSink(VerbsListener listener, boolean waitForEvents, int credit, int firstMessageBytes) {
        this.listener = listener;
        this.waitForEvents = waitForEvents;
        this.credit = credit;
        this.creditBatch = Math.max(1, credit / 4);
        this.firstMessageBytes = firstMessageBytes;
    }

    @Override
    public final void run() {
        try (VerbsQueuePair pair = listener.nextRequest(SEND_DEPTH, credit + 1, MAX_INLINE,
                VerbsQueuePair.POLL_BATCH)) {
            postReceives(pair, credit + 1);
            ByteBuffer control = ByteBuffer.allocateDirect(CONTROL_BYTES);
            IbvMr controlMr = pair.register(control, IbvMr.IBV_ACCESS_LOCAL_WRITE);
            SVCPostSend firstMessage = pair.keep(pair.qp().postSend(List.of(send(controlMr, FIRST_MESSAGE_OFFSET,
                    firstMessageBytes, IbvSendWR.IBV_SEND_SIGNALED)), null));
            SVCPostSend creditMessage = pair.keep(pair.qp().postSend(List.of(send(controlMr, CREDIT_OFFSET,
                    CREDIT_MESSAGE_BYTES, 0)), null));
            SVCPostSend signaledCreditMessage = pair.keep(pair.qp().postSend(List.of(send(controlMr, CREDIT_OFFSET,
                    CREDIT_MESSAGE_BYTES, IbvSendWR.IBV_SEND_SIGNALED)), null));
            pair.accept();
            control.putInt(FIRST_MESSAGE_OFFSET, credit);
            fillFirstMessage(control.slice(FIRST_MESSAGE_OFFSET + 4, firstMessageBytes - 4));
            // Send 0, signaled with work request id 0: the credit messages count on from 1.
            firstMessage.execute();
            receiveUntilStop(pair, control, creditMessage, signaledCreditMessage);
            // The streamer disconnects once its stop completed; disconnecting first could fail it.
            pair.awaitDisconnect();
        } catch (IOException | RuntimeException e) {
            failure = e;
        }
    }

    /**
     * Registers this end's memory on {@code pair}, not yet accepted, and posts {@code receives} receives:
     * one per data message of the credit and one for the stop.
     */
    abstract void postReceives(VerbsQueuePair pair, int receives) throws IOException;

    /** Writes what the first message carries after the credit into {@code rest}; the credit alone has nothing. */
    void fillFirstMessage(ByteBuffer rest) {
    }

    /** Returns {@code true} if {@code wc}, which is not one of this end's Sends, is the stop. */
    abstract boolean isStop(IbvWC wc);

    /**
     * Takes the data message of {@code wc}, which is not the stop: checks it, posts its receive again, and
     * returns the bytes it brought.
     *
     * @throws IOException if it is no data message of this stream
     */
    abstract int received(IbvWC wc) throws IOException;

    private static IbvSendWR send(IbvMr mr, int offset, int length, int flags) {
        IbvSendWR request = new IbvSendWR();
        request.setOpcode(IbvSendWR.IBV_WR_SEND);
        request.setSend_flags(flags | IbvSendWR.IBV_SEND_INLINE);
        request.setSg_list(VerbsQueuePair.gather(mr, offset, length));
        return request;
    }

    /** Counts the data, reposting a receive for each message and returning credit, until the stop comes. */
    private void receiveUntilStop(VerbsQueuePair pair, ByteBuffer control, SVCPostSend creditMessage,
                                  SVCPostSend signaledCreditMessage) throws IOException {
        SVCPostSend.SendWRMod signaledRequest = signaledCreditMessage.getWrMod(0);
        long sends = 1;
        long sendsCompleted = 0;
        int unreturned = 0;
        long received = 0;
        int emptyPolls = 0;
        boolean progressed = false;
        long stallDeadline = System.nanoTime() + STALL_NANOS;
        for (;;) {
            int polled = pair.poll();
            for (int i = 0; i < polled; i++) {
                IbvWC wc = pair.completion(i);
                if (wc.getOpcode() == WC_SEND) {
                    sendsCompleted = wc.getWr_id() + 1;
                    continue;
                }
                if (isStop(wc)) {
                    return;
                }
                received += received(wc);
                // A release store: the measuring thread sees a recent count, without a fence per message.
                bytes.lazySet(received);
                unreturned++;
            }
            // A full send queue defers the credit, which then returns more messages at once.
            if (unreturned >= creditBatch && sends - sendsCompleted < SEND_DEPTH) {
                control.putInt(CREDIT_OFFSET, unreturned);
                if (sends % SIGNAL_INTERVAL == 0) {
                    signaledRequest.setWr_id(sends);
                    signaledCreditMessage.execute();
                } else {
                    creditMessage.execute();
                }
                sends++;
                unreturned = 0;
            }
            if (polled > 0) {
                progressed = true;
                continue;
            }
            if (waitForEvents) {
                pair.awaitEvent();
            }
            if (++emptyPolls == POLLS_PER_CLOCK_READ || waitForEvents) {
                emptyPolls = 0;
                long now = System.nanoTime();
                if (progressed) {
                    progressed = false;
                    stallDeadline = now + STALL_NANOS;
                } else if (now - stallDeadline > 0) {
                    throw new IOException("no data in " + TimeUnit.NANOSECONDS.toSeconds(STALL_NANOS) + " s");
                }
            }
        }
    }

    /** Returns the bytes received so far. */
    final long bytes() {
        return bytes.get();
    }

    @Override
    public final Throwable failure() {
        return failure;
    }
}
