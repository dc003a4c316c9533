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
package org.nettyrdma.testsuite.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A stream one way across the wire: 64 MiB to the peer host's {@link StreamSinkServer}, written as a
 * Netty application writes (while the channel is writable), and the CRC32 that the peer computed over
 * what arrived must be the one computed here over what was written.
 */
@Order(2) // with ClassOrderer.OrderAnnotation, as scripts/two-hosts runs them; see RdmaWirePeerPowerOffTest
class RdmaWireStreamTest {

    private static final long LENGTH = 64L << 20;
    private static final int CHUNK = 64 << 10;

    @RegisterExtension
    final WireFixture wire = new WireFixture();

    @Test
    void streamsOneWayAcrossTheWire() throws Exception {
        Source source = new Source(LENGTH);
        Channel channel = wire.client().handler(source).connect(TwoHosts.peer(TwoHosts.STREAM_PORT)).sync().channel();
        long[] answer = source.answer.get(100, TimeUnit.SECONDS);
        long nanos = System.nanoTime() - source.startNanos;
        channel.close().sync();

        assertEquals(LENGTH, answer[0], "bytes that arrived at the peer");
        assertEquals(source.crc.getValue(), answer[1], () -> String.format(
                "CRC32 at the peer %08x, here %08x", answer[1], source.crc.getValue()));
        // Printed, not asserted: under emulation the figure says little but that data moved.
        System.out.printf("wire: stream of %d bytes one way across the wire: %.1f s, %.2f MB/s, crc32 %08x on both"
                + " ends%n", LENGTH, nanos / 1e9, LENGTH * 1e3 / nanos, answer[1]);
    }

    /**
     * Writes the length, then the bytes while the channel is writable, checksumming what it writes;
     * reads the peer's answer.
     */
    private static final class Source extends ChannelInboundHandlerAdapter {
        final CompletableFuture<long[]> answer = new CompletableFuture<>();
        final CRC32 crc = new CRC32();
        volatile long startNanos;
        private final long length;
        /** Random bytes, a chunk longer than the window each chunk is cut from, so chunks differ. */
        private final byte[] pattern = new byte[(1 << 20) + CHUNK];
        private long written;
        private ByteBuf answerBytes;

        Source(long length) {
            this.length = length;
            new SplittableRandom(length).nextBytes(pattern);
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            answerBytes = ctx.alloc().heapBuffer(StreamSinkServer.ANSWER_SIZE);
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            answerBytes.release();
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            startNanos = System.nanoTime();
            ctx.write(ctx.alloc().buffer(StreamSinkServer.HEADER_SIZE).writeLong(length))
                    .addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
            writeWhileWritable(ctx);
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            writeWhileWritable(ctx);
        }

        private void writeWhileWritable(ChannelHandlerContext ctx) {
            while (written < length && ctx.channel().isWritable()) {
                int size = (int) Math.min(CHUNK, length - written);
                int from = (int) ((written / CHUNK * 4099) % (1 << 20));
                crc.update(ByteBuffer.wrap(pattern, from, size));
                ctx.write(ctx.alloc().buffer(size).writeBytes(pattern, from, size))
                        .addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
                written += size;
            }
            ctx.flush();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf buf = (ByteBuf) msg;
            try {
                if (buf.readableBytes() > answerBytes.writableBytes()) {
                    answer.completeExceptionally(new IllegalStateException("the peer answered more than 16 bytes"));
                    return;
                }
                answerBytes.writeBytes(buf);
                if (!answerBytes.isWritable()) {
                    answer.complete(new long[] {answerBytes.readLong(), answerBytes.readLong()});
                }
            } finally {
                buf.release();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            // Harmless once the answer came.
            answer.completeExceptionally(new ClosedChannelException());
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            answer.completeExceptionally(cause);
            ctx.close();
        }
    }
}
