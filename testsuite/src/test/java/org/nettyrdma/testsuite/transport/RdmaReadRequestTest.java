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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * A reader with {@code AUTO_READ} off that asks for one byte per {@code read()}, as Netty's
 * {@code SocketHalfClosedTest} does: every byte arrives in order, and however many reads it asks for,
 * the channel keeps at most one read queued on its loop. A task per {@code read()} call piled up
 * thousands of them, which made that test crawl under emulation.
 */
class RdmaReadRequestTest {

    private static final int TOTAL = 2 << 10;
    /** The reader's own read task, and room for whatever else its loop was asked to do meanwhile. */
    private static final int MAX_QUEUED_TASKS = 4;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    @Test
    void aByteAtATimeArrivesInOrderWithOneReadQueued() throws Exception {
        OneByteReader reader = new OneByteReader();
        Channel server = rdma.bind(rdma.server()
                .childOption(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.RECVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(1))
                .childHandler(reader));
        Channel client = rdma.client().handler(new ChannelInboundHandlerAdapter())
                .connect(server.localAddress()).sync().channel();
        ByteBuf data = client.alloc().buffer(TOTAL);
        for (int i = 0; i < TOTAL; i++) {
            data.writeByte(i % 251);
        }
        client.writeAndFlush(data).sync();

        int read = reader.done.get(60, TimeUnit.SECONDS);
        assertEquals(TOTAL, read, "bytes read in order");
        assertTrue(reader.maxQueuedTasks <= MAX_QUEUED_TASKS, () -> "tasks queued on the reader's loop while it "
                + "read a byte per read(): at most " + reader.maxQueuedTasks + ", expected at most "
                + MAX_QUEUED_TASKS);

        client.close().sync();
        server.close().sync();
    }

    /** Reads one byte per {@code read()}, checks each, and asks for the next in channelReadComplete. */
    private static final class OneByteReader extends ChannelInboundHandlerAdapter {
        final CompletableFuture<Integer> done = new CompletableFuture<>();
        private int bytes;
        volatile int maxQueuedTasks;

        @Override
        public boolean isSharable() {
            return true;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            ctx.read();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf buf = (ByteBuf) msg;
            try {
                while (buf.isReadable()) {
                    int expected = bytes % 251;
                    int actual = buf.readUnsignedByte();
                    if (actual != expected) {
                        done.completeExceptionally(new AssertionError("byte " + bytes + " is " + actual
                                + ", expected " + expected));
                    }
                    bytes++;
                }
            } finally {
                buf.release();
            }
            int queued = ((SingleThreadEventExecutor) ctx.executor()).pendingTasks();
            if (queued > maxQueuedTasks) {
                maxQueuedTasks = queued;
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            if (bytes == TOTAL) {
                done.complete(bytes);
            } else {
                ctx.read();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            done.completeExceptionally(cause);
            ctx.close();
        }
    }
}
