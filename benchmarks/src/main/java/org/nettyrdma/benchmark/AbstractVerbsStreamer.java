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
import java.util.concurrent.TimeUnit;

import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPostRecv;

/**
 * What the sending ends of {@link VerbsWriteStream} share, whatever verb carries the data ({@link VerbsWriter}:
 * RDMA Writes into the peer's ring; {@link VerbsSender}: Sends into the peer's receive slots): the receives
 * for the peer's control messages, the credit its first message grants and its credit messages return, and
 * the loop that posts as long as there is credit and room in the send queue, polling the CQ for the
 * completions and the credit. The wire protocol is {@link AbstractVerbsSink}'s. A subclass posts the data
 * and the stop; every verb of the steady state is a DiSNI stateful verb call made once and executed again
 * and again, so a message allocates nothing.
 *
 * <p>Used by one thread at a time.
 */
abstract class AbstractVerbsStreamer implements AutoCloseable {

    /** perftest's default {@code --tx-depth}: messages in flight at most, where the credit allows as many. */
    static final int SEND_QUEUE_DEPTH = 128;
    /** The work request id of the stop; the data's ids count up from 0. */
    static final long STOP_WR_ID = -1;
    /**
     * Receives for the peer's messages: more than the credit messages that can be unread at once (one per
     * quarter of the credit, a few more where it does not divide by four).
     */
    private static final int CONTROL_RECEIVES = 16;
    private static final int CONTROL_SLOT = 32;
    private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(20);
    /** Rounds of the busy loop between two looks at the clock: each round polls the CQ at least once. */
    private static final int ROUNDS_PER_CLOCK_READ = 64;

    /** The end's verbs objects, on which a subclass makes its stateful calls. */
    protected final VerbsQueuePair pair;
    private final boolean waitForEvents;
    private final int dataCompletion;
    private final ByteBuffer control;
    private final SVCPostRecv[] receives;
    /** A copy of the peer's first message, for the subclass to read the rest of it. */
    private final ByteBuffer firstMessage;
    private final int credit;
    private final int maxInFlight;
    private final int signalInterval;
    private int credits;
    private long posted;
    private long completed;
    private boolean stopped;
    private long creditStalls;
    private boolean stalled;

    /**
     * Posts the receives for the peer's control messages on {@code pair}, connects it, and waits for the
     * peer's first message, of {@code firstMessageBytes} starting with the credit it grants. The data's
     * completions are of opcode {@code dataCompletion}; the stop's too.
     */
    AbstractVerbsStreamer(VerbsQueuePair pair, boolean waitForEvents, int dataCompletion, int firstMessageBytes)
            throws IOException {
        this.pair = pair;
        this.waitForEvents = waitForEvents;
        this.dataCompletion = dataCompletion;
        control = ByteBuffer.allocateDirect(CONTROL_RECEIVES * CONTROL_SLOT);
        IbvMr controlMr = pair.register(control, IbvMr.IBV_ACCESS_LOCAL_WRITE);
        receives = pair.postReceives(controlMr, 0, CONTROL_RECEIVES, CONTROL_SLOT);
        pair.connect();

        int slot = awaitFirstMessage(firstMessageBytes);
        firstMessage = ByteBuffer.allocate(firstMessageBytes).put(control.slice(slot * CONTROL_SLOT,
                firstMessageBytes)).flip();
        receives[slot].execute();
        credit = firstMessage.getInt(0);
        if (credit < 1) {
            throw new IOException("the peer's credit: " + credit + " (expected: >= 1)");
        }
        credits = credit;
        maxInFlight = maxInFlight(credit);
        signalInterval = signalInterval(maxInFlight);
    }

    /**
     * Connects to {@code server} with a new end and returns the streamer {@code streamer} makes on it, once
     * it knows the peer's first message; closes the end if that fails.
     */
    static <T extends AbstractVerbsStreamer> T connect(InetSocketAddress server, Opener<T> streamer)
            throws IOException {
        VerbsQueuePair pair = VerbsQueuePair.resolve(server, SEND_QUEUE_DEPTH, CONTROL_RECEIVES, 0,
                VerbsQueuePair.POLL_BATCH);
        try {
            return streamer.open(pair);
        } catch (IOException | RuntimeException e) {
            try {
                pair.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** A subclass's constructor, which {@link #connect} calls with the end it made. */
    @FunctionalInterface
    interface Opener<T extends AbstractVerbsStreamer> {
        T open(VerbsQueuePair pair) throws IOException;
    }

    /** Returns the messages a streamer with {@code credit} may have in flight at most. */
    static int maxInFlight(int credit) {
        return Math.min(credit, SEND_QUEUE_DEPTH);
    }

    /**
     * Returns {@code n}: one message in {@code n} asks for a completion. Signaled selectively, one in a
     * quarter of those that may be in flight (every 4th write at 64 KiB), as perftest's bandwidth tools
     * signal one in {@code --cq-mod}: a signaled message's completion frees the send queue entries of the
     * unsignaled ones before it, soon enough to keep the queue full, and rxe writes, and the JNI poll
     * reads, a quarter of the completions. The transport signals one request per 16 KiB of payload, so
     * every 64 KiB write: that difference is the transport's, not Java's.
     */
    static int signalInterval(int maxInFlight) {
        return Math.max(1, maxInFlight / 4);
    }

    /** Returns the peer's first message, its credit first, for a subclass to read the rest. */
    protected final ByteBuffer firstMessage() {
        return firstMessage.duplicate();
    }

    /** Returns the credit the peer granted: the messages this end may have unread there. */
    protected final int credit() {
        return credit;
    }

    /** Returns how often this end ran out of credit so far: each time it had to wait for the peer. */
    final long creditStalls() {
        return creditStalls;
    }

    /**
     * Posts data message {@code index}, asking for a completion with work request id {@code index} if
     * {@code signaled}; the peer has credit for it.
     */
    abstract void post(long index, boolean signaled) throws IOException;

    /** Posts the stop, signaled, with work request id {@link #STOP_WR_ID}. */
    abstract void postStop() throws IOException;

    /**
     * Streams for {@code nanos}, then returns with the messages in flight still in flight: the next call
     * goes on from there, so the stream never drains between the warm-up and the measured window.
     *
     * @throws IOException if a work request failed, or nothing completed for 20 s
     */
    final void stream(long nanos) throws IOException {
        long end = System.nanoTime() + nanos;
        long stallDeadline = System.nanoTime() + STALL_NANOS;
        boolean progressed = false;
        int rounds = 0;
        for (;;) {
            while (credits > 0 && posted - completed < maxInFlight) {
                post(posted, (posted + 1) % signalInterval == 0);
                posted++;
                credits--;
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
                            + " s: " + (posted - completed) + " messages in flight, " + credits + " credit left");
                }
            }
        }
    }

    private void handle(int polled) throws IOException {
        for (int i = 0; i < polled; i++) {
            IbvWC wc = pair.completion(i);
            int opcode = wc.getOpcode();
            if (opcode == dataCompletion) {
                if (wc.getWr_id() == STOP_WR_ID) {
                    stopped = true;
                } else {
                    // Messages complete in order: this one's completion stands for those before it.
                    completed = wc.getWr_id() + 1;
                }
            } else if (opcode == VerbsQueuePair.WC_RECV) {
                int slot = (int) wc.getWr_id();
                int returned = control.getInt(slot * CONTROL_SLOT);
                if (wc.getByte_len() != AbstractVerbsSink.CREDIT_MESSAGE_BYTES || returned < 1
                        || returned > credit - credits) {
                    throw new IOException("a credit message of " + wc.getByte_len() + " bytes returning " + returned
                            + " messages (expected: " + AbstractVerbsSink.CREDIT_MESSAGE_BYTES + " bytes, 1 to "
                            + (credit - credits) + ")");
                }
                receives[slot].execute();
                credits += returned;
                stalled = false;
            } else {
                throw new IOException("a completion of opcode " + opcode + " (expected: " + dataCompletion + " or "
                        + VerbsQueuePair.WC_RECV + ")");
            }
        }
    }

    /**
     * Sends the stop and waits until it completed: then every message before it has arrived, and the peer
     * closes once this end disconnects.
     */
    final void stop() throws IOException {
        postStop();
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

    /** Waits for the peer's first message: returns its receive slot, to be reposted by the caller. */
    private int awaitFirstMessage(int expectedBytes) throws IOException {
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
                throw new IOException("no first message in " + TimeUnit.NANOSECONDS.toSeconds(STALL_NANOS) + " s");
            }
        }
    }

    /** Disconnects, waits for the peer to, and frees every verbs object. */
    @Override
    public final void close() throws IOException {
        pair.close();
    }
}
