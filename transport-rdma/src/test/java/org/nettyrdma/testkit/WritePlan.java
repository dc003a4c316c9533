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

import java.util.Random;

import org.nettyrdma.channel.rdma.protocol.RdmaProtocol;

/**
 * The sizes of a stream's writes, in flush groups, drawn from a seed. Every kind of group the
 * transport treats differently is drawn: bursts of tiny writes that one flush coalesces into Sends,
 * single writes below the Send threshold, and writes above it that go as RDMA Writes into the peer's
 * ring (log-uniform, so sizes of every magnitude up to the maximum occur).
 *
 * <p>A plan either ends after a total or runs until {@link #stop()}; the writer's event loop draws
 * from it, {@link #stop()} may be called from any thread.
 */
public final class WritePlan {

    /** The slot size the tests set on both sides, so that the Send threshold is known. */
    public static final int SLOT_SIZE = 8192;
    /** The largest write that travels as a Send: a slot less the message header. */
    public static final int SEND_THRESHOLD = SLOT_SIZE - RdmaProtocol.HEADER_SIZE;

    private static final int TINY_MAX = 64;

    private final Random random;
    private final int maxWrite;
    private long remaining;
    private volatile boolean stopped;
    private int[] first;

    private WritePlan(long seed, long total, int maxWrite) {
        if (maxWrite <= SEND_THRESHOLD) {
            throw new IllegalArgumentException("maxWrite: " + maxWrite + " (expected: > " + SEND_THRESHOLD + ')');
        }
        this.random = new Random(seed);
        this.remaining = total;
        this.maxWrite = maxWrite;
        // Both sides of the threshold come first, so even a short plan takes both paths.
        first = new int[] {1, SEND_THRESHOLD, SEND_THRESHOLD + 1, maxWrite};
    }

    /** A plan of exactly {@code total} bytes in writes of 1 to {@code maxWrite} bytes. */
    public static WritePlan of(long seed, long total, int maxWrite) {
        return new WritePlan(seed, total, maxWrite);
    }

    /** A plan that goes on until {@link #stop()}. */
    public static WritePlan untilStopped(long seed, int maxWrite) {
        return new WritePlan(seed, Long.MAX_VALUE, maxWrite);
    }

    public boolean hasNext() {
        return remaining > 0 && !stopped;
    }

    public void stop() {
        stopped = true;
    }

    /** Returns the sizes of the next group of writes, which the writer flushes together. */
    public int[] nextGroup() {
        int[] sizes = first != null ? first : draw();
        first = null;
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = (int) Math.min(sizes[i], remaining);
            remaining -= sizes[i];
            if (remaining == 0) {
                return java.util.Arrays.copyOf(sizes, i + 1);
            }
        }
        return sizes;
    }

    private int[] draw() {
        int kind = random.nextInt(10);
        if (kind < 2) {
            int[] burst = new int[50 + random.nextInt(350)];
            for (int i = 0; i < burst.length; i++) {
                burst[i] = 1 + random.nextInt(TINY_MAX);
            }
            return burst;
        }
        if (kind < 6) {
            int[] small = new int[1 + random.nextInt(4)];
            for (int i = 0; i < small.length; i++) {
                small[i] = logUniform(1, SEND_THRESHOLD);
            }
            return small;
        }
        return new int[] {logUniform(SEND_THRESHOLD + 1, maxWrite)};
    }

    private int logUniform(int min, int max) {
        double exponent = Math.log(min) + random.nextDouble() * (Math.log(max) - Math.log(min));
        return (int) Math.max(min, Math.min(max, Math.round(Math.exp(exponent))));
    }
}
