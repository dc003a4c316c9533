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

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.zip.CRC32;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Reads a {@link TestStream}: checks every received byte against the stream at its offset (so a
 * lost, doubled, reordered or corrupted piece is named by its offset), keeps the CRC32 and length of
 * what arrived, and releases every buffer.
 *
 * <p>{@link #digestAt(long)} completes once that many bytes arrived; it fails on a wrong byte, on more
 * bytes than expected, or when the channel closes first.
 */
public final class StreamReader extends ChannelInboundHandlerAdapter {

    private final TestStream stream;
    private final CRC32 crc = new CRC32();
    private final CompletableFuture<StreamDigest> digest = new CompletableFuture<>();
    private volatile long receivedBytes;
    private long expectedBytes = -1;
    private boolean closed;

    public StreamReader(long seed) {
        this.stream = new TestStream(seed);
    }

    /** Bytes received so far. */
    public long receivedBytes() {
        return receivedBytes;
    }

    /** Returns the digest of the stream once {@code length} bytes arrived. */
    public synchronized CompletableFuture<StreamDigest> digestAt(long length) {
        expectedBytes = length;
        check();
        return digest;
    }

    /**
     * Waits until {@code length} bytes arrived, every one as the stream has it: for a point inside the
     * stream, where {@link #digestAt} is for its end.
     *
     * @throws AssertionError if a byte was wrong, or the bytes did not arrive in time
     */
    public void awaitReceived(long length, long seconds) throws InterruptedException {
        Await.until(() -> receivedBytes >= length || digest.isCompletedExceptionally(), seconds,
                () -> receivedBytes + " of " + length + " bytes arrived");
        if (digest.isCompletedExceptionally()) {
            try {
                digest.join();
            } catch (CompletionException e) {
                throw new AssertionError("the stream before byte " + length + " is wrong", e.getCause());
            }
        }
        if (receivedBytes != length) {
            throw new AssertionError(receivedBytes + " bytes arrived, expected " + length);
        }
    }

    /** Fails if a byte was wrong, and never completes otherwise: for a stream cut off by a close. */
    public CompletableFuture<StreamDigest> errors() {
        return digest;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf buf = (ByteBuf) msg;
        try {
            synchronized (this) {
                long position = receivedBytes;
                long wrong = stream.firstMismatch(buf, position);
                if (wrong >= 0) {
                    byte actual = buf.getByte(buf.readerIndex() + (int) (wrong - position));
                    digest.completeExceptionally(new AssertionError("stream byte " + wrong + " is "
                            + actual + ", expected " + stream.byteAt(wrong) + " (read of "
                            + buf.readableBytes() + " bytes at " + position + ", seed " + stream.seed() + ')'));
                }
                for (ByteBuffer nio : buf.nioBuffers()) {
                    crc.update(nio);
                }
                receivedBytes = position + buf.readableBytes();
                check();
            }
        } finally {
            buf.release();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        synchronized (this) {
            closed = true;
            check();
        }
        ctx.fireChannelInactive();
    }

    private void check() {
        if (expectedBytes < 0 || digest.isDone()) {
            return;
        }
        if (receivedBytes > expectedBytes) {
            digest.completeExceptionally(new AssertionError(receivedBytes + " bytes arrived, expected "
                    + expectedBytes));
        } else if (receivedBytes == expectedBytes) {
            digest.complete(new StreamDigest(receivedBytes, crc.getValue()));
        } else if (closed) {
            digest.completeExceptionally(new AssertionError("channel closed after " + receivedBytes + " of "
                    + expectedBytes + " bytes"));
        }
    }
}
