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
package org.nettyrdma.example.kv;

import org.nettyrdma.channel.rdma.RemoteRegion;

/**
 * The messages of the key-value store's stream ({@link KvCodec}). The server writes a {@link Hello}
 * first, then a {@link Result} for each {@link Put} the client sent, in order. GETs have no message:
 * the client reads the table itself.
 */
public sealed interface KvMessage {

    /** The server's first message: where the table is and how it is laid out. */
    record Hello(RemoteRegion table, SlotLayout layout) implements KvMessage {
    }

    /** A client's request to make {@code value} slot {@code slot}'s value. */
    record Put(int slot, byte[] value) implements KvMessage {
    }

    /** The server's answer to a {@link Put}. */
    record Result(Status status) implements KvMessage {
    }

    /** How a {@link Put} went. */
    enum Status {
        /** The slot holds the value. */
        OK,
        /** The table has no such slot. */
        NO_SUCH_SLOT,
        /** The value is longer than a slot holds. */
        TOO_LONG
    }
}
