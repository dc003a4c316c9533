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
package org.nettyrdma.benchmark;

import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.HdrHistogram.Histogram;

/**
 * The client end of the round-trip phase: sends a message, waits until as many bytes came back (in any
 * number of reads), records the time in a histogram, sends the next. The histogram is touched on the
 * channel's event loop only: {@link #reset()} and {@link #stop()} must run there.
 */
final class PingPong extends ChannelInboundHandlerAdapter {

    /** Longer round trips are recorded as this: the histogram never resizes, so never allocates. */
    private static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final int size;
    private final Histogram histogram = new Histogram(HIGHEST_NANOS, 3);
    private long sentAt;
    private int awaited;
    private boolean stopped;
    private ChannelHandlerContext ctx;
    private volatile long roundTrips;
    private volatile Throwable failure;

    PingPong(int size) {
        this.size = size;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        ctx.fireChannelActive();
        send(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf buf = (ByteBuf) msg;
        awaited -= buf.readableBytes();
        buf.release();
        if (awaited > 0) {
            return;
        }
        if (awaited < 0) {
            exceptionCaught(ctx, new IllegalStateException("the echo server answered more bytes than sent"));
            return;
        }
        histogram.recordValue(Math.min(System.nanoTime() - sentAt, HIGHEST_NANOS));
        // One writer (the event loop): a volatile read and write, no atomic operation needed.
        roundTrips = roundTrips + 1;
        if (!stopped) {
            send(ctx);
        }
    }

    private void send(ChannelHandlerContext ctx) {
        awaited = size;
        sentAt = System.nanoTime();
        ctx.writeAndFlush(ctx.alloc().directBuffer(size, size).writerIndex(size), ctx.voidPromise());
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        failure = cause;
        ctx.close();
    }

    /** Forgets the warm-up: clears the histogram and the count. On the event loop. */
    void reset() {
        histogram.reset();
        roundTrips = 0;
    }

    /** Sends no more and returns a copy of the histogram. On the event loop. */
    Histogram stop() {
        stopped = true;
        return histogram.copy();
    }

    /**
     * Sends again after {@link #stop()}, on the same connection: at once if no message is in flight,
     * else when the echo of the one in flight arrives. On the event loop.
     */
    void resume() {
        stopped = false;
        if (awaited == 0) {
            send(ctx);
        }
    }

    long roundTrips() {
        return roundTrips;
    }

    Throwable failure() {
        return failure;
    }
}
