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
 * The writing end of {@link VerbsWriteStream}: connects, learns the peer's ring from its first message
 * ({@link VerbsWriteSink} has the protocol), then writes messages of one size into consecutive positions
 * of the ring with RDMA Write with immediate, from one registered buffer, as long as it has credit and
 * room in its send queue, polling its CQ for the writes' completions and the peer's credit. Every verb of
 * the steady state is a DiSNI stateful verb call made once and executed again and again, with only the
 * remote address changed in place, so a write allocates nothing.
 *
 * <p>Used by one thread at a time.
 */
final class VerbsWriter implements AutoCloseable {

    /** perftest's default {@code --tx-depth}: writes in flight at most, where the ring allows as many. */
    static final int SEND_QUEUE_DEPTH = 128;
    /**
     * Receives for the peer's messages: more than the credit messages that can be unread at once (one per
     * quarter of the credit, a few more where it does not divide by four).
     */
    private static final int CONTROL_RECEIVES = 16;
    private static final int CONTROL_SLOT = 32;
    private static final long STOP_WR_ID = -1;
    private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(20);
    /** Rounds of the busy loop between two looks at the clock: each round polls the CQ at least once. */
    private static final int ROUNDS_PER_CLOCK_READ = 64;
    private static final int WC_RDMA_WRITE = IbvWC.IbvWcOpcode.IBV_WC_RDMA_WRITE.getOpcode();

    private final VerbsQueuePair pair;
    private final int size;
    private final boolean waitForEvents;
    private final ByteBuffer control;
    private final SVCPostRecv[] receives = new SVCPostRecv[CONTROL_RECEIVES];
    private final long ringAddress;
    /** Where the last whole message of the ring ends: the next position after it is the ring's start. */
    private final int ringEnd;
    private final int credit;
    private final int maxInFlight;
    private final int signalInterval;
    private final SVCPostSend write;
    private final SVCPostSend.RdmaMod writeTarget;
    private final SVCPostSend signaledWrite;
    private final SVCPostSend.SendWRMod signaledRequest;
    private final SVCPostSend.RdmaMod signaledWriteTarget;
    private final SVCPostSend stop;
    private int credits;
    private int offset;
    private long posted;
    private long completed;
    private boolean stopped;
    private long creditStalls;
    private boolean stalled;

    private VerbsWriter(VerbsQueuePair pair, int size, boolean waitForEvents) throws IOException {
        this.pair = pair;
        this.size = size;
        this.waitForEvents = waitForEvents;
        control = ByteBuffer.allocateDirect(CONTROL_RECEIVES * CONTROL_SLOT);
        IbvMr controlMr = pair.register(control, IbvMr.IBV_ACCESS_LOCAL_WRITE);
        for (int slot = 0; slot < CONTROL_RECEIVES; slot++) {
            IbvRecvWR receive = new IbvRecvWR();
            receive.setWr_id(slot);
            receive.setSg_list(VerbsQueuePair.gather(controlMr, slot * CONTROL_SLOT, CONTROL_SLOT));
            receives[slot] = pair.keep(pair.qp().postRecv(List.of(receive), null));
            receives[slot].execute();
        }
        pair.connect();

        int slot = awaitControlMessage(VerbsWriteSink.RING_MESSAGE_BYTES);
        int at = slot * CONTROL_SLOT;
        ringAddress = control.getLong(at);
        int rkey = control.getInt(at + 8);
        int ringBytes = control.getInt(at + 12);
        credit = control.getInt(at + 16);
        if (ringBytes < size || credit < 1 || credit > ringBytes / size) {
            throw new IOException("the peer's ring: " + ringBytes + " bytes, credit " + credit + " (expected: >= "
                    + size + " bytes, credit 1 to " + Math.max(0, ringBytes) / size + ")");
        }
        receives[slot].execute();
        ringEnd = ringBytes / size * size;
        credits = credit;
        maxInFlight = maxInFlight(credit);
        signalInterval = signalInterval(maxInFlight);

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
        VerbsQueuePair pair = VerbsQueuePair.resolve(server, SEND_QUEUE_DEPTH, CONTROL_RECEIVES, 0,
                VerbsQueuePair.POLL_BATCH);
        try {
            return new VerbsWriter(pair, size, waitForEvents);
        } catch (IOException | RuntimeException e) {
            try {
                pair.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
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

    /** Returns the writes a writer with {@code credit} may have in flight at most. */
    static int maxInFlight(int credit) {
        return Math.min(credit, SEND_QUEUE_DEPTH);
    }

    /**
     * Returns {@code n}: one write in {@code n} asks for a completion. Signaled selectively, one write in a
     * quarter of those that may be in flight (every 4th at 64 KiB), as perftest's ib_write_bw signals one
     * in {@code --cq-mod}: a signaled write's completion frees the send queue entries of the unsignaled
     * ones before it, soon enough to keep the queue full, and rxe writes, and the JNI poll reads, a
     * quarter of the completions. The transport signals one request per 16 KiB of payload, so every
     * 64 KiB write: that difference is the transport's, not Java's.
     */
    static int signalInterval(int maxInFlight) {
        return Math.max(1, maxInFlight / 4);
    }

    /** Returns how often this end ran out of credit so far: each time it had to wait for the peer. */
    long creditStalls() {
        return creditStalls;
    }

    /**
     * Writes for {@code nanos}, then returns with the writes in flight still in flight: the next call
     * goes on from there, so the stream never drains between the warm-up and the measured window.
     *
     * @throws IOException if a work request failed, or nothing completed for 20 s
     */
    void stream(long nanos) throws IOException {
        long end = System.nanoTime() + nanos;
        long stallDeadline = System.nanoTime() + STALL_NANOS;
        boolean progressed = false;
        int rounds = 0;
        for (;;) {
            while (credits > 0 && posted - completed < maxInFlight) {
                post();
            }
            if (credits == 0 && !stalled) {
                stalled = true;
                creditStalls++;
            }
            int polled = pair.poll();
            if (polled > 0) {
                handle(polled);
                progressed = true;
            } else if (waitForEvents) {
                // Out of credit or of room, or the loop above would have posted: only a completion helps.
                pair.awaitEvent();
            }
            if (++rounds == ROUNDS_PER_CLOCK_READ || waitForEvents) {
                rounds = 0;
                long now = System.nanoTime();
                if (now - end >= 0) {
                    return;
                }
                if (progressed) {
                    progressed = false;
                    stallDeadline = now + STALL_NANOS;
                } else if (now - stallDeadline > 0) {
                    throw new IOException("no completion in " + TimeUnit.NANOSECONDS.toSeconds(STALL_NANOS)
                            + " s: " + (posted - completed) + " writes in flight, " + credits + " credit left");
                }
            }
        }
    }

    /** Posts the next write: to the next position of the ring, signaled if it is its interval's last. */
    private void post() throws IOException {
        long target = ringAddress + offset;
        if ((posted + 1) % signalInterval == 0) {
            signaledWriteTarget.setRemote_addr(target);
            signaledRequest.setWr_id(posted);
            signaledWrite.execute();
        } else {
            writeTarget.setRemote_addr(target);
            write.execute();
        }
        posted++;
        credits--;
        offset += size;
        if (offset == ringEnd) {
            offset = 0;
        }
    }

    private void handle(int polled) throws IOException {
        for (int i = 0; i < polled; i++) {
            IbvWC wc = pair.completion(i);
            int opcode = wc.getOpcode();
            if (opcode == WC_RDMA_WRITE) {
                if (wc.getWr_id() == STOP_WR_ID) {
                    stopped = true;
                } else {
                    // Writes complete in order: this one's completion stands for those before it.
                    completed = wc.getWr_id() + 1;
                }
            } else if (opcode == VerbsQueuePair.WC_RECV) {
                int slot = (int) wc.getWr_id();
                int returned = control.getInt(slot * CONTROL_SLOT);
                if (wc.getByte_len() != VerbsWriteSink.CREDIT_MESSAGE_BYTES || returned < 1
                        || returned > credit - credits) {
                    throw new IOException("a credit message of " + wc.getByte_len() + " bytes returning " + returned
                            + " writes (expected: " + VerbsWriteSink.CREDIT_MESSAGE_BYTES + " bytes, 1 to "
                            + (credit - credits) + ")");
                }
                receives[slot].execute();
                credits += returned;
                stalled = false;
            } else {
                throw new IOException("a completion of opcode " + opcode + " (expected: " + WC_RDMA_WRITE + " or "
                        + VerbsQueuePair.WC_RECV + ")");
            }
        }
    }

    /**
     * Sends the stop and waits until it completed: then every write before it has arrived, and the peer
     * closes once this end disconnects.
     */
    void stop() throws IOException {
        stop.execute();
        long deadline = System.nanoTime() + STALL_NANOS;
        while (!stopped) {
            int polled = pair.poll();
            if (polled > 0) {
                handle(polled);
            } else if (waitForEvents) {
                pair.awaitEvent();
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IOException("the stop did not complete in " + TimeUnit.NANOSECONDS.toSeconds(STALL_NANOS)
                        + " s");
            }
        }
    }

    /** Waits for the ring message, the peer's first: returns its receive slot, to be reposted by the caller. */
    private int awaitControlMessage(int expectedBytes) throws IOException {
        long deadline = System.nanoTime() + STALL_NANOS;
        for (;;) {
            if (pair.poll() > 0) {
                IbvWC wc = pair.completion(0);
                if (wc.getOpcode() != VerbsQueuePair.WC_RECV || wc.getByte_len() != expectedBytes) {
                    throw new IOException("the peer's first message: opcode " + wc.getOpcode() + ", "
                            + wc.getByte_len() + " bytes (expected: " + VerbsQueuePair.WC_RECV + ", " + expectedBytes
                            + " bytes)");
                }
                return (int) wc.getWr_id();
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IOException("no ring message in " + TimeUnit.NANOSECONDS.toSeconds(STALL_NANOS) + " s");
            }
        }
    }

    /** Disconnects, waits for the peer to, and frees every verbs object. */
    @Override
    public void close() throws IOException {
        pair.close();
    }
}
