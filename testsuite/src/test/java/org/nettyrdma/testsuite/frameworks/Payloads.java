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
package org.nettyrdma.testsuite.frameworks;

import java.nio.ByteBuffer;
import java.util.Random;
import java.util.zip.CRC32;

import io.netty.buffer.ByteBuf;

/**
 * The bodies the framework tests send, and their checksums: seeded random bytes, so that a body that
 * arrives with one byte wrong, missing or moved has another CRC32 than the one sent with it.
 */
public final class Payloads {

    /**
     * Body sizes: empty, one byte, around a receive slot (8 KiB, the largest Send), beyond a ring's
     * quarter, and several MiB, more than a connection's ring and send buffer (1 MiB each).
     */
    public static final int[] SIZES = {0, 1, 8191, 8192, 65_537, 1 << 20, 3 << 20};

    private Payloads() {
    }

    /** Returns {@code size} bytes made from {@code seed}. */
    public static byte[] bytes(long seed, int size) {
        byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    /** Returns the CRC32 of {@code bytes}. */
    public static long crc32(byte[] bytes) {
        CRC32 crc = new CRC32();
        crc.update(bytes);
        return crc.getValue();
    }

    /** Returns the CRC32 of the readable bytes of {@code buf}, leaving its indexes alone. */
    public static long crc32(ByteBuf buf) {
        CRC32 crc = new CRC32();
        for (ByteBuffer piece : buf.nioBuffers(buf.readerIndex(), buf.readableBytes())) {
            crc.update(piece);
        }
        return crc.getValue();
    }

    /** Returns {@code crc} as the eight hex digits the tests put in a header. */
    public static String hex(long crc) {
        return String.format("%08x", crc);
    }
}
