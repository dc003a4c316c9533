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

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.Set;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.EventLoop;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.internal.CompletionQueue;
import org.nettyrdma.channel.rdma.internal.MessageHeader;
import org.nettyrdma.channel.rdma.internal.ProtectionDomain;
import org.nettyrdma.channel.rdma.internal.RdmaDevice;
import org.nettyrdma.channel.rdma.internal.RdmaProtocol;
import org.nettyrdma.channel.rdma.internal.RegisteredBlocks;
import org.nettyrdma.channel.rdma.internal.RegisteredBuffer;
import org.nettyrdma.channel.rdma.internal.RegisteredMemoryBudget;
import org.nettyrdma.channel.rdma.internal.SendBlocks;
import org.nettyrdma.channel.rdma.internal.SharedReceiveQueue;
import org.nettyrdma.channel.rdma.internal.WorkCompletionStatus;

/**
 * One connection of a {@link RdmaSocketChannel} (docs/protocol.md): makes its parts, sorts the queue
 * pair's work completions between them, and tells the channel what happened ({@link Events}). The
 * parts are the {@link QueuePairResources} (the verbs objects and their frees), the
 * {@link RdmaSender} (flushed bytes into work requests, within the peer's credits), the
 * {@link RdmaReceiver} (slots, ring, the inbound queue, the credits owed to the peer) and the
 * {@link KeepAlive}'s idle check. The {@code HELLO} exchange that joins sender and receiver happens
 * here.
 *
 * <p>Used on the channel's event loop only, except the release of ring regions handed up
 * ({@link RdmaReceiver}).
 */
final class RdmaConnection {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RdmaConnection.class);

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

        /**
         * Asks whether the connection may hold {@code bytes} more registered memory; if so they count
         * as held from now on ({@link #heldLess} gives them back).
         */
        boolean mayHoldMore(long bytes);

        /** The connection holds {@code bytes} less registered memory than it told. */
        void heldLess(long bytes);
    }

    private final Events events;
    private final RdmaDevice device;
    private final QueuePairResources resources;
    private final int qpNum;
    private final ConnectionCounters counters = new ConnectionCounters();
    private final KeepAlive keepAlive = new KeepAlive();
    private final RdmaReceiver receiver;
    private final RdmaSender sender;
    private final RingOwner rings;
    private final HelloExchange hello;
    private final SendTimers timers;
    private final OwedEndOfStream endOfStream = new OwedEndOfStream(this::sendControl);
    /** The connection's own protection domain, to expose memory in; {@code null} in the device's shared one. */
    private final ProtectionDomain ownPd;
    private final OneSidedRequests oneSided;
    private final Set<ExposedRegion> exposures = new LinkedHashSet<>();
    /** The queue pair was moved to the error state ({@link #disconnect()}). */
    private boolean disconnected;
    /** The connection failed and was stopped: nothing the peer sends is taken any more ({@link #abort()}). */
    private boolean aborted;
    private boolean closed;

    /**
     * Creates the queue pair on {@code id}, in {@code cq} where {@link #completionQueueEntries} are
     * reserved for it and on the shared receive queue {@code srq}, and reserves the peer's first
     * slots there: all before the connection is established, so no Send from the peer can find no
     * receive. A ring opens only when the peer asks for one. All or nothing: if any step fails,
     * everything made before it is freed and the reservations are returned.
     */
    RdmaConnection(Events events, EventLoop eventLoop, CompletionQueue cq, SharedReceiveQueue srq, long id,
                   RdmaSocketChannelConfig config, boolean accepted, ProtectionDomain ownPd) throws IOException {
        this.events = events;
        this.ownPd = ownPd;
        this.device = cq.device();
        int slots = config.getReceiveSlots();
        // The largest ring this side opens to its peer on request. None where a window would not
        // confine the peer: then it may write nowhere (RingPolicy).
        int maxRingSize = ownPd != null ? 0 : maxRingSize(config, device);
        int sendBufferSize = config.getSendBufferSize();
        int sendDepth = sendQueueDepth(config, device);
        // From here the connection owns the CQ reservation and the receive queue: close() gives them back.
        resources = new QueuePairResources(cq, completionQueueEntries(config, device), id, srq);
        boolean created = false;
        try {
            // A connection the limit cannot hold is refused now, with the reason, rather than after the
            // peer's HELLO: what its first share adds to its receive queue, and room for one staging
            // block beside it, without which it could receive but never send a message above the inline
            // limit, and its peer would wait for an answer that cannot come. A peer that never speaks
            // holds one slot until then, no more; a ring comes only when the peer asks, within the limit.
            long atStart = srq.registrationNeeded(Math.min(RdmaReceiver.INITIAL_SHARE, slots)) + SendBlocks.BLOCK_SIZE;
            if (!RegisteredMemoryBudget.hasRoom(atStart)) {
                throw RegisteredMemoryBudget.refusal("a connection", atStart);
            }
            resources.open(sendDepth, config.getMaxInlineData());
            qpNum = resources.qpNum();
            PartsListener listener = new PartsListener();
            timers = new SendTimers(eventLoop, config, listener);
            receiver = new RdmaReceiver(listener, eventLoop, resources, slots, maxRingSize,
                    config.isReceiveInPlace(), accepted, counters);
            // A connection in a domain of its own stages in blocks registered there: the pool's keys are
            // the shared domain's.
            SendBlocks.Source staging = ownPd != null
                    ? new RegisteredBlocks(device, ownPd, 0, "a staging block of a connection exposing memory")
                    : RdmaByteBufAllocator.stagingBlocks(device);
            sender = new RdmaSender(device, resources.qp(), resources.maxInline(), resources.controlInline(),
                    sendDepth, sendBufferSize, receiver.owed(), counters, staging);
            oneSided = new OneSidedRequests(sender, new SendBlocks(new RegisteredBlocks(device, ownPd,
                    RegisteredBuffer.LOCAL_WRITE, "RDMA Read and atomic results"), sendBufferSize));
            rings = new RingOwner(listener, resources, sender, receiver, eventLoop,
                    config.getRingIdleMillis());
            hello = new HelloExchange(sender, receiver,
                    accepted ? HelloExchange.Turn.ANSWERS : HelloExchange.Turn.SPEAKS_FIRST, config.getSlotSize(), qpNum);
            cq.claim(id, sender.chain());
            cq.attach(srq, id, qpNum);
            receiver.reserveForHello();
            created = true;
        } finally {
            if (!created) {
                close();
            }
        }
    }

    private static int sendQueueDepth(RdmaSocketChannelConfig config, RdmaDevice device) {
        return Math.min(config.getSendQueueDepth(), device.maxQpWr());
    }

    /**
     * Returns the registered bytes a connection with {@code config} holds once both {@code HELLO}s are
     * out, idle, before its peer's share grows: its first slots of the shared receive queue. Growth
     * and rings ask again ({@link Events#mayHoldMore}); staging blocks come from the allocator's pool
     * while sends are in flight, at most {@code SO_SNDBUF}.
     */
    static long registeredBytesAtStart(RdmaSocketChannelConfig config) {
        int slots = Math.min(RdmaReceiver.INITIAL_SHARE, config.getReceiveSlots());
        // A queue of its own registers whole regions: its first is the first share.
        return QueuePairResources.registeredBytes(hasOwnReceiveQueue(config)
                ? Math.max(slots, SharedReceiveQueue.ownRegionSlots(config.getReceiveSlots())) : slots,
                config.getSlotSize(), 0, 0);
    }

    /**
     * Returns the largest ring a connection with {@code config} opens on {@code device} when its peer
     * asks: {@code SO_RCVBUF}, or none where a window would not confine the peer ({@link RingPolicy}).
     */
    private static int maxRingSize(RdmaSocketChannelConfig config, RdmaDevice device) {
        return RingPolicy.opensRing(device) ? config.getReceiveBufferSize() : 0;
    }

    /**
     * Returns the entries a connection with {@code config} reserves in its completion queue: its send
     * depth, and its largest share of receives, which complete there too. On a receive queue of its
     * own that is every receive the queue can hold posted, so its completions fit whatever its peer
     * sends; on the loop's shared queue, only while its peer keeps to its credit
     * (docs/decisions.md#completion-queue-bound).
     */
    static int completionQueueEntries(RdmaSocketChannelConfig config, RdmaDevice device) {
        return sendQueueDepth(config, device) + SharedReceiveQueue.ownCapacity(config.getReceiveSlots());
    }

    /**
     * Returns {@code true} if a connection with {@code config} has a receive queue of its own: unless
     * it asked for its loop's shared one, and has no protection domain of its own.
     */
    static boolean hasOwnReceiveQueue(RdmaSocketChannelConfig config) {
        return !config.isSharedReceiveQueue() || config.isExposeMemory();
    }

    /** Returns {@code true} if the queue pair's sends or receives complete into {@code queue}. */
    boolean completesInto(CompletionQueue queue) {
        return resources.completesInto(queue);
    }

    /** Returns the device of the queue pair. */
    RdmaDevice device() {
        return device;
    }

    /** Returns {@code true} once both {@code HELLO}s are out: this side's posted, the peer's received. */
    boolean isReady() {
        return hello.isDone();
    }

    /** Says how far the {@code HELLO} exchange got: for the message of a connect that timed out. */
    String handshakeState() {
        return hello.describe();
    }

    /** Returns the connection's {@code ibv_qp*}, for tests that ask the device what it made of an option. */
    long queuePair() {
        return resources.qp();
    }

    /** Returns what this connection did so far; with {@code open} false, as a closed channel reports it. */
    RdmaChannelMetrics metrics(boolean open) {
        return new RdmaChannelMetrics(counters, open ? registeredBytes() : 0,
                open && sender != null ? sender.stagingBytes() : 0, open ? resources.maxInline() : 0);
    }

    /**
     * Returns the registered bytes this connection holds now: its ring if one is open, its share of
     * the shared receive slots, and the staging blocks of its sends in flight with the spares it keeps
     * for one to two seconds after its last send.
     */
    long registeredBytes() {
        return admittedBytes() + (sender != null ? sender.stagingBytes() : 0);
    }

    /**
     * Returns what the connection holds that its source address's cap counts: its ring if one is open
     * and its share of the shared receive slots, not the staging blocks, which it holds only while it
     * sends.
     */
    long admittedBytes() {
        return receiver != null ? receiver.registeredBytes() : 0;
    }

    /**
     * Sends this side's {@code HELLO}: the connecting side's once established, the accepting side's
     * when the connecting side's arrives. It grants the peer's first share of slots and offers rings
     * of up to {@code SO_RCVBUF}, none of which is open yet.
     */
    void sendHello() throws IOException {
        if (hello.sendHello()) {
            events.connectionReady();
        }
    }

    /**
     * Stages and posts as much of {@code in} as credits, send space and the send queue allow
     * ({@link RdmaSender#flush}), and returns credits to the peer if that is due.
     */
    void flush(ChannelOutboundBuffer in) throws Exception {
        if (!isReady() || closed) {
            return;
        }
        if (sender.flush(in)) {
            if (sender.stalledOnCredit()) {
                timers.creditStalled();
            } else {
                timers.creditEnded();
            }
            maybeSendCredit();
            retryIfWaitingForBlock();
        }
    }

    /**
     * Makes sure the sender asks the pool again if its sends wait for a staging block and nothing in
     * flight will complete to trigger a flush: the writes stay in the outbound buffer meanwhile, and
     * the channel turns unwritable above its high water mark, as when the peer is slow.
     */
    private void retryIfWaitingForBlock() {
        if (!closed && sender.waitingForBlock() && !hasOutstandingSends()) {
            timers.retryBlock();
        }
    }

    /**
     * Posts a message without payload ({@code CREDIT}, {@code SHUTDOWN_OUTPUT}, {@code CLOSE}) if a
     * slot, send space and a send queue entry are free.
     *
     * @return {@code true} if it was posted
     */
    boolean sendControl(int type) throws IOException {
        if (!isReady() || closed) {
            return false;
        }
        if (sender.sendControl(type)) {
            return true;
        }
        retryIfWaitingForBlock();
        return false;
    }

    /**
     * Posts {@code SHUTDOWN_OUTPUT} or {@code CLOSE} after everything posted so far: now, or, if every
     * slot this side was granted is in the peer's hands, as soon as the peer returns one. The peer
     * returns a lone slot at once to a side that has none left (docs/protocol.md, "Returning
     * credits"), so the wait is short unless the queue pair fails, which the drain's bound covers.
     */
    void sendEndOfStream(int type) throws IOException {
        endOfStream.send(type);
    }

    /** Returns {@code true} while a {@code SHUTDOWN_OUTPUT} or {@code CLOSE} waits for a slot at the peer. */
    boolean endOfStreamOwed() {
        return endOfStream.isOwed();
    }

    /**
     * Probes the peer if nothing completed since the last call (SO_KEEPALIVE), with
     * {@link RdmaSender#probe()}.
     *
     * @return {@code true} if a probe was posted
     */
    boolean probeIfIdle() throws IOException {
        boolean idle = keepAlive.idleSinceLastLook();
        if (!idle || !isReady() || closed || hasOutstandingSends() || !sender.probe()) {
            return false;
        }
        keepAlive.probed();
        counters.keepAliveProbes++;
        return true;
    }

    private void maybeSendCredit() throws IOException {
        if (endOfStreamOwed()) {
            // What is owed rides in its header.
            endOfStream.postOwed();
            return;
        }
        if (!isReady() || closed) {
            return;
        }
        serveRings();
        if (receiver.owed().creditMessageDue()) {
            sendControl(RdmaProtocol.TYPE_CREDIT);
        }
    }

    /**
     * Does the rings' work that waited: opens a ring the peer asked for and posts the {@code RING}
     * owed ({@link RingOwner}), and the {@code RING_RELEASED} and {@code RING_REQUEST} this side owes
     * as a writer, as far as slots allow (docs/protocol.md, "Rings").
     */
    private void serveRings() throws IOException {
        rings.serve();
        if (sender.ringMessagesOwed()) {
            sender.sendOwedRingMessages();
        }
    }

    /**
     * Takes a {@code RING_REQUEST}, {@code RING} or {@code RING_RELEASED}; the credits its header
     * returned are taken already.
     */
    private void onRingMessage(Received received) throws IOException {
        int type = received.header().type();
        if (type == RdmaProtocol.TYPE_RING) {
            // The ring the peer opened to this side, or closed: this side's writes go accordingly.
            sender.onRing(received.ringMessage());
            events.writeSpaceAvailable();
        } else if (type == RdmaProtocol.TYPE_RING_REQUEST) {
            rings.onRequest(received.ringGeneration());
        } else {
            rings.onReleased(received.ringGeneration());
        }
    }

    /** Returns {@code true} while posted sends have not completed. */
    boolean hasOutstandingSends() {
        return sender.outstanding() != 0;
    }

    /**
     * Returns the work requests posted whose completion has not arrived (an unsignaled send is done
     * when a later one completes), and one for a {@code SHUTDOWN_OUTPUT} or {@code CLOSE} still to be
     * posted: until it is, the channel's registration must stay to hear the peer return a slot. Once
     * the queue pair is in the error state every request completes with a flush error and nothing is
     * owed any more; completions that arrive after {@link #close()} are still counted.
     */
    int outstandingWorkRequests() {
        return sender.outstanding() + (endOfStreamOwed() ? 1 : 0);
    }

    /** Says which work requests are outstanding, for the log of a drain that did not end. */
    String describeOutstanding() {
        return sender.outstanding() + " sends";
    }

    /**
     * Handles one work completion of this connection's queue pair, on its event loop. For an error
     * completion only {@code wrId}, {@code status} and {@code opcode} are meaningful ({@code opcode}
     * is not, for flushed receives); {@code flags} are the completion's {@code wc_flags}
     * ({@code RdmaNative.WC_WITH_INV}).
     */
    void onCompletion(long wrId, int status, int opcode, int byteLength, int immediate, int flags) {
        boolean receive = RdmaReceiver.isReceive(wrId);
        if (receive && (closed || aborted || status != WorkCompletionStatus.SUCCESS)) {
            // A shared slot that nobody takes goes back to the queue. After an abort, what the peer
            // got in before its queue pair left the ready state is not looked at: no exception is
            // made, no credit counted, per message of a peer that floods.
            receiver.discard(wrId);
            if (aborted && status == WorkCompletionStatus.SUCCESS) {
                counters.refusedReceives++;
                return;
            }
        }
        if (status == WorkCompletionStatus.WR_FLUSH_ERR) {
            // The QP went to the error state: the peer disconnected (or this side did). Every posted
            // request comes back flushed; the CM's DISCONNECTED event says why, so nothing to report.
            // A flushed send is done with (its bytes are not delivered), so a closing channel's
            // drain does not wait for it.
            boolean sendFlushed = !receive && sender.failed(wrId);
            if (!receive) {
                oneSided.failed(wrId, status);
            }
            if (closed) {
                return;
            }
            events.connectionLost();
            if (sendFlushed && !closed && !hasOutstandingSends()) {
                events.sendsDrained();
            }
            return;
        }
        if (status != WorkCompletionStatus.SUCCESS) {
            if (!receive) {
                sender.failed(wrId);
                oneSided.failed(wrId, status);
            }
            if (!closed) {
                events.connectionFailed(receive ? receiveFailure(status) : sendFailure(status));
            }
            return;
        }
        if (closed) {
            if (!receive) {
                oneSided.completed(wrId);
                sender.completed(wrId, null);
            }
            return;
        }
        keepAlive.completed();
        try {
            if (receive) {
                onReceive(wrId, opcode, byteLength, immediate, flags);
            } else {
                // Read data and atomic results are taken out of their landing blocks first.
                oneSided.completed(wrId);
                sender.completed(wrId, events.outboundBuffer());
                oneSided.postWaiting();
                if (sender.holdsIdleStaging() || oneSided.holdsIdleLanding()) {
                    timers.trimStaging();
                }
                if (endOfStreamOwed()) {
                    endOfStream.postOwed();
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

    /** Returns the exception a send, a Write or a bind that failed closes the connection with. */
    private IOException sendFailure(int status) {
        return new IOException("work completion failed on " + device + ": " + WorkCompletionStatus.describe(status)
                + "; the queue pair is now in the error state");
    }

    /**
     * Returns the exception a receive that failed closes the connection with: a failed receive is the
     * peer's doing, since this side posts only receives into its own slots.
     */
    private IOException receiveFailure(int status) {
        String suffix = " (" + WorkCompletionStatus.name(status) + " on " + device
                + "); the queue pair is now in the error state";
        if (status == WorkCompletionStatus.REM_INV_REQ_ERR) {
            return new RdmaProtocolException("the peer sent a request this side's device refused as invalid: a Send "
                    + "with Invalidate, which the protocol never uses, or another operation it does not allow"
                    + suffix);
        }
        if (status == WorkCompletionStatus.LOC_LEN_ERR) {
            return new RdmaProtocolException("the peer sent a message larger than a receive slot" + suffix);
        }
        return new IOException("a receive failed on " + device + ": " + WorkCompletionStatus.describe(status)
                + "; the queue pair is now in the error state");
    }

    private void onReceive(long wrId, int opcode, int byteLength, int immediate, int flags) throws IOException {
        Received received = receiver.onReceive(wrId, opcode, byteLength, immediate, flags);
        if (received.kind() == Received.Kind.HELLO) {
            if (hello.peerHello(received.peerHello())) {
                events.connectionReady();
            }
            return;
        }
        if (received.kind() == Received.Kind.WRITE) {
            events.inboundAvailable();
            maybeSendCredit();
            return;
        }
        MessageHeader header = received.header();
        sender.creditsReturned(header.returnedSlots(), header.returnedRingBytes());
        if (header.returnedSlots() > 0) {
            timers.creditEnded();
            if (endOfStreamOwed()) {
                endOfStream.postOwed();
            }
        }
        if (received.kind() == Received.Kind.SEND) {
            events.inboundAvailable();
        } else if (received.kind() == Received.Kind.RING_MESSAGE) {
            onRingMessage(received);
        }
        if (header.returnedSlots() > 0 || header.returnedRingBytes() > 0) {
            events.writeSpaceAvailable();
        }
        // The peer's share may have grown with this message: it learns so whether or not the
        // pipeline reads now.
        maybeSendCredit();
    }

    /** Returns {@code true} if messages wait to be read. */
    boolean hasInbound() {
        return receiver.hasInbound();
    }

    /** Returns {@code true} if the next message is the peer's {@code SHUTDOWN_OUTPUT} or {@code CLOSE}. */
    boolean endOfInputIsNext() {
        return receiver.endOfInputIsNext();
    }

    /** Takes the next piece of received data, which is next ({@link RdmaReceiver#readInbound}). */
    ByteBuf readInbound(RecvByteBufAllocator.Handle handle, ByteBufAllocator alloc) {
        return receiver.readInbound(handle, alloc);
    }

    /** Takes the peer's {@code SHUTDOWN_OUTPUT} or {@code CLOSE}, which is next ({@link #endOfInputIsNext()}). */
    EndOfInput takeEndOfInput() {
        return receiver.takeEndOfInput();
    }

    /** Posts the receives reposted by {@link #readInbound}, and returns credits if that is due. */
    void readComplete() throws IOException {
        receiver.postReceives();
        maybeSendCredit();
    }

    /**
     * Stops the connection at once because it failed (the peer broke the protocol or sent a verb
     * outside it, a work request failed, credit never came): the queue pair goes to the error state
     * now, so the peer's Sends take no further receive of the shared queue, and receives it got in
     * before are given back untaken. Nothing is owed to the peer any more, no {@code CLOSE} included.
     */
    void abort() {
        aborted = true;
        disconnect();
    }

    /** Returns {@code true} once the connection failed and was stopped ({@link #abort()}). */
    boolean isAborted() {
        return aborted;
    }

    /**
     * Moves the queue pair to the error state, where every posted request comes back flushed, and
     * starts an orderly disconnect: the peer gets {@code DISCONNECTED}. Once only.
     */
    void disconnect() {
        if (disconnected) {
            return;
        }
        disconnected = true;
        // Nothing more will be posted: what waited for a slot is not owed any more.
        endOfStream.forget();
        receiver.stopPosting();
        resources.disconnect();
        // Receives come from a shared receive queue (the connection's own or the loop's), which the
        // error state does not flush: a Send of no
        // bytes, flushed at once, comes back after every completion this queue pair had made
        // (docs/decisions.md#disconnect-by-flush). Sends already posted do the same.
        if (!hasOutstandingSends()) {
            try {
                sender.postFlushMarker();
            } catch (IOException e) {
                logger.debug("qp {}: posting the flush marker failed", qpNum, e);
            }
        }
    }

    /**
     * Frees the queue pair, the memory window and the registered memory. Regions handed up the
     * pipeline stay readable until released; the peer has no access any more. Safe on a connection
     * whose constructor failed part way.
     */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (timers != null) {
            timers.cancel();
        }
        if (rings != null) {
            rings.stop();
        }
        try {
            resources.close();
        } finally {
            // The device reads nothing any more: buffers sent in place and the staging blocks can go
            // back to their pool.
            if (sender != null) {
                sender.close();
            }
            if (receiver != null) {
                receiver.close();
            }
            if (oneSided != null) {
                oneSided.close();
            }
            for (ExposedRegion exposed : new ArrayList<>(exposures)) {
                exposed.revokeNow();
            }
            if (ownPd != null) {
                // Freed once the receive queue and the staging blocks in it are gone too.
                ownPd.release();
            }
        }
    }

    /** Returns the connection's own protection domain, or {@code null} if it is in the device's shared one. */
    ProtectionDomain ownProtectionDomain() {
        return ownPd;
    }

    /** Returns the connection's one-sided requests. */
    OneSidedRequests oneSided() {
        return oneSided;
    }

    /** Posts the one-sided requests that wait, as far as the send queue allows. */
    void postOneSided() {
        if (closed) {
            oneSided.close();
            return;
        }
        try {
            oneSided.postWaiting();
        } catch (IOException e) {
            events.connectionFailed(e);
        }
    }

    /** Counts {@code exposed} among the regions revoked when the connection closes. */
    void exposed(ExposedRegion exposed) {
        exposures.add(exposed);
    }

    /** Forgets {@code exposed}, revoked. */
    void revoked(ExposedRegion exposed) {
        exposures.remove(exposed);
    }

    /**
     * What the receiver and the ring owner report outside a completion, and ask, turned into the
     * channel's events.
     */
    private final class PartsListener implements RdmaReceiver.Listener, RingOwner.Connection, SendTimers.Due {
        @Override
        public void ringSpaceFreed() {
            sendWhatIsDue();
        }

        @Override
        public void ringClosedWhileIdle() {
            sendWhatIsDue();
        }

        private void sendWhatIsDue() {
            try {
                maybeSendCredit();
            } catch (IOException e) {
                events.connectionFailed(e);
            }
        }

        @Override
        public void blockRetryDue() {
            // Flushes what waits, which looks again if it still finds no block.
            events.writeSpaceAvailable();
            sendWhatIsDue();
        }

        @Override
        public boolean trimStaging() {
            // Both looks run: each gives back what it found unused since the last.
            return sender.trimStaging() & oneSided.trimLanding();
        }

        @Override
        public void creditTimedOut(long waitedMillis, int boundMillis) {
            ChannelOutboundBuffer in = events.outboundBuffer();
            long pending = in != null ? in.totalPendingWriteBytes() : 0;
            events.connectionFailed(new RdmaCreditTimeoutException("the peer returned no receive credit for "
                    + waitedMillis + " ms while " + pending + " bytes waited to be sent (qp " + qpNum
                    + ", RdmaChannelOption.CREDIT_TIMEOUT_MILLIS " + boundMillis
                    + " ms): the peer stopped reading, or holds credit it does not return"));
        }

        @Override
        public void ringGrowthDue() {
            // Announced by serveRings() after this receive, as every other ring message.
            rings.growthDue();
        }

        @Override
        public void receiveFailed(IOException cause) {
            events.connectionFailed(cause);
        }

        @Override
        public boolean mayHoldMore(long bytes) {
            return events.mayHoldMore(bytes);
        }

        @Override
        public void heldLess(long bytes) {
            events.heldLess(bytes);
        }
    }
}
