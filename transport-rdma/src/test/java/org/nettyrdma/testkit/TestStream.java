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
package org.nettyrdma.testkit;

import io.netty.buffer.ByteBuf;

/**
 * An endless pseudo-random byte stream fixed by a seed. Byte {@code n} depends on the seed and
 * {@code n} alone, so a reader can check every byte it gets against the stream, whatever sizes the
 * writer cut it into and however the transport carried it, and name the first offset that is wrong.
 *
 * <p>Not thread-safe (it keeps scratch arrays): each writer and reader has its own instance.
 */
public final class TestStream {

    private static final int SCRATCH = 64 * 1024;

    private final long seed;
    private final byte[] expected = new byte[SCRATCH];
    private final byte[] actual = new byte[SCRATCH];

    public TestStream(long seed) {
        this.seed = seed;
    }

    public long seed() {
        return seed;
    }

    /** Appends the {@code length} stream bytes that start at {@code position} to {@code out}. */
    public void write(ByteBuf out, long position, int length) {
        for (int done = 0; done < length;) {
            int n = Math.min(SCRATCH, length - done);
            fill(expected, n, position + done);
            out.writeBytes(expected, 0, n);
            done += n;
        }
    }

    /**
     * Compares the readable bytes of {@code in} with the stream at {@code position}.
     *
     * @return the stream offset of the first byte that differs, or -1 if all are right
     */
    public long firstMismatch(ByteBuf in, long position) {
        int length = in.readableBytes();
        for (int done = 0; done < length;) {
            int n = Math.min(SCRATCH, length - done);
            fill(expected, n, position + done);
            in.getBytes(in.readerIndex() + done, actual, 0, n);
            int at = java.util.Arrays.mismatch(expected, 0, n, actual, 0, n);
            if (at >= 0) {
                return position + done + at;
            }
            done += n;
        }
        return -1;
    }

    /** Returns the stream byte at {@code position}, for failure messages. */
    public byte byteAt(long position) {
        return (byte) (word(position >>> 3) >>> (56 - ((position & 7) << 3)));
    }

    private void fill(byte[] dst, int length, long position) {
        long p = position;
        int i = 0;
        while (i < length) {
            long word = word(p >>> 3);
            for (int k = (int) (p & 7); k < 8 && i < length; k++, i++, p++) {
                dst[i] = (byte) (word >>> (56 - (k << 3)));
            }
        }
    }

    /** SplitMix64 of the word index: cheap, and no two nearby words alike. */
    private long word(long index) {
        long z = seed + (index + 1) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
