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

import org.nettyrdma.channel.rdma.RdmaProtocolException;
import org.nettyrdma.channel.rdma.internal.WorkCompletionStatus;
import org.nettyrdma.channel.rdma.memory.RdmaDevice;
import org.nettyrdma.channel.rdma.protocol.MessageHeader;
import org.nettyrdma.channel.rdma.protocol.RdmaProtocol;

/**
 * Sorts the work completions of a connection's queue pair between its parts: receives to the
 * {@link RdmaReceiver} and what they brought (the peer's {@code HELLO}, data, returned credits, ring
 * messages) on to the parts that take it; sends, RDMA Reads, Writes and atomics to the
 * {@link RdmaSender} and the {@link OneSidedRequests}; error completions to the channel as a lost or
 * failed connection ({@link ConnectionEvents}).
 *
 * <p>Threading: the channel's event loop only.
 */
final class CompletionDispatch {

    /** What the dispatch asks of its connection. */
    interface Owner {
        /** Returns {@code true} once the connection is closed: its completions only free what they held. */
        boolean isClosed();

        /** Returns {@code true} once the connection failed and was stopped: what the peer sends is refused. */
        boolean isAborted();

        /** The queue pair went to the error state without an error of its own: the peer left, or was reset. */
        void queuePairLost();
    }

    private final ConnectionEvents events;
    private final Owner owner;
    private final RdmaDevice device;
    private final RdmaReceiver receiver;
    private final RdmaSender sender;
    private final OneSidedRequests oneSided;
    private final RingOwner rings;
    private final HelloExchange hello;
    private final SendTimers timers;
    private final ControlMessages controls;
    private final KeepAlive keepAlive;
    private final ConnectionCounters counters;

    CompletionDispatch(ConnectionEvents events, Owner owner, RdmaDevice device, RdmaReceiver receiver,
                       RdmaSender sender, OneSidedRequests oneSided, RingOwner rings, HelloExchange hello,
                       SendTimers timers, ControlMessages controls, KeepAlive keepAlive,
                       ConnectionCounters counters) {
        this.events = events;
        this.owner = owner;
        this.device = device;
        this.receiver = receiver;
        this.sender = sender;
        this.oneSided = oneSided;
        this.rings = rings;
        this.hello = hello;
        this.timers = timers;
        this.controls = controls;
        this.keepAlive = keepAlive;
        this.counters = counters;
    }

    /**
     * Handles one work completion of this connection's queue pair, on its event loop. For an error
     * completion only {@code wrId}, {@code status} and {@code opcode} are meaningful ({@code opcode}
     * is not, for flushed receives); {@code flags} are the completion's {@code wc_flags}
     * ({@code RdmaNative.WC_WITH_INV}).
     */
    void onCompletion(long wrId, int status, int opcode, int byteLength, int immediate, int flags) {
        boolean receive = RdmaReceiver.isReceive(wrId);
        if (receive && (owner.isClosed() || owner.isAborted() || status != WorkCompletionStatus.SUCCESS)) {
            // A shared slot that nobody takes goes back to the queue. After an abort, what the peer
            // got in before its queue pair left the ready state is not looked at: no exception is
            // made, no credit counted, per message of a peer that floods.
            receiver.discard(wrId);
            if (owner.isAborted() && status == WorkCompletionStatus.SUCCESS) {
                counters.refusedReceives++;
                return;
            }
        }
        if (status == WorkCompletionStatus.WR_FLUSH_ERR
                || status != WorkCompletionStatus.SUCCESS && receiver.peerSentClose()
                || status == WorkCompletionStatus.LOC_QP_OP_ERR && !receive && device.verbs().connectsOverTcp()) {
            // The QP went to the error state: the peer disconnected (or this side did). Every posted
            // request comes back flushed; the CM's DISCONNECTED event says why, so nothing to report.
            // A flushed send is done with (its bytes are not delivered), so a closing channel's
            // drain does not wait for it. After the peer's CLOSE any failure is its leaving, and so is
            // a send that met the reset of its TCP connection (iWARP), which fails instead of being
            // flushed.
            boolean sendFlushed = !receive && sender.failed(wrId);
            if (!receive) {
                oneSided.failed(wrId, status);
            }
            if (owner.isClosed()) {
                return;
            }
            owner.queuePairLost();
            if (sendFlushed && !owner.isClosed() && sender.outstanding() == 0) {
                events.sendsDrained();
            }
            return;
        }
        if (status != WorkCompletionStatus.SUCCESS) {
            if (!receive) {
                sender.failed(wrId);
                oneSided.failed(wrId, status);
            }
            if (!owner.isClosed()) {
                events.connectionFailed(receive ? receiveFailure(status) : sendFailure(status));
            }
            return;
        }
        if (owner.isClosed()) {
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
                controls.postOwedEndOfStream();
                events.writeSpaceAvailable();
                if (sender.outstanding() == 0) {
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
            controls.sendDue();
            return;
        }
        MessageHeader header = received.header();
        sender.creditsReturned(header.returnedSlots(), header.returnedRingBytes());
        if (header.returnedSlots() > 0) {
            timers.creditEnded();
            controls.postOwedEndOfStream();
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
        controls.sendDue();
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
}
