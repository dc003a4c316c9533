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

import java.util.concurrent.CompletableFuture;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;

/**
 * The client of a ping-pong against an echo server: sends each echo of a {@value #MESSAGE}-byte
 * message back as the next request, {@code total} times or until stopped. The test writes the first.
 */
final class PingPongHandler extends SimpleChannelInboundHandler<ByteBuf> {
    /** The size of each request and echo. */
    static final int MESSAGE = 64;

    final CompletableFuture<Integer> done = new CompletableFuture<>();
    volatile boolean stopped;
    volatile int roundTrips;
    private final int total;
    private int received;

    PingPongHandler(int total) {
        this.total = total;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
        received += msg.readableBytes();
        if (received < MESSAGE) {
            return;
        }
        received -= MESSAGE;
        // One writer (the event loop): a volatile read and write, no atomic operation needed.
        roundTrips = roundTrips + 1;
        if (roundTrips == total) {
            done.complete(roundTrips);
        } else if (!stopped) {
            ctx.writeAndFlush(Unpooled.wrappedBuffer(new byte[MESSAGE]));
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        done.completeExceptionally(cause);
    }
}
