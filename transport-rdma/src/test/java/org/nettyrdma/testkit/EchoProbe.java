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

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;

/**
 * The client end of an echo test: writes seeded random bytes in pieces of the given sizes, each its
 * own flush, and collects what the server echoes until it has as many bytes back.
 */
public final class EchoProbe extends SimpleChannelInboundHandler<ByteBuf> {

    private final int[] sizes;
    private final byte[] expected;
    private final ByteBuf received;
    private final CompletableFuture<Void> done = new CompletableFuture<>();

    public EchoProbe(long seed, int... sizes) {
        this.sizes = sizes.clone();
        int total = 0;
        for (int size : sizes) {
            total += size;
        }
        expected = new byte[total];
        new Random(seed).nextBytes(expected);
        received = Unpooled.buffer(total);
    }

    /** Returns the bytes of all pieces together. */
    public int totalBytes() {
        return expected.length;
    }

    /** Returns how many pieces that carry bytes {@link #writeAll} writes, each in a flush of its own. */
    public int nonEmptyPieces() {
        int pieces = 0;
        for (int size : sizes) {
            if (size > 0) {
                pieces++;
            }
        }
        return pieces;
    }

    /** Writes every piece, waiting for each write to complete before the next. */
    public void writeAll(Channel channel) throws InterruptedException {
        int offset = 0;
        for (int size : sizes) {
            channel.writeAndFlush(Unpooled.wrappedBuffer(expected, offset, size)).sync();
            offset += size;
        }
    }

    /** Waits until every byte came back, and checks they are the bytes written, in order. */
    public void assertEchoed(long timeoutSeconds) throws Exception {
        done.get(timeoutSeconds, TimeUnit.SECONDS);
        byte[] actual = new byte[expected.length];
        received.readBytes(actual);
        received.release();
        assertArrayEquals(expected, actual);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
        received.writeBytes(msg);
        if (received.readableBytes() == expected.length) {
            done.complete(null);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        done.completeExceptionally(cause);
    }
}
