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
package org.nettyrdma.channel.rdma;

import static org.nettyrdma.channel.rdma.internal.RdmaProtocol.HEADER_SIZE;
import static org.nettyrdma.channel.rdma.internal.RdmaProtocol.HELLO_SIZE;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.EventLoop;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.internal.CompletionListener;
import org.nettyrdma.channel.rdma.internal.CompletionQueue;
import org.nettyrdma.channel.rdma.internal.CreditReturn;
import org.nettyrdma.channel.rdma.internal.HelloMessage;
import org.nettyrdma.channel.rdma.internal.MessageHeader;
import org.nettyrdma.channel.rdma.internal.RdmaDevice;
import org.nettyrdma.channel.rdma.internal.RdmaProtocol;
import org.nettyrdma.channel.rdma.internal.ReceiveRing;
import org.nettyrdma.channel.rdma.internal.RegionByteBuf;
import org.nettyrdma.channel.rdma.internal.RegisteredBuffer;
import org.nettyrdma.channel.rdma.internal.SendCredits;
import org.nettyrdma.channel.rdma.internal.SendStaging;
import org.nettyrdma.channel.rdma.internal.WorkCompletionStatus;
import org.nettyrdma.channel.rdma.internal.WorkRequests;

/**
 * One connection's verbs objects and wire protocol (docs/protocol.md): the queue pair, the receive
 * slots, the ring the peer writes into, the send buffer, the credits both ways, and the queue of
 * received messages waiting for the pipeline to read them.
 *
 * <p>Outgoing bytes are copied into the registered send buffer, and stay in the channel's outbound
 * buffer until the device reports the work request that carries them complete: a write's promise
 * means the peer's device has the bytes. Writes below a slot's size travel as Sends (all that fit of one flush in
 * one Send), larger ones as RDMA Writes with immediate into the peer's ring; one flush is one post.
 * Received Sends are copied out of their slot when read; ring regions are handed up without a copy.
 * Headers (credits) are processed when they arrive, payloads when the pipeline reads, so a reader that
 * stops reading stops the sender without stopping credits for its own writes.
 *
 * <p>Used on the channel's event loop only, except the release of ring regions handed up.
 */
final class RdmaConnection implements CompletionListener {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RdmaConnection.class);

    /** Receive work requests carry this bit in their id; send work requests carry their sequence number. */
    private static final long RECEIVE_TAG = 1L << 62;
    private static final int WC_RECV = 128;
    private static final int WC_RECV_RDMA_WITH_IMM = 129;
    private static final int CHAIN = 32;
    /**
     * A request of a chain is signaled once this many payload bytes went unsignaled with it, not only
     * the chain's last. Each completion then takes a slice of the flushed writes out of the outbound
     * buffer, not the whole window at once: a writer refills in small steps while the rest is on the
     * wire, and the recycled outbound entries and buffers it takes back at each step stay few enough
     * for the recyclers' thread-local batches (larger swings spill into their queues, whose chunks are
     * garbage). Measured in docs/benchmark.md, "Water marks and signals".
     */
    private static final int SIGNAL_INTERVAL_BYTES = 16 * 1024;

    /** What the channel learns from its connection. */
    interface Events {
        /** The peer's {@code HELLO} arrived: the connection can carry data. */
        void connectionReady();

        /** Messages wait in the inbound queue. */
        void inboundAvailable();

        /** Returns the channel's outbound buffer, or {@code null} once it is closed. */
        ChannelOutboundBuffer outboundBuffer();

        /** Send space or credits came back: the channel may flush what it holds. */
        void writeSpaceAvailable();

        /** Every posted send completed. */
        void sendsDrained();

        /** The connection broke (a failed work completion, a protocol violation). */
        void connectionFailed(Throwable cause);

        /** The queue pair went to the error state without an error of its own (a disconnect). */
        void connectionLost();
    }

    /** A received message waiting for the pipeline. */
    private static final class Inbound {
        int type;
        int slot = -1;
        int payloadOffset;
        int length;
        int consumed;
        long token = -1;
    }

    private final Events events;
    private final EventLoop eventLoop;
    private final RdmaDevice device;
    private final CompletionQueue cq;
    private final QueuePairResources resources;
    private final int slots;
    private final int slotSize;
    private final int sendDepth;
    private final int ringSize;
    private final int sendBufferSize;
    private final ByteBuf slotView;
    private final long qp;
    private final int qpNum;
    /** The largest Send posted inline: what the user asked for, as far as the device granted it. */
    private final int maxInline;
    private final WorkRequests sendChain = WorkRequests.sends(CHAIN);
    private final WorkRequests receiveChain = WorkRequests.receives(CHAIN);
    private final SendStaging staging;
    private final long[] stagingMarks;
    /** Per send request: the outbound bytes (since the start) that are delivered once it completes. */
    private final long[] outboundMarks;
    /** Per send request: the buffer it reads in place (zero-copy), released when it completes. */
    private final ByteBuf[] heldBuffers;
    private final FlushedBytes flushed = new FlushedBytes();
    private final ReceiveRing receiveRing;
    private final CreditReturn owed;
    private final MessageHeader header = new MessageHeader();
    private final ArrayDeque<Inbound> inbound = new ArrayDeque<>();
    private final ArrayDeque<Inbound> spareInbound = new ArrayDeque<>();

    /**
     * The accepting side sends its {@code HELLO} in answer to the connecting side's: only then is the
     * connecting side's queue pair sure to be ready to receive (protocol.md, "Connection").
     */
    private final boolean answersHello;
    /** The ring and the send buffer, registered when this side sends its {@code HELLO}; null before. */
    private RegisteredBuffer ring;
    private RegisteredBuffer sendBuffer;
    private ByteBuf sendView;
    /** Made with the ring: every buffer handed up over it gives its region back through it. */
    private RegionByteBuf.Releaser regionReleaser;
    private SendCredits credits;
    private HelloMessage peer;
    /** The largest Send payload to the peer: its slot, as far as this side's send buffer can stage it. */
    private int maxSendPayload;
    /** The largest Write copied into the send buffer: a quarter of the peer's ring, or of the send buffer. */
    private int maxCopiedWrite;
    /** The sequence number of this side's {@code HELLO} once it is posted; -1 before. */
    private long helloSequence = -1;
    private long nextSequence;
    private long completedSequence;
    private final ConnectionCounters counters = new ConnectionCounters();
    /** Completions handled so far: a connection whose count did not move since the last look is idle. */
    private long completions;
    private long completionsAtLastLook;
    /** Slots of the peer's in the receive chain, not posted yet, so not credited yet. */
    private int unpostedReturns;
    /** Payload bytes added to the chain since its last signaled request. */
    private int unsignaledBytes;
    /** Outbound bytes staged and posted, whose work requests have not completed. */
    private long inFlightBytes;
    /** Outbound bytes whose work requests completed (removed from the outbound buffer). */
    private long sentBytes;
    /** Set while completed bytes are being removed from the outbound buffer. */
    private boolean removingSentBytes;
    private boolean closed;

    /**
     * Creates the queue pair on {@code id} with the receive slots, in {@code cq} where
     * {@link #completionQueueEntries} are reserved for it, and posts every receive: all before the
     * connection is established, so no Send from the peer can find no receive. The ring and the send
     * buffer follow with this side's {@code HELLO}.
     */
    RdmaConnection(Events events, EventLoop eventLoop, CompletionQueue cq, long id, RdmaSocketChannelConfig config,
                   boolean accepted) throws IOException {
        this.events = events;
        this.answersHello = accepted;
        this.eventLoop = eventLoop;
        this.cq = cq;
        this.device = cq.device();
        this.slots = config.getReceiveSlots();
        this.slotSize = config.getSlotSize();
        this.sendDepth = sendQueueDepth(config, device);
        this.ringSize = config.getReceiveBufferSize();
        this.sendBufferSize = config.getSendBufferSize();
        resources = QueuePairResources.create(cq, completionQueueEntries(config, device), id, slots, slotSize,
                sendDepth, config.getMaxInlineData(), ringSize, sendBufferSize);
        qp = resources.qp();
        qpNum = resources.qpNum();
        maxInline = resources.maxInline();
        slotView = Unpooled.wrappedBuffer(resources.receiveSlots().buffer());
        staging = new SendStaging(sendBufferSize);
        stagingMarks = new long[sendDepth];
        outboundMarks = new long[sendDepth];
        heldBuffers = new ByteBuf[sendDepth];
        receiveRing = new ReceiveRing(ringSize);
        owed = new CreditReturn(slots, receiveRing);
        cq.addListener(qpNum, this);
        for (int slot = 0; slot < slots; slot++) {
            repost(slot);
        }
        try {
            postReceives();
        } catch (IOException e) {
            close();
            throw e;
        }
    }

    private static int sendQueueDepth(RdmaSocketChannelConfig config, RdmaDevice device) {
        return Math.min(config.getSendQueueDepth(), device.maxQpWr());
    }

    /** Returns the completion queue entries a connection with {@code config} can have in flight. */
    static int completionQueueEntries(RdmaSocketChannelConfig config, RdmaDevice device) {
        return config.getReceiveSlots() + sendQueueDepth(config, device);
    }

    /** Returns the device of the queue pair. */
    RdmaDevice device() {
        return device;
    }

    /** Returns {@code true} once both {@code HELLO}s are out: this side's posted, the peer's received. */
    boolean isReady() {
        return credits != null && helloSent();
    }

    private boolean helloSent() {
        return helloSequence >= 0;
    }

    /** Says how far the {@code HELLO} exchange got: for the message of a connect that timed out. */
    String handshakeState() {
        String own = !helloSent() ? "not sent" : completedSequence > helloSequence ? "delivered"
                : "posted, not acknowledged";
        return "qp " + qpNum + ": this side's HELLO " + own + ", the peer's "
                + (credits != null ? "received" : "not received");
    }

    /** Returns what this connection did so far; with {@code open} false, as a closed channel reports it. */
    RdmaChannelMetrics metrics(boolean open) {
        return new RdmaChannelMetrics(counters, open ? registeredBytes() : 0, open ? maxInline : 0);
    }

    /** Returns the registered bytes this connection holds. */
    long registeredBytes() {
        return resources.registeredBytes();
    }

    /**
     * Sends this side's {@code HELLO}: the connecting side's once established, the accepting side's
     * when the connecting side's arrives. The ring and the send buffer are registered now, and the
     * ring's memory window is bound to this queue pair just before the {@code HELLO} that carries its
     * key.
     */
    void sendHello() throws IOException {
        openBuffers();
        long bindSequence = nextSequence;
        resources.bindRing(bindSequence);
        mark();
        int offset = staging.take(HELLO_SIZE);
        sendView.writerIndex(offset);
        HelloMessage.of(slots, slotSize, ring.size(), ring.address(), resources.ringKey()).encode(sendView);
        long sequence = nextSequence;
        logger.debug("qp {}: posting this side's HELLO", qpNum);
        sendChain.addSend(sequence, WorkRequests.OPCODE_SEND, inlineFlag(HELLO_SIZE),
                sendBuffer.address() + offset, HELLO_SIZE, sendBuffer.lkey(), 0, 0, 0);
        mark();
        post();
        counters.controlMessages++;
        helloSequence = sequence;
        // Our HELLO used one of the peer's slots: counted once the peer's HELLO says how many it gave.
        if (credits != null) {
            events.connectionReady();
        }
    }

    private void openBuffers() throws IOException {
        resources.openBuffers(ringSize, sendBufferSize);
        ring = resources.ring();
        sendBuffer = resources.sendBuffer();
        sendView = Unpooled.wrappedBuffer(sendBuffer.buffer());
        RegisteredBuffer ringMemory = ring;
        regionReleaser = token -> releaseRegion(ringMemory, token);
    }

    /**
     * Stages and posts as much of {@code in} as credits, send space and the send queue allow. Nothing is
     * removed from {@code in} here: the bytes leave it when the work requests carrying them complete
     * ({@link #removeSent}), so a write's promise says the device delivered it.
     */
    void flush(ChannelOutboundBuffer in) throws Exception {
        if (!isReady() || closed || removingSentBytes) {
            return;
        }
        if (inFlightBytes == 0) {
            // Empty writes at the head wait for nothing: complete them now.
            removeSent(in, 0);
            if (closed) {
                return;
            }
        }
        flushed.load(in, inFlightBytes);
        try {
            while (flushed.hasRemaining()) {
                if (outstanding() >= sendDepth) {
                    break;
                }
                if (sendChain.isFull()) {
                    post();
                }
                if (!credits.canSendData()) {
                    counters.creditStalls++;
                    break;
                }
                if (!(stageWrite() || stageSend())) {
                    break;
                }
            }
        } catch (Exception e) {
            // A file region failed: what was staged before it still goes out, then the channel closes.
            try {
                post();
            } catch (IOException postFailure) {
                e.addSuppressed(postFailure);
            }
            throw e;
        } finally {
            flushed.clear();
        }
        post();
        maybeSendCredit();
    }

    /** Takes the messages whose {@code units} completed out of {@code in}; listeners may not flush meanwhile. */
    void removeSent(ChannelOutboundBuffer in, long units) {
        removingSentBytes = true;
        try {
            FlushedBytes.removeCompleted(in, units);
        } finally {
            removingSentBytes = false;
        }
    }

    /** The largest payload of one Write: a quarter of the peer's ring, so returns always unblock it. */
    private int maxWrite() {
        return peer.ringSize() / 4;
    }

    private boolean stageWrite() throws IOException {
        int readable = flushed.currentLength();
        if (peer.ringSize() == 0 || readable <= maxSendPayload) {
            return false;
        }
        int length = Math.min(readable, maxWrite());
        long lkey = credits.canReserveRing(length) ? flushed.currentLkey(device, length) : -1;
        if (lkey != -1) {
            // Registered memory (RdmaByteBufAllocator): the device reads the bytes where they are.
            // The buffer is held until the device has read it, even if the channel closes before.
            long address = flushed.currentAddress();
            heldBuffers[(int) (nextSequence % sendDepth)] = flushed.retainCurrent();
            flushed.skipCurrent(length);
            postWrite(address, length, (int) lkey, false);
            return true;
        }
        length = Math.min(length, maxCopiedWrite);
        if (!credits.canReserveRing(length) || !staging.canTake(length)) {
            return false;
        }
        int offset = staging.take(length);
        // A file region may deliver fewer bytes than its units; the Write carries what was copied.
        int copied = flushed.copyCurrent(sendView, offset, length);
        staging.giveBack(length - copied);
        postWrite(sendBuffer.address() + offset, copied, sendBuffer.lkey(), true);
        return true;
    }

    /**
     * Adds an RDMA Write with immediate of {@code length} bytes into the peer's ring to the chain:
     * bytes {@code copied} into the send buffer, or a registered buffer's, read where they are.
     */
    private void postWrite(long address, int length, int lkey, boolean copied) {
        counters.wrote(length, copied);
        long ringOffset = credits.reserveRing(length);
        inFlightBytes += flushed.takeStagedUnits();
        credits.consumeSlot();
        sendChain.addSend(nextSequence, WorkRequests.OPCODE_RDMA_WRITE_WITH_IMM, 0, address, length, lkey,
                peer.ringAddress() + ringOffset, peer.ringKey(), (int) ringOffset);
        signalIfDue(length);
        mark();
    }

    /** Copies as much of the flushed bytes as fits into one Send. */
    private boolean stageSend() throws IOException {
        int room = maxSendPayload;
        int offset = staging.take(HEADER_SIZE + room);
        if (offset < 0) {
            return false;
        }
        int payload = 0;
        while (flushed.hasRemaining() && payload < room) {
            int readable = flushed.currentLength();
            // A large buffer goes by Write when the ring has room; stop coalescing in front of it.
            if (payload > 0 && readable > room && peer.ringSize() > 0) {
                break;
            }
            int length = Math.min(readable, room - payload);
            payload += flushed.copyCurrent(sendView, offset + HEADER_SIZE + payload, length);
        }
        counters.sent(payload);
        inFlightBytes += flushed.takeStagedUnits();
        staging.giveBack(room - payload);
        sendView.writerIndex(offset);
        MessageHeader.encode(sendView, RdmaProtocol.TYPE_DATA, owed.takeSlots(), owed.takeRingBytes(), payload);
        credits.consumeSlot();
        sendChain.addSend(nextSequence, WorkRequests.OPCODE_SEND, inlineFlag(HEADER_SIZE + payload),
                sendBuffer.address() + offset, HEADER_SIZE + payload, sendBuffer.lkey(), 0, 0, 0);
        signalIfDue(payload);
        mark();
        return true;
    }

    /** Signals the request just added if {@link #SIGNAL_INTERVAL_BYTES} went unsignaled with it. */
    private void signalIfDue(int payload) {
        unsignaledBytes += payload;
        if (unsignaledBytes >= SIGNAL_INTERVAL_BYTES) {
            sendChain.signalLast(true);
            unsignaledBytes = 0;
        }
    }

    /**
     * Posts a message without payload ({@code CREDIT}, {@code SHUTDOWN_OUTPUT}, {@code CLOSE}) if a
     * slot, send space and a send queue entry are free.
     *
     * @return {@code true} if it was posted
     */
    boolean sendControl(int type) throws IOException {
        if (!isReady() || closed || !credits.canSendControl() || outstanding() >= sendDepth) {
            return false;
        }
        int offset = staging.take(HEADER_SIZE);
        if (offset < 0) {
            return false;
        }
        sendView.writerIndex(offset);
        MessageHeader.encode(sendView, type, owed.takeSlots(), owed.takeRingBytes(), 0);
        credits.consumeSlot();
        sendChain.addSend(nextSequence, WorkRequests.OPCODE_SEND, inlineFlag(HEADER_SIZE),
                sendBuffer.address() + offset, HEADER_SIZE, sendBuffer.lkey(), 0, 0, 0);
        mark();
        post();
        counters.controlMessages++;
        return true;
    }

    /**
     * Probes the peer if nothing completed since the last call (SO_KEEPALIVE): an RDMA Write of no
     * bytes, which the peer's device acknowledges without a completion or a receive there. A peer
     * that is gone never acknowledges it, and the queue pair's retries end in a failed completion.
     * A peer without a ring (allowed by the protocol) gets a {@code CREDIT} message instead.
     *
     * @return {@code true} if a probe was posted
     */
    boolean probeIfIdle() throws IOException {
        boolean idle = completions == completionsAtLastLook;
        completionsAtLastLook = completions;
        if (!idle || !isReady() || closed || hasOutstandingSends()) {
            return false;
        }
        if (peer.ringSize() == 0) {
            if (!sendControl(RdmaProtocol.TYPE_CREDIT)) {
                return false;
            }
        } else {
            sendChain.addSend(nextSequence, WorkRequests.OPCODE_RDMA_WRITE, 0, sendBuffer.address(), 0,
                    sendBuffer.lkey(), peer.ringAddress(), peer.ringKey(), 0);
            mark();
            post();
        }
        // The probe's own completion is no sign of the peer's activity.
        completionsAtLastLook = completions + 1;
        counters.keepAliveProbes++;
        return true;
    }

    private void maybeSendCredit() throws IOException {
        if (isReady() && owed.creditMessageDue()) {
            sendControl(RdmaProtocol.TYPE_CREDIT);
        }
    }

    /**
     * Returns the flags for a Send of {@code length} bytes: inline when the queue pair takes it. The
     * staged bytes stay reserved until the request completes all the same; only the device's read of
     * them is saved.
     */
    private int inlineFlag(int length) {
        return length <= maxInline ? WorkRequests.FLAG_INLINE : 0;
    }

    /** Records where the send buffer and the outbound bytes stand after the request just added. */
    private void mark() {
        int index = (int) (nextSequence % sendDepth);
        stagingMarks[index] = staging.mark();
        outboundMarks[index] = sentBytes + inFlightBytes;
        nextSequence++;
    }

    /**
     * Posts the chain. Its last request is signaled, and so is one every {@link #SIGNAL_INTERVAL_BYTES}
     * before it; a completion covers every request up to its own.
     */
    private void post() throws IOException {
        if (sendChain.count() == 0) {
            return;
        }
        sendChain.signalLast(true);
        unsignaledBytes = 0;
        sendChain.post(qp);
    }

    private int outstanding() {
        return (int) (nextSequence - completedSequence);
    }

    /** Returns {@code true} while posted sends have not completed. */
    boolean hasOutstandingSends() {
        return nextSequence != completedSequence;
    }

    @Override
    public void onCompletion(long wrId, int status, int opcode, int byteLength, int immediate) {
        if (closed) {
            return;
        }
        if (status == WorkCompletionStatus.WR_FLUSH_ERR) {
            // The QP went to the error state: the peer disconnected (or this side did). Every posted
            // request comes back flushed; the CM's DISCONNECTED event says why, so nothing to report.
            // A flushed send is done with (its bytes are not delivered), so a closing channel need
            // not wait out its linger for it.
            boolean sendFlushed = (wrId & RECEIVE_TAG) == 0 && wrId >= completedSequence;
            if (sendFlushed) {
                releaseHeld(completedSequence, wrId + 1);
                completedSequence = wrId + 1;
            }
            events.connectionLost();
            if (sendFlushed && !closed && !hasOutstandingSends()) {
                events.sendsDrained();
            }
            return;
        }
        if (status != WorkCompletionStatus.SUCCESS) {
            events.connectionFailed(new IOException("work completion failed on " + device + ": "
                    + WorkCompletionStatus.describe(status) + "; the queue pair is now in the error state"));
            return;
        }
        completions++;
        try {
            if ((wrId & RECEIVE_TAG) != 0) {
                onReceive((int) (wrId & ~RECEIVE_TAG), opcode, byteLength, immediate);
            } else {
                releaseHeld(completedSequence, wrId + 1);
                completedSequence = wrId + 1;
                int index = (int) (wrId % sendDepth);
                staging.returnTo(stagingMarks[index]);
                int sent = (int) (outboundMarks[index] - sentBytes);
                if (sent > 0) {
                    // Removing the messages completes promises, whose listeners may write and flush.
                    // Until the removal is done the outbound buffer and the in-flight count disagree,
                    // so a flush then would send bytes twice or skip some: it waits for
                    // writeSpaceAvailable below.
                    ChannelOutboundBuffer in = events.outboundBuffer();
                    try {
                        if (in != null) {
                            removeSent(in, sent);
                        }
                    } finally {
                        sentBytes += sent;
                        inFlightBytes -= sent;
                    }
                }
                events.writeSpaceAvailable();
                if (!hasOutstandingSends()) {
                    events.sendsDrained();
                }
            }
        } catch (Exception e) {
            events.connectionFailed(e);
        }
    }

    /** Releases the buffers held by the send requests {@code from} (inclusive) to {@code to}. */
    private void releaseHeld(long from, long to) {
        for (long sequence = from; sequence < to; sequence++) {
            int index = (int) (sequence % sendDepth);
            ByteBuf held = heldBuffers[index];
            if (held != null) {
                heldBuffers[index] = null;
                held.release();
            }
        }
    }

    private void onReceive(int slot, int opcode, int byteLength, int immediate) throws IOException {
        if (slot < 0 || slot >= slots) {
            throw new IllegalStateException("receive completion for unknown slot " + slot);
        }
        owed.onPeerUsedSlot();
        if (opcode == WC_RECV_RDMA_WITH_IMM) {
            if (credits == null) {
                throw new RdmaProtocolException("RDMA Write before HELLO");
            }
            long token = receiveRing.accept(immediate, byteLength);
            counters.receivedWrite(byteLength);
            // The Write consumed a receive but left its slot untouched: post it again at once.
            returnSlot(slot);
            postReceives();
            Inbound message = newInbound();
            message.type = RdmaProtocol.TYPE_DATA;
            message.payloadOffset = immediate;
            message.length = byteLength;
            message.token = token;
            inbound.add(message);
            events.inboundAvailable();
            return;
        }
        if (opcode != WC_RECV) {
            throw new IllegalStateException("unexpected receive opcode " + opcode);
        }
        int base = slot * slotSize;
        if (credits == null) {
            peer = HelloMessage.decode(slotView, base, byteLength);
            logger.debug("qp {}: the peer's HELLO arrived", qpNum);
            credits = new SendCredits(peer.slots(), peer.ringSize());
            credits.consumeSlot(); // our own HELLO
            // A Send or a copied Write must fit the send buffer with room for others in flight,
            // whatever slot or ring the peer announces.
            maxSendPayload = Math.min(peer.slotSize(), sendBufferSize / 4) - HEADER_SIZE;
            maxCopiedWrite = Math.min(maxWrite(), sendBufferSize / 4);
            returnSlot(slot);
            postReceives();
            if (helloSent()) {
                events.connectionReady();
            } else if (answersHello) {
                sendHello();
            }
            return;
        }
        header.decode(slotView, base, byteLength);
        credits.onReturned(header.returnedSlots(), header.returnedRingBytes());
        if (header.type() == RdmaProtocol.TYPE_CREDIT) {
            returnSlot(slot);
            postReceives();
        } else {
            if (header.type() == RdmaProtocol.TYPE_DATA) {
                counters.receivedSend(header.payloadLength());
            }
            Inbound message = newInbound();
            message.type = header.type();
            message.slot = slot;
            message.payloadOffset = base + HEADER_SIZE;
            message.length = header.payloadLength();
            inbound.add(message);
            events.inboundAvailable();
        }
        if (header.returnedSlots() > 0 || header.returnedRingBytes() > 0) {
            events.writeSpaceAvailable();
        }
    }

    private Inbound newInbound() {
        Inbound message = spareInbound.poll();
        if (message == null) {
            return new Inbound();
        }
        message.slot = -1;
        message.token = -1;
        message.consumed = 0;
        return message;
    }

    /** Returns {@code true} if messages wait to be read. */
    boolean hasInbound() {
        return !inbound.isEmpty();
    }

    /** Returns {@code true} if the next message is the peer's {@code SHUTDOWN_OUTPUT} or {@code CLOSE}. */
    boolean endOfInputIsNext() {
        Inbound message = inbound.peek();
        return message != null && message.type != RdmaProtocol.TYPE_DATA;
    }

    /**
     * Takes the next piece of received data, at most {@code handle.guess()} bytes as a stream
     * transport reads (a piece of a ring region is handed up where it landed, in a recycled buffer that
     * holds the region until released; a Send's payload is copied into a buffer
     * from {@code handle}, and its slot is posted again once all of it was read), or an
     * {@code Integer} with the type of a {@code SHUTDOWN_OUTPUT} or {@code CLOSE}, or {@code null}.
     */
    Object readInbound(RecvByteBufAllocator.Handle handle, ByteBufAllocator alloc) {
        Inbound message = inbound.peek();
        if (message == null) {
            return null;
        }
        if (message.type != RdmaProtocol.TYPE_DATA) {
            inbound.poll();
            returnSlot(message.slot);
            spareInbound.add(message);
            return message.type;
        }
        int remaining = message.length - message.consumed;
        ByteBuf piece;
        if (message.token >= 0) {
            int length = Math.min(remaining, Math.max(1, handle.guess()));
            receiveRing.retain(message.token);
            ring.retainMemory();
            piece = RdmaByteBufAllocator.trackLeaks(RegionByteBuf.ofRegion(alloc, ring.buffer(),
                    message.payloadOffset + message.consumed, length, regionReleaser, message.token));
            message.consumed += length;
            handle.attemptedBytesRead(length);
        } else {
            piece = handle.allocate(alloc);
            int length = Math.min(remaining, piece.writableBytes());
            handle.attemptedBytesRead(piece.writableBytes());
            // Copied by the slot's buffer: with memory addresses on both sides that is one memory copy
            // and no garbage, where piece.writeBytes(slotView, ...) may make ByteBuffer views.
            slotView.getBytes(message.payloadOffset + message.consumed, piece, piece.writerIndex(), length);
            piece.writerIndex(piece.writerIndex() + length);
            message.consumed += length;
        }
        if (message.consumed == message.length) {
            inbound.poll();
            if (message.token >= 0) {
                // The queue's own hold: the region returns once the pieces handed up are released too.
                // Credits go out in readComplete, after this read.
                owed.ringFreed(receiveRing.release(message.token));
            } else {
                returnSlot(message.slot);
            }
            spareInbound.add(message);
        }
        return piece;
    }

    /** Posts the receives reposted by {@link #readInbound}, and returns credits if that is due. */
    void readComplete() throws IOException {
        postReceives();
        maybeSendCredit();
    }

    /**
     * Gives a ring region back, from any thread (the pipeline may release on another one): its memory
     * at once, its space to the peer on the loop.
     */
    private void releaseRegion(RegisteredBuffer ringMemory, long token) {
        ringMemory.releaseMemory();
        if (eventLoop.inEventLoop()) {
            releaseRegion0(token);
        } else {
            try {
                eventLoop.execute(() -> releaseRegion0(token));
            } catch (RejectedExecutionException e) {
                // The loop is gone, and the connection with it: no peer is owed the space any more.
            }
        }
    }

    private void releaseRegion0(long token) {
        if (closed) {
            return;
        }
        owed.ringFreed(receiveRing.release(token));
        try {
            maybeSendCredit();
        } catch (IOException e) {
            events.connectionFailed(e);
        }
    }

    /**
     * Reposts a slot the peer used, to be credited to the peer once it is posted: a credit lets the peer
     * Send at once, and a Send that finds no receive posted waits for the queue pair's RNR retry. A
     * handler that writes while it reads would otherwise carry the credit out before the post.
     */
    private void returnSlot(int slot) {
        repost(slot);
        unpostedReturns++;
    }

    private void repost(int slot) {
        if (receiveChain.isFull()) {
            try {
                postReceives();
            } catch (IOException e) {
                events.connectionFailed(e);
                return;
            }
        }
        RegisteredBuffer receiveSlots = resources.receiveSlots();
        receiveChain.addReceive(RECEIVE_TAG | slot, receiveSlots.address() + (long) slot * slotSize, slotSize,
                receiveSlots.lkey());
    }

    private void postReceives() throws IOException {
        receiveChain.post(qp);
        owed.slotsReposted(unpostedReturns);
        unpostedReturns = 0;
    }

    /** Starts an orderly disconnect: the peer gets {@code DISCONNECTED}; posted requests are flushed. */
    void disconnect() {
        resources.disconnect();
    }

    /**
     * Frees the queue pair, the memory window and the registered memory. Regions handed up the
     * pipeline stay readable until released; the peer has no access any more.
     */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        cq.removeListener(qpNum);
        resources.close();
        // The device reads nothing any more: buffers sent in place can go back to their pool.
        releaseHeld(completedSequence, nextSequence);
        // Ring regions need no release: the book is gone, and pieces handed up hold the memory.
        inbound.clear();
    }
}
