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
package org.nettyrdma.testsuite.transport;

import java.util.concurrent.atomic.AtomicLong;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Keeps a connection busy for a fault test: writes buffers of registered memory (64 KiB unless told)
 * as fast as the connection takes them, each with the given listener, and counts and drops what
 * arrives.
 */
final class FloodHandler extends ChannelInboundHandlerAdapter {

    private final int writeSize;
    private final ChannelFutureListener onWrite;
    private final AtomicLong received = new AtomicLong();

    FloodHandler(ChannelFutureListener onWrite) {
        this(64 * 1024, onWrite);
    }

    FloodHandler(int writeSize, ChannelFutureListener onWrite) {
        this.writeSize = writeSize;
        this.onWrite = onWrite;
    }

    /** Returns the bytes received so far; from any thread. */
    long receivedBytes() {
        return received.get();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        pump(ctx);
        ctx.fireChannelActive();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        pump(ctx);
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf buf = (ByteBuf) msg;
        received.addAndGet(buf.readableBytes());
        buf.release();
    }

    private void pump(ChannelHandlerContext ctx) {
        while (ctx.channel().isActive() && ctx.channel().isWritable()) {
            ByteBuf buf = ctx.alloc().directBuffer(writeSize);
            buf.writerIndex(writeSize);
            ctx.writeAndFlush(buf).addListener(onWrite);
        }
    }
}
