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
package org.nettyrdma.example.atomics;

import io.netty.buffer.ByteBuf;
import org.nettyrdma.channel.rdma.RemoteRegion;

/**
 * The words an {@link AtomicsServer} shares with its clients, and its hello. Three 8-byte words, each
 * an integer in the server host's byte order, little-endian on x86-64 and aarch64, as the device's
 * atomics take it:
 *
 * <pre>
 *  0  COUNTER  incremented by fetch-and-add: atomic on its own
 *  8  LOCK     0 when free, else the id of the client that holds it; taken and given back by compare-and-swap
 * 16  GUARDED  a plain word, read and written back with RDMA Read and Write by the lock's holder only
 * </pre>
 *
 * The hello, the only bytes on the stream, is the descriptor of the words ({@link RemoteRegion}, 24
 * bytes) and the id the server gave the connection (8 bytes, never 0).
 */
public final class SharedWords {

    /** The offset of the counter. */
    public static final int COUNTER = 0;
    /** The offset of the lock. */
    public static final int LOCK = 8;
    /** The offset of the word the lock guards. */
    public static final int GUARDED = 16;
    /** The bytes of the three words. */
    public static final int LENGTH = 24;
    /** The bytes of the hello. */
    public static final int HELLO_LENGTH = RemoteRegion.ENCODED_LENGTH + Long.BYTES;

    private SharedWords() {
    }

    /** What a client learns from the hello: where the words are, and its id, the value it locks with. */
    public record Hello(RemoteRegion words, long clientId) {
    }

    /** Writes the hello of {@code words} and {@code clientId} to {@code out}. */
    public static ByteBuf writeHello(ByteBuf out, RemoteRegion words, long clientId) {
        return words.writeTo(out).writeLong(clientId);
    }

    /** Reads a hello written by {@link #writeHello}. */
    public static Hello readHello(ByteBuf in) {
        RemoteRegion words = RemoteRegion.readFrom(in);
        return new Hello(words, in.readLong());
    }

    /** Returns the word at {@code offset} of {@code memory}: the words' memory, or 8 bytes read from it. */
    public static long word(ByteBuf memory, int offset) {
        return memory.getLongLE(offset);
    }
}
