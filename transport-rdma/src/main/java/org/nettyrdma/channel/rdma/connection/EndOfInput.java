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

import org.nettyrdma.channel.rdma.protocol.RdmaProtocol;

/**
 * How the peer ended this side's input, as the inbound queue hands it to the read loop after the
 * last data before it ({@link RdmaReceiver#takeEndOfInput()}).
 */
public enum EndOfInput {
    /** The peer's {@code SHUTDOWN_OUTPUT}: it writes no more, and still reads. */
    SHUTDOWN_OUTPUT,
    /** The peer's {@code CLOSE}: it neither writes nor reads any more. */
    CLOSE;

    /** Returns the end of input a message of {@code type}, which is not {@code DATA}, stands for. */
    static EndOfInput of(int type) {
        if (type == RdmaProtocol.TYPE_SHUTDOWN_OUTPUT) {
            return SHUTDOWN_OUTPUT;
        }
        if (type == RdmaProtocol.TYPE_CLOSE) {
            return CLOSE;
        }
        throw new IllegalArgumentException("type: " + type + " (expected: SHUTDOWN_OUTPUT or CLOSE)");
    }
}
