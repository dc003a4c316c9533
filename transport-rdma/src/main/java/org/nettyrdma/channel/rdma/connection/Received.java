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

import org.nettyrdma.channel.rdma.protocol.HelloMessage;
import org.nettyrdma.channel.rdma.protocol.MessageHeader;
import org.nettyrdma.channel.rdma.protocol.RingMessage;

/**
 * What one receive completion brought, as {@link RdmaReceiver#onReceive} returns it: its {@link Kind}
 * and the values that go with that kind. A receiver fills its one instance again for every receive,
 * so that a message costs no garbage: the values are valid until the next receive.
 *
 * <p>Used on the channel's event loop only.
 */
final class Received {

    /** What a receive completion brought. */
    enum Kind {
        /** The peer's {@code HELLO}, in {@link #peerHello()}. */
        HELLO,
        /** A Write's data, queued for the pipeline. */
        WRITE,
        /** A Send queued for the pipeline; its header in {@link #header()}. */
        SEND,
        /** A {@code CREDIT}, nothing queued; its header in {@link #header()}. */
        CREDIT,
        /**
         * A {@code RING_REQUEST}, {@code RING} or {@code RING_RELEASED}, nothing queued; its header in
         * {@link #header()}, its payload in {@link #ringMessage()} or {@link #ringGeneration()}.
         */
        RING_MESSAGE
    }

    private final MessageHeader header = new MessageHeader();
    private final RingMessage ringMessage = new RingMessage();
    private Kind kind;
    private HelloMessage peerHello;
    private int ringGeneration;

    /** Returns what the last receive brought. */
    Kind kind() {
        return kind;
    }

    /** Returns the peer's {@code HELLO}, of a receive of {@link Kind#HELLO}. */
    HelloMessage peerHello() {
        return peerHello;
    }

    /** Returns the header of a Send: of {@link Kind#SEND}, {@link Kind#CREDIT} or {@link Kind#RING_MESSAGE}. */
    MessageHeader header() {
        return header;
    }

    /** Returns the {@code RING} of a {@link Kind#RING_MESSAGE} of that type. */
    RingMessage ringMessage() {
        return ringMessage;
    }

    /** Returns the generation a {@code RING_REQUEST} or {@code RING_RELEASED} named. */
    int ringGeneration() {
        return ringGeneration;
    }

    /** Records a receive of {@code kind}, whose values the receiver decoded into this already. */
    Received of(Kind kind) {
        this.kind = kind;
        return this;
    }

    /** Records the peer's {@code HELLO}. */
    Received hello(HelloMessage hello) {
        peerHello = hello;
        return of(Kind.HELLO);
    }

    /** Records the generation of a {@code RING_REQUEST} or {@code RING_RELEASED}. */
    void ringGeneration(int generation) {
        ringGeneration = generation;
    }
}
