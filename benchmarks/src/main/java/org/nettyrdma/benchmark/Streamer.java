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

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * The client end of the streaming phase: writes messages of one size as long as the channel is
 * writable, flushes, and goes on when it is writable again, until stopped. Each message is a fresh
 * buffer from the channel's allocator, as an application's encoder would produce.
 */
final class Streamer extends ChannelInboundHandlerAdapter {

    private final int size;
    private volatile boolean stopped;
    private volatile Throwable failure;

    Streamer(int size) {
        this.size = size;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        ctx.fireChannelActive();
        pump(ctx);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        ctx.fireChannelWritabilityChanged();
        if (ctx.channel().isWritable()) {
            pump(ctx);
        }
    }

    private void pump(ChannelHandlerContext ctx) {
        // The content does not matter to the transport: no time is spent filling it.
        while (!stopped && ctx.channel().isWritable()) {
            ctx.write(ctx.alloc().directBuffer(size, size).writerIndex(size), ctx.voidPromise());
        }
        ctx.flush();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        failure = cause;
        ctx.close();
    }

    /** Stops writing; messages already written still go out. Any thread. */
    void stop() {
        stopped = true;
    }

    Throwable failure() {
        return failure;
    }
}
