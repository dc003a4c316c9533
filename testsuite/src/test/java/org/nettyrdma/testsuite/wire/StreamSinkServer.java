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

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.nettyrdma.channel.rdma.RdmaIoHandler;
import org.nettyrdma.channel.rdma.RdmaServerSocketChannel;

/**
 * The far end of {@link RdmaWireStreamTest}, run on the peer host by {@code scripts/lib/wire-peer}:
 * each connection sends an 8-byte length, then that many bytes; the server keeps their CRC32 and,
 * once all arrived, answers with 16 bytes, the count and the CRC32 (as longs), so that the sender
 * compares what left it with what arrived here. Prints {@code stream sink listening on ADDRESS}
 * once bound and a line per stream; runs until killed.
 *
 * <pre>
 * java ... org.nettyrdma.testsuite.wire.StreamSinkServer ADDRESS PORT
 * </pre>
 */
public final class StreamSinkServer {

    static final int HEADER_SIZE = Long.BYTES;
    static final int ANSWER_SIZE = 2 * Long.BYTES;

    private StreamSinkServer() {
    }

    /** Binds the sink to {@code args[0]} port {@code args[1]} and serves until killed. */
    public static void main(String[] args) throws InterruptedException {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: StreamSinkServer ADDRESS PORT");
        }
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());
        try {
            Channel server = new ServerBootstrap().group(group).channel(RdmaServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new Sink());
                        }
                    })
                    .bind(new InetSocketAddress(args[0], Integer.parseInt(args[1]))).sync().channel();
            System.out.println("stream sink listening on " + server.localAddress());
            server.closeFuture().sync();
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    /** One stream: the length, then the bytes, counted and checksummed; the answer once all came. */
    private static final class Sink extends ChannelInboundHandlerAdapter {
        private final CRC32 crc = new CRC32();
        private long length;
        private int headerBytes;
        private long received;
        private long startNanos;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf buf = (ByteBuf) msg;
            try {
                while (headerBytes < HEADER_SIZE && buf.isReadable()) {
                    length = length << 8 | buf.readUnsignedByte();
                    if (++headerBytes == HEADER_SIZE) {
                        startNanos = System.nanoTime();
                    }
                }
                int readable = buf.readableBytes();
                if (readable == 0) {
                    return;
                }
                if (received + readable > length) {
                    fail(ctx, "more bytes than the " + length + " announced");
                    return;
                }
                for (ByteBuffer piece : buf.nioBuffers()) {
                    crc.update(piece);
                }
                received += readable;
                if (received == length) {
                    answer(ctx);
                }
            } finally {
                buf.release();
            }
        }

        private void answer(ChannelHandlerContext ctx) {
            long nanos = System.nanoTime() - startNanos;
            System.out.printf("stream sink: %d bytes from %s in %d ms (%.1f MB/s), crc32 %08x%n", received,
                    ctx.channel().remoteAddress(), TimeUnit.NANOSECONDS.toMillis(nanos),
                    received * 1e3 / Math.max(nanos, 1), crc.getValue());
            ctx.writeAndFlush(ctx.alloc().buffer(ANSWER_SIZE).writeLong(received).writeLong(crc.getValue()));
        }

        private static void fail(ChannelHandlerContext ctx, String why) {
            System.out.println("stream sink: closing " + ctx.channel() + ": " + why);
            ctx.close();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            fail(ctx, cause.toString());
        }
    }
}
