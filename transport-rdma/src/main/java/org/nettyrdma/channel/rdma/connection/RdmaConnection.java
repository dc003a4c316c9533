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
package org.nettyrdma.channel.rdma.connection;

import java.io.IOException;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.EventLoop;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.RdmaCreditTimeoutException;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.channel.rdma.loop.CompletionQueue;
import org.nettyrdma.channel.rdma.loop.SharedReceiveQueue;
import org.nettyrdma.channel.rdma.memory.ProtectionDomain;
import org.nettyrdma.channel.rdma.memory.RdmaDevice;
import org.nettyrdma.channel.rdma.memory.RegisteredBlocks;
import org.nettyrdma.channel.rdma.memory.RegisteredBuffer;
import org.nettyrdma.channel.rdma.memory.RegisteredMemoryBudget;
import org.nettyrdma.channel.rdma.memory.SendBlocks;

/**
 * One connection of a {@code RdmaSocketChannel} (docs/protocol.md): makes its parts, hands them the
 * channel's calls, and closes them. The parts are the {@link QueuePairResources} (the verbs objects
 * and their frees), the {@link RdmaSender} (flushed bytes into work requests, within the peer's
 * credits), the {@link RdmaReceiver} (slots, ring, the inbound queue, the credits owed to the peer),
 * the {@link HelloExchange} that joins them, the {@link ControlMessages} owed to the peer, the
 * {@link SendTimers} and the {@link CompletionDispatch}, which sorts the queue pair's work completions
 * between them and tells the channel what happened ({@link ConnectionEvents}).
 *
 * <p>Used on the channel's event loop only, except the release of ring regions handed up
 * ({@link RdmaReceiver}).
 */
public final class RdmaConnection {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RdmaConnection.class);

    private final ConnectionEvents events;
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
    private final ControlMessages controls;
    private final CompletionDispatch completions;
    private final OneSidedRequests oneSided;
    private final ExposedMemory exposed;
    /** Nudges the peer's device to read this side's HELLO, where it may not (iWARP); {@code null} elsewhere. */
    private final HelloNudge helloNudge;
    private final PeerReset peerReset;
    /** The queue pair was moved to the error state ({@link #disconnect()}). */
    private boolean disconnected;
    /** The connection failed and was stopped: nothing the peer sends is taken any more ({@link #abort()}). */
    private boolean aborted;
    private boolean closed;
    /** The {@code ibv_qp*} whose async errors this connection is told of; 0 before and after. */
    private long watchedQp;

    /**
     * Creates the queue pair on the CM id {@code id}, in {@code cq} where
     * {@link ConnectionSettings#completionQueueEntries} are reserved for it and on the shared receive
     * queue {@code srq}, and reserves the peer's first slots there: all before the connection is
     * established, so no Send from the peer can find no receive. Its completions carry {@code owner},
     * the id of the channel's registration with its loop. A ring opens only when the peer asks for
     * one. All or nothing: if any step fails, everything made before it is freed and the
     * reservations are returned.
     */
    public RdmaConnection(ConnectionEvents events, EventLoop eventLoop, CompletionQueue cq, SharedReceiveQueue srq,
                          long id, int owner, ConnectionSettings settings, boolean accepted, ProtectionDomain ownPd,
                          MemoryAdmission memory, PooledMemory pooled) throws IOException {
        this.events = events;
        this.peerReset = new PeerReset(eventLoop, events);
        this.exposed = new ExposedMemory(ownPd);
        this.device = cq.device();
        int slots = settings.receiveSlots();
        // The largest ring this side opens to its peer on request. None where a window would not
        // confine the peer: then it may write nowhere (RingPolicy).
        int maxRingSize = ownPd != null ? 0 : settings.maxRingSize(device);
        int sendBufferSize = settings.sendBufferSize();
        int sendDepth = settings.sendQueueDepth(device);
        // From here the connection owns the CQ reservation and the receive queue: close() gives them back.
        resources = new QueuePairResources(cq, settings.completionQueueEntries(device), id, srq);
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
            resources.open(sendDepth, settings.maxInlineData());
            qpNum = resources.qpNum();
            PartsListener listener = new PartsListener();
            timers = new SendTimers(eventLoop, settings.creditTimeoutMillis(), listener);
            receiver = new RdmaReceiver(listener, memory, eventLoop, resources, slots, maxRingSize,
                    settings.receiveInPlace(), accepted, counters, pooled);
            // A connection in a domain of its own stages in blocks registered there: the pool's keys are
            // the shared domain's.
            SendBlocks.Source staging = ownPd != null
                    ? new RegisteredBlocks(device, ownPd, 0, "a staging block of a connection exposing memory")
                    : pooled.stagingBlocks(device);
            // Registered buffers carry the shared domain's keys: a connection in a domain of its own
            // copies them, as it stages everything.
            sender = new RdmaSender(device, resources.qp(), resources.maxInline(), resources.controlInline(),
                    resources.gathers() && ownPd == null, sendDepth, sendBufferSize, receiver.owed(), counters,
                    staging);
            oneSided = new OneSidedRequests(sender, new SendBlocks(new RegisteredBlocks(device, ownPd,
                    RegisteredBuffer.LOCAL_WRITE, "RDMA Read and atomic results"), sendBufferSize),
                    !device.verbs().writeCompletionsConfirmPlacement(), sendDepth);
            rings = new RingOwner(listener, memory, resources, sender, receiver, eventLoop,
                    settings.ringIdleMillis());
            hello = new HelloExchange(sender, receiver, accepted ? HelloExchange.Turn.ANSWERS
                    : HelloExchange.Turn.SPEAKS_FIRST, settings.slotSize(), qpNum);
            // The side that speaks first on iWARP: its HELLO may be left unread by the peer's device.
            helloNudge = accepted || !device.verbs().nudgesHello() ? null
                    : new HelloNudge(eventLoop, qpNum, () -> closed || hello.isDone(), () -> {
                        oneSided.nudge();
                        postOneSided();
                    });
            controls = new ControlMessages(sender, receiver.owed(), rings, hello, timers, keepAlive, counters);
            completions = new CompletionDispatch(events, listener, device, receiver, sender, oneSided, rings,
                    hello, timers, controls, keepAlive, counters);
            // From here the queue pair's completions, sends and receives, reach the channel, and so do
            // its errors that the device reports as async events.
            sender.chain().claim(owner);
            srq.attach(qpNum, owner);
            long qp = resources.qp();
            device.asyncEvents().watch(qp, type -> eventLoop.execute(() -> queuePairFailed(type)));
            watchedQp = qp;
            receiver.reserveForHello();
            created = true;
        } finally {
            if (!created) {
                close();
            }
        }
    }

    /**
     * Fails the connection on an error the device reported of its queue pair ({@code IBV_EVENT_QP_*}):
     * the queue pair is in the error state, and on iWARP nothing else may say so until the CM's
     * disconnect, seconds later.
     */
    private void queuePairFailed(int type) {
        if (closed) {
            return;
        }
        if (receiver.peerSentClose() || peerResetLooksLike(type)) {
            // The peer closed or disconnected while a send of this side (data, a credit, the answer to
            // its Read) was under way: on iWARP its TCP connection then resets, and the device reports
            // the send's failure as an error of the queue pair before the CM's DISCONNECTED. On
            // InfiniBand's transport the same departure flushes the queue pair: the input ends, as it
            // does here (docs/decisions.md#confirmed-close-on-iwarp).
            logger.debug("qp {}: async event {} on {}: taken as the peer's leaving", qpNum, type, device.name());
            queuePairLost();
            return;
        }
        String what = type == RdmaNative.EVENT_QP_ACCESS_ERR ? "the peer asked for memory its key does not grant"
                : type == RdmaNative.EVENT_QP_REQ_ERR ? "the peer sent an invalid request"
                : "the queue pair failed";
        events.connectionFailed(new IOException("qp " + qpNum + ": the RDMA device " + device.name()
                + " put the queue pair in the error state: " + what + " (async event " + type + ")"));
    }

    /**
     * The queue pair is in the error state with no error of its own. After the peer's {@code CLOSE}, or
     * on a device whose departures the CM reports (InfiniBand's transport), the peer left: the channel
     * hears of it now. On iWARP without a {@code CLOSE} the TCP connection was reset, which is also what
     * the removal of this very device looks like first ({@link PeerReset}).
     */
    private void queuePairLost() {
        if (device.verbs().connectsOverTcp() && !receiver.peerSentClose()) {
            peerReset.reset();
        } else {
            events.connectionLost();
        }
    }

    /**
     * Returns {@code true} if async event {@code type} is what a peer's disconnect looks like on this
     * device: on iWARP, siw raises {@code IBV_EVENT_QP_FATAL} when a send meets the reset of its TCP
     * connection, and {@code IBV_EVENT_QP_REQ_ERR} when the answer to the peer's Read does. A key the
     * peer was refused ({@code IBV_EVENT_QP_ACCESS_ERR}) stays an error.
     */
    private boolean peerResetLooksLike(int type) {
        return device.verbs().connectsOverTcp()
                && (type == RdmaNative.EVENT_QP_FATAL || type == RdmaNative.EVENT_QP_REQ_ERR);
    }

    /** Returns {@code true} if the queue pair's sends or receives complete into {@code queue}. */
    public boolean completesInto(CompletionQueue queue) {
        return resources.completesInto(queue);
    }

    /** Returns the device of the queue pair. */
    public RdmaDevice device() {
        return device;
    }

    /** Returns {@code true} once both {@code HELLO}s are out: this side's posted, the peer's received. */
    public boolean isReady() {
        return hello.isDone();
    }

    /** Says how far the {@code HELLO} exchange got: for the message of a connect that timed out. */
    public String handshakeState() {
        return hello.describe();
    }

    /** Returns the connection's {@code ibv_qp*}, for tests that ask the device what it made of an option. */
    public long queuePair() {
        return resources.qp();
    }

    /** Returns the counts of what this connection did so far, kept on its event loop. */
    public ConnectionCounters counters() {
        return counters;
    }

    /** Returns the registered bytes of the staging blocks this connection holds now. */
    public long stagingBytes() {
        return sender != null ? sender.stagingBytes() : 0;
    }

    /** Returns the most bytes a send of this connection carries inline. */
    public int maxInlineData() {
        return resources.maxInline();
    }

    /**
     * Returns the registered bytes this connection holds now: its ring if one is open, its share of
     * the shared receive slots, and the staging blocks of its sends in flight with the spares it keeps
     * for one to two seconds after its last send.
     */
    public long registeredBytes() {
        return admittedBytes() + (sender != null ? sender.stagingBytes() : 0);
    }

    /**
     * Returns what the connection holds that its source address's cap counts: its ring if one is open
     * and its share of the shared receive slots, not the staging blocks, which it holds only while it
     * sends.
     */
    public long admittedBytes() {
        return receiver != null ? receiver.registeredBytes() : 0;
    }

    /**
     * Sends this side's {@code HELLO}: the connecting side's once established, the accepting side's
     * when the connecting side's arrives. It grants the peer's first share of slots and offers rings
     * of up to {@code SO_RCVBUF}, none of which is open yet.
     */
    public void sendHello() throws IOException {
        if (hello.sendHello()) {
            events.connectionReady();
        } else if (helloNudge != null) {
            helloNudge.start();
        }
    }

    /**
     * Stages and posts as much of {@code in} as credits, send space and the send queue allow
     * ({@link RdmaSender#flush}), and returns credits to the peer if that is due.
     */
    public void flush(ChannelOutboundBuffer in) throws Exception {
        if (!isReady() || closed) {
            return;
        }
        if (sender.flush(in)) {
            if (sender.stalledOnCredit()) {
                timers.creditStalled();
            } else {
                timers.creditEnded();
            }
            controls.sendDue();
            controls.retryIfWaitingForBlock();
        }
    }

    /**
     * Posts {@code SHUTDOWN_OUTPUT} or {@code CLOSE} after everything posted so far: now, or, if every
     * slot this side was granted is in the peer's hands, as soon as the peer returns one. The peer
     * returns a lone slot at once to a side that has none left (docs/protocol.md, "Returning
     * credits"), so the wait is short unless the queue pair fails, which the drain's bound covers.
     */
    public void sendEndOfStream(int type) throws IOException {
        controls.sendEndOfStream(type);
    }

    /** Returns {@code true} while a {@code SHUTDOWN_OUTPUT} or {@code CLOSE} waits for a slot at the peer. */
    public boolean endOfStreamOwed() {
        return controls.endOfStreamOwed();
    }

    /**
     * Probes the peer if nothing completed since the last call (SO_KEEPALIVE)
     * ({@link ControlMessages#probeIfIdle}).
     *
     * @return {@code true} if a probe was posted
     */
    public boolean probeIfIdle() throws IOException {
        return controls.probeIfIdle();
    }

    /** Returns {@code true} while posted sends have not completed. */
    public boolean hasOutstandingSends() {
        return sender.outstanding() != 0;
    }

    /**
     * Returns the work requests posted whose completion has not arrived (an unsignaled send is done
     * when a later one completes), and one for a {@code SHUTDOWN_OUTPUT} or {@code CLOSE} still to be
     * posted: until it is, the channel's registration must stay to hear the peer return a slot. Once
     * the queue pair is in the error state every request completes with a flush error and nothing is
     * owed any more; completions that arrive after {@link #close()} are still counted.
     */
    public int outstandingWorkRequests() {
        return sender.outstanding() + (endOfStreamOwed() ? 1 : 0);
    }

    /** Says which work requests are outstanding, for the log of a drain that did not end. */
    public String describeOutstanding() {
        return sender.outstanding() + " sends";
    }

    /**
     * Handles one work completion of this connection's queue pair, on its event loop
     * ({@link CompletionDispatch#onCompletion}).
     */
    public void onCompletion(long wrId, int status, int opcode, int byteLength, int immediate, int flags) {
        completions.onCompletion(wrId, status, opcode, byteLength, immediate, flags);
    }

    /** Returns {@code true} if messages wait to be read. */
    public boolean hasInbound() {
        return receiver.hasInbound();
    }

    /** Returns {@code true} if the next message is the peer's {@code SHUTDOWN_OUTPUT} or {@code CLOSE}. */
    public boolean endOfInputIsNext() {
        return receiver.endOfInputIsNext();
    }

    /** Takes the next piece of received data, which is next ({@link RdmaReceiver#readInbound}). */
    public ByteBuf readInbound(RecvByteBufAllocator.Handle handle, ByteBufAllocator alloc) {
        return receiver.readInbound(handle, alloc);
    }

    /** Takes the peer's {@code SHUTDOWN_OUTPUT} or {@code CLOSE}, which is next ({@link #endOfInputIsNext()}). */
    public EndOfInput takeEndOfInput() {
        return receiver.takeEndOfInput();
    }

    /** Posts the receives reposted by {@link #readInbound}, and returns credits if that is due. */
    public void readComplete() throws IOException {
        receiver.postReceives();
        controls.sendDue();
    }

    /**
     * Stops the connection at once because it failed (the peer broke the protocol or sent a verb
     * outside it, a work request failed, credit never came): the queue pair goes to the error state
     * now, so the peer's Sends take no further receive of the shared queue, and receives it got in
     * before are given back untaken. Nothing is owed to the peer any more, no {@code CLOSE} included.
     */
    public void abort() {
        aborted = true;
        disconnect();
    }

    /** Returns {@code true} once the connection failed and was stopped ({@link #abort()}). */
    public boolean isAborted() {
        return aborted;
    }

    /**
     * Moves the queue pair to the error state, where every posted request comes back flushed, and
     * starts an orderly disconnect: the peer gets {@code DISCONNECTED}. Once only.
     */
    public void disconnect() {
        if (disconnected) {
            return;
        }
        disconnected = true;
        // Nothing more will be posted: what waited for a slot is not owed any more.
        controls.forgetEndOfStream();
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
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (helloNudge != null) {
            helloNudge.cancel();
        }
        if (watchedQp != 0) {
            device.asyncEvents().unwatch(watchedQp);
        }
        if (controls != null) {
            controls.stop();
        }
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
            exposed.close();
        }
    }

    /** Returns the memory the connection lets its peer reach by key. */
    public ExposedMemory exposedMemory() {
        return exposed;
    }

    /** Returns the connection's one-sided requests. */
    public OneSidedRequests oneSided() {
        return oneSided;
    }

    /** Posts the one-sided requests that wait, as far as the send queue allows. */
    public void postOneSided() {
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

    /**
     * What the receiver and the ring owner report outside a completion, and what the timers find due,
     * turned into the channel's events; and the connection's state, which the completion dispatch
     * asks.
     */
    private final class PartsListener implements RdmaReceiver.Listener, RingOwner.Connection, SendTimers.Due,
            CompletionDispatch.Owner {
        @Override
        public void creditsFreed() {
            sendWhatIsDue();
        }

        @Override
        public void ringClosedWhileIdle() {
            sendWhatIsDue();
        }

        private void sendWhatIsDue() {
            try {
                controls.sendDue();
            } catch (IOException e) {
                events.connectionFailed(e);
            }
        }

        @Override
        public boolean isClosed() {
            return closed;
        }

        @Override
        public boolean isAborted() {
            return aborted;
        }

        @Override
        public void queuePairLost() {
            RdmaConnection.this.queuePairLost();
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
            // Announced by ControlMessages after this receive, as every other ring message.
            rings.growthDue();
        }

        @Override
        public void receiveFailed(IOException cause) {
            events.connectionFailed(cause);
        }
    }
}
