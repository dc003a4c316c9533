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

import org.nettyrdma.channel.rdma.protocol.CreditReturn;
import org.nettyrdma.channel.rdma.protocol.RdmaProtocol;

/**
 * What a connection owes its peer besides data, posted as slots, send space and the send queue
 * allow: the {@code SHUTDOWN_OUTPUT} and {@code CLOSE} still owed ({@link OwedEndOfStream}), the rings'
 * messages, {@code CREDIT} when the credits owed call for one, and keep-alive probes. Nothing is posted
 * before the {@code HELLO} exchange is done ({@link HelloExchange}) or once the connection closed.
 *
 * <p>Threading: the channel's event loop only.
 */
final class ControlMessages {

    private final RdmaSender sender;
    private final CreditReturn owedCredit;
    private final RingOwner rings;
    private final HelloExchange hello;
    private final SendTimers timers;
    private final KeepAlive keepAlive;
    private final ConnectionCounters counters;
    private final OwedEndOfStream endOfStream = new OwedEndOfStream(this::sendControl);
    private boolean stopped;

    ControlMessages(RdmaSender sender, CreditReturn owedCredit, RingOwner rings, HelloExchange hello,
                    SendTimers timers, KeepAlive keepAlive, ConnectionCounters counters) {
        this.sender = sender;
        this.owedCredit = owedCredit;
        this.rings = rings;
        this.hello = hello;
        this.timers = timers;
        this.keepAlive = keepAlive;
        this.counters = counters;
    }

    /**
     * Posts what is owed: the end of stream first, in whose header the credits ride; otherwise the
     * rings' work and a {@code CREDIT} if one is due.
     */
    void sendDue() throws IOException {
        if (endOfStream.isOwed()) {
            // What is owed rides in its header.
            endOfStream.postOwed();
            return;
        }
        if (!hello.isDone() || stopped) {
            return;
        }
        serveRings();
        if (owedCredit.creditMessageDue()) {
            sendControl(RdmaProtocol.TYPE_CREDIT);
        }
    }

    /**
     * Posts {@code SHUTDOWN_OUTPUT} or {@code CLOSE} after everything posted so far, now or once the
     * peer returns a slot ({@link OwedEndOfStream}).
     */
    void sendEndOfStream(int type) throws IOException {
        endOfStream.send(type);
    }

    /** Returns {@code true} while a {@code SHUTDOWN_OUTPUT} or {@code CLOSE} waits for a slot at the peer. */
    boolean endOfStreamOwed() {
        return endOfStream.isOwed();
    }

    /** Posts the {@code SHUTDOWN_OUTPUT} or {@code CLOSE} owed, if any, as far as slots allow. */
    void postOwedEndOfStream() throws IOException {
        if (endOfStream.isOwed()) {
            endOfStream.postOwed();
        }
    }

    /** Forgets the end of stream owed: nothing more will be posted on the queue pair. */
    void forgetEndOfStream() {
        endOfStream.forget();
    }

    /** Posts nothing more: the connection closed. */
    void stop() {
        stopped = true;
    }

    /**
     * Probes the peer if nothing completed since the last call (SO_KEEPALIVE), with
     * {@link RdmaSender#probe()}.
     *
     * @return {@code true} if a probe was posted
     */
    boolean probeIfIdle() throws IOException {
        boolean idle = keepAlive.idleSinceLastLook();
        if (!idle || !hello.isDone() || stopped || sender.outstanding() != 0 || !sender.probe()) {
            return false;
        }
        keepAlive.probed();
        counters.keepAliveProbes++;
        return true;
    }

    /**
     * Makes sure the sender asks the pool again if its sends wait for a staging block and nothing in
     * flight will complete to trigger a flush: the writes stay in the outbound buffer meanwhile, and
     * the channel turns unwritable above its high water mark, as when the peer is slow.
     */
    void retryIfWaitingForBlock() {
        if (!stopped && sender.waitingForBlock() && sender.outstanding() == 0) {
            timers.retryBlock();
        }
    }

    /**
     * Posts a message without payload ({@code CREDIT}, {@code SHUTDOWN_OUTPUT}, {@code CLOSE}) if a
     * slot, send space and a send queue entry are free.
     *
     * @return {@code true} if it was posted
     */
    private boolean sendControl(int type) throws IOException {
        if (!hello.isDone() || stopped) {
            return false;
        }
        if (sender.sendControl(type)) {
            return true;
        }
        retryIfWaitingForBlock();
        return false;
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
}
