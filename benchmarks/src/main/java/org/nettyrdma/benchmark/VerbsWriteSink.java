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
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPostRecv;
import com.ibm.disni.verbs.SVCPostSend;

/**
 * The receiving end of {@link VerbsWriteStream}: accepts one connection, registers a ring of
 * {@value #RING_BYTES} bytes the peer may write into, tells the peer where it is, and then counts the
 * peer's RDMA Writes with immediate as their receive completions come, returning credit for them, until
 * the peer's stop. It never reads the ring: the floor measures the verbs, not a copy. Runs on a thread of
 * its own; {@link #bytes()} and {@link #failure()} may be read from any thread.
 *
 * <p>The wire protocol, every message on one RC queue pair:
 *
 * <table>
 *   <caption>Messages of the stream</caption>
 *   <tr><th>message</th><th>verb, direction</th><th>fields (big-endian)</th></tr>
 *   <tr><td>ring</td><td>Send, this end to the writer, once, first</td><td>ring address (8 bytes), its
 *       rkey (4), its length in bytes (4), the writer's initial credit in writes (4): 20 bytes</td></tr>
 *   <tr><td>data</td><td>RDMA Write with immediate {@value #IMM_DATA}, writer to the ring</td><td>the
 *       message size in bytes, at the next position of the ring, wrapping at its last whole message</td></tr>
 *   <tr><td>credit</td><td>Send, this end to the writer</td><td>the writes whose positions are free again
 *       (4 bytes), one message per quarter of the credit</td></tr>
 *   <tr><td>stop</td><td>RDMA Write with immediate {@value #IMM_STOP}, writer to the ring</td><td>none (0
 *       bytes): the last message; the writer disconnects once it completes</td></tr>
 * </table>
 *
 * <p>Each write with immediate consumes a posted receive, so this end keeps one posted per write the
 * writer may have unread here (its credit) and one for the stop; a field that breaks these bounds is an
 * error.
 */
final class VerbsWriteSink implements AbstractVerbsBenchmark.PassiveEnd {

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
    static final int RING_MESSAGE_BYTES = 20;
    static final int CREDIT_MESSAGE_BYTES = 4;
    /** Inline data the control messages need at most: both are sent inline, so their buffer is free at once. */
    static final int MAX_INLINE = 64;

    /** Sends this end has posted and not seen complete at most: credit messages are few, see {@link #window}. */
    private static final int SEND_DEPTH = 16;
    /** One Send in this many asks for a completion, which frees the send queue entries of those before it. */
    private static final int SIGNAL_INTERVAL = 4;
    private static final int CREDIT_OFFSET = 0;
    private static final int RING_MESSAGE_OFFSET = 8;
    /** Where the receives' single gather element points: a write with immediate puts nothing there. */
    private static final int SCRATCH_OFFSET = 32;
    private static final int CONTROL_BYTES = 64;
    private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(20);
    /** Empty polls between two looks at the clock while busy polling: a clock read costs more than a poll. */
    private static final int POLLS_PER_CLOCK_READ = 1 << 14;
    private static final int WC_SEND = IbvWC.IbvWcOpcode.IBV_WC_SEND.getOpcode();

    private final VerbsListener listener;
    private final int size;
    private final boolean waitForEvents;
    private final int credit;
    private final int creditBatch;
    /** Bytes written into the ring so far; written by this end's thread only, read by the measuring one. */
    private final AtomicLong bytes = new AtomicLong();
    private volatile Throwable failure;

    VerbsWriteSink(VerbsListener listener, int size, boolean waitForEvents) {
        this.listener = listener;
        this.size = size;
        this.waitForEvents = waitForEvents;
        this.credit = window(size);
        this.creditBatch = Math.max(1, credit / 4);
    }

    /**
     * Returns the writes of {@code size} bytes a writer may have unread in the ring: as many as fit, at
     * most {@link #MAX_CREDIT}.
     */
    static int window(int size) {
        return Math.max(1, Math.min(RING_BYTES / size, MAX_CREDIT));
    }

    @Override
    public void run() {
        try (VerbsQueuePair pair = listener.nextRequest(SEND_DEPTH, credit + 1, MAX_INLINE,
                VerbsQueuePair.POLL_BATCH)) {
            ByteBuffer ring = ByteBuffer.allocateDirect(RING_BYTES);
            IbvMr ringMr = pair.register(ring, IbvMr.IBV_ACCESS_LOCAL_WRITE | IbvMr.IBV_ACCESS_REMOTE_WRITE);
            ByteBuffer control = ByteBuffer.allocateDirect(CONTROL_BYTES);
            IbvMr controlMr = pair.register(control, IbvMr.IBV_ACCESS_LOCAL_WRITE);
            IbvRecvWR receiveRequest = new IbvRecvWR();
            receiveRequest.setSg_list(VerbsQueuePair.gather(controlMr, SCRATCH_OFFSET, 4));
            // Every receive is alike: one stateful call, executed once per receive.
            SVCPostRecv receive = pair.keep(pair.qp().postRecv(List.of(receiveRequest), null));
            for (int i = 0; i < credit + 1; i++) {
                receive.execute();
            }
            SVCPostSend ringMessage = pair.keep(pair.qp().postSend(List.of(send(controlMr, RING_MESSAGE_OFFSET,
                    RING_MESSAGE_BYTES, IbvSendWR.IBV_SEND_SIGNALED)), null));
            SVCPostSend creditMessage = pair.keep(pair.qp().postSend(List.of(send(controlMr, CREDIT_OFFSET,
                    CREDIT_MESSAGE_BYTES, 0)), null));
            SVCPostSend signaledCreditMessage = pair.keep(pair.qp().postSend(List.of(send(controlMr, CREDIT_OFFSET,
                    CREDIT_MESSAGE_BYTES, IbvSendWR.IBV_SEND_SIGNALED)), null));
            pair.accept();
            control.putLong(RING_MESSAGE_OFFSET, ringMr.getAddr()).putInt(RING_MESSAGE_OFFSET + 8, ringMr.getRkey())
                    .putInt(RING_MESSAGE_OFFSET + 12, RING_BYTES).putInt(RING_MESSAGE_OFFSET + 16, credit);
            // Send 0, signaled with work request id 0: the credit messages count on from 1.
            ringMessage.execute();
            receiveUntilStop(pair, receive, control, creditMessage, signaledCreditMessage);
            // The writer disconnects once its stop completed; disconnecting first could fail it.
            pair.awaitDisconnect();
        } catch (IOException | RuntimeException e) {
            failure = e;
        }
    }

    private static IbvSendWR send(IbvMr mr, int offset, int length, int flags) {
        IbvSendWR request = new IbvSendWR();
        request.setOpcode(IbvSendWR.IBV_WR_SEND);
        request.setSend_flags(flags | IbvSendWR.IBV_SEND_INLINE);
        request.setSg_list(VerbsQueuePair.gather(mr, offset, length));
        return request;
    }

    /** Counts the writes, reposting a receive for each and returning credit, until the stop comes. */
    private void receiveUntilStop(VerbsQueuePair pair, SVCPostRecv receive, ByteBuffer control,
                                  SVCPostSend creditMessage, SVCPostSend signaledCreditMessage) throws IOException {
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
                int opcode = wc.getOpcode();
                if (opcode == VerbsQueuePair.WC_RECV_RDMA_WITH_IMM) {
                    if (wc.getImm_data() != IMM_DATA) {
                        return;
                    }
                    if (wc.getByte_len() != size) {
                        throw new IOException("a write of " + wc.getByte_len() + " bytes (expected: " + size + ")");
                    }
                    receive.execute();
                    received += size;
                    // A release store: the measuring thread sees a recent count, without a fence per write.
                    bytes.lazySet(received);
                    unreturned++;
                } else if (opcode == WC_SEND) {
                    sendsCompleted = wc.getWr_id() + 1;
                } else {
                    throw new IOException("a completion of opcode " + opcode + " (expected: "
                            + VerbsQueuePair.WC_RECV_RDMA_WITH_IMM + " or " + WC_SEND + ")");
                }
            }
            // A full send queue defers the credit, which then returns more writes at once.
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
                    throw new IOException("no write in " + TimeUnit.NANOSECONDS.toSeconds(STALL_NANOS) + " s");
                }
            }
        }
    }

    /** Returns the bytes written into the ring so far. */
    long bytes() {
        return bytes.get();
    }

    @Override
    public Throwable failure() {
        return failure;
    }
}
