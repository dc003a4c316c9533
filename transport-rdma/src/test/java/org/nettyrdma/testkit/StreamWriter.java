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
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.CRC32;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Writes a {@link TestStream} in the groups of a {@link WritePlan}, as a Netty application should:
 * while the channel is writable, one flush per group, and again when it becomes writable. It
 * checksums what it writes and follows every write's promise.
 *
 * <p>{@link #done()} completes with the stream's digest when the plan is exhausted and every write
 * succeeded, or fails with the first write's failure. Counters are written on the event loop and may
 * be read from any thread.
 */
public final class StreamWriter extends ChannelInboundHandlerAdapter {

    private final TestStream stream;
    private final WritePlan plan;
    private final CRC32 crc = new CRC32();
    private final CompletableFuture<StreamDigest> done = new CompletableFuture<>();
    private final List<Throwable> writeFailures = new CopyOnWriteArrayList<>();
    private ChannelHandlerContext ctx;
    private volatile long queuedBytes;
    private volatile long confirmedBytes;
    private volatile int pendingWrites;
    private volatile int largestWrite;

    public StreamWriter(long seed, WritePlan plan) {
        this.stream = new TestStream(seed);
        this.plan = plan;
    }

    public CompletableFuture<StreamDigest> done() {
        return done;
    }

    /** Bytes handed to the channel so far. */
    public long queuedBytes() {
        return queuedBytes;
    }

    /** Bytes whose write promises succeeded. */
    public long confirmedBytes() {
        return confirmedBytes;
    }

    /** Writes whose promises have not completed yet. */
    public int pendingWrites() {
        return pendingWrites;
    }

    public int largestWrite() {
        return largestWrite;
    }

    /** The failures of write promises, in the order they came. */
    public List<Throwable> writeFailures() {
        return writeFailures;
    }

    /** Ends an open-ended plan: no more groups are written, {@link #done()} follows the last write. */
    public void stop() {
        plan.stop();
        ctx.executor().execute(this::finishIfDone);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        pump();
        ctx.fireChannelActive();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        pump();
        ctx.fireChannelWritabilityChanged();
    }

    private void pump() {
        while (ctx.channel().isWritable() && plan.hasNext() && !done.isDone()) {
            for (int size : plan.nextGroup()) {
                ByteBuf buf = ctx.alloc().buffer(size);
                stream.write(buf, queuedBytes, size);
                for (ByteBuffer nio : buf.nioBuffers()) {
                    crc.update(nio);
                }
                queuedBytes += size;
                largestWrite = Math.max(largestWrite, size);
                pendingWrites++;
                ctx.write(buf).addListener((ChannelFutureListener) f -> written(f, size));
            }
            ctx.flush();
        }
        finishIfDone();
    }

    private void written(ChannelFuture future, int size) {
        pendingWrites--;
        if (future.isSuccess()) {
            confirmedBytes += size;
        } else {
            writeFailures.add(future.cause());
            done.completeExceptionally(future.cause());
        }
        finishIfDone();
    }

    private void finishIfDone() {
        if (!plan.hasNext() && pendingWrites == 0 && !done.isDone()) {
            done.complete(new StreamDigest(queuedBytes, crc.getValue()));
        }
    }
}
