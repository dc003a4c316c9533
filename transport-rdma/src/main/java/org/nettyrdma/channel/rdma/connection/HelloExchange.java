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

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.protocol.HelloMessage;

/**
 * The {@code HELLO} exchange that joins a connection's sender and receiver (docs/protocol.md,
 * "Connection"): this side's {@code HELLO} grants the peer's first share of slots and offers rings;
 * the peer's tells the sender its credits and sizes. The connection is ready once both are out.
 *
 * <p>Threading: the channel's event loop only.
 */
final class HelloExchange {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(HelloExchange.class);

    /** When this side sends its {@code HELLO}. */
    enum Turn {
        /** The connecting side: once the connection is established. */
        SPEAKS_FIRST,
        /**
         * The accepting side: in answer to the connecting side's, since only then is the connecting
         * side's queue pair sure to be ready to receive.
         */
        ANSWERS
    }

    private final RdmaSender sender;
    private final RdmaReceiver receiver;
    private final Turn turn;
    private final int slotSize;
    private final int qpNum;

    HelloExchange(RdmaSender sender, RdmaReceiver receiver, Turn turn, int slotSize, int qpNum) {
        this.sender = sender;
        this.receiver = receiver;
        this.turn = turn;
        this.slotSize = slotSize;
        this.qpNum = qpNum;
    }

    /**
     * Sends this side's {@code HELLO}, granting the peer's first share of slots and offering rings of
     * up to {@code SO_RCVBUF}, none of which is open yet.
     *
     * @return {@code true} if that made the connection ready: the peer's had arrived
     */
    boolean sendHello() throws IOException {
        receiver.reserveShare();
        HelloMessage hello = HelloMessage.of(receiver.owed().grantedSlots(), receiver.maxShare(), slotSize,
                receiver.maxRingSize());
        logger.debug("qp {}: posting this side's HELLO", qpNum);
        sender.sendHello(hello);
        // Our HELLO used one of the peer's slots: counted once the peer's HELLO says how many it gave.
        return sender.hasPeer();
    }

    /**
     * Takes the peer's {@code HELLO}, and answers it if this side {@link Turn#ANSWERS}.
     *
     * @return {@code true} if that made the connection ready
     */
    boolean peerHello(HelloMessage hello) throws IOException {
        sender.peerHello(hello);
        if (sender.helloSent()) {
            return true;
        }
        return turn == Turn.ANSWERS && sendHello();
    }

    /** Returns {@code true} once both {@code HELLO}s are out: this side's posted, the peer's received. */
    boolean isDone() {
        return sender.hasPeer() && sender.helloSent();
    }

    /** Says how far the exchange got: for the message of a connect that timed out. */
    String describe() {
        String own = !sender.helloSent() ? "not sent" : sender.helloDelivered() ? "delivered"
                : "posted, not acknowledged";
        return "qp " + qpNum + ": this side's HELLO " + own + ", the peer's "
                + (sender.hasPeer() ? "received" : "not received");
    }
}
