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

import io.netty.channel.ChannelOutboundBuffer;

/**
 * What the channel learns from its {@link RdmaConnection}, and the two things it is asked: its
 * outbound buffer, and whether the connection may hold more registered memory.
 *
 * <p>Called on the channel's event loop only.
 */
public interface ConnectionEvents {
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
