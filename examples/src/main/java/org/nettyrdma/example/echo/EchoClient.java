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
package org.nettyrdma.example.echo;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import org.nettyrdma.channel.rdma.RdmaFallbackReason;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.example.ExampleOptions;
import org.nettyrdma.example.Transport;

/**
 * Sends messages of random bytes to an {@link EchoServer}, one after another, and checks that each
 * comes back unchanged before it sends the next. Prints one line per message size, with the CRC32 of
 * the bytes sent and of the bytes that came back, and exits with status 0 when every byte came back;
 * otherwise the exception says what went wrong. Over RDMA, a connection that TCP carries instead
 * ({@code RdmaChannelOption.TCP_FALLBACK}: the server is a plain TCP server, say) says so in its line,
 * with the reason.
 *
 * <pre>
 * java ... org.nettyrdma.example.echo.EchoClient --transport rdma --host 10.77.0.1 --size 1,64k,4m --count 10
 * </pre>
 */
public final class EchoClient {

    private static final String USAGE = "usage: EchoClient [--transport rdma|rdma-busypoll|nio|epoll] "
            + "[--host ADDRESS] [--port " + EchoServer.DEFAULT_PORT + "] [--size BYTES[,BYTES...], default 256] "
            + "[--count MESSAGES, default 10]";
    private static final long TIMEOUT_SECONDS = 60;

    private EchoClient() {
    }

    /** Connects, echoes, prints the result. */
    public static void main(String[] args) throws Exception {
        ExampleOptions options = ExampleOptions.parse(USAGE, args);
        Transport transport = options.transport();
        InetSocketAddress address = options.address(EchoServer.DEFAULT_PORT);
        int[] sizes = options.integers("size", 256);
        int count = options.integer("count", 10);
        options.checkAllRead();

        EventLoopGroup group = transport.newEventLoopGroup(1);
        try {
            for (int size : sizes) {
                CRC32 sent = new CRC32();
                CRC32 echoed = new CRC32();
                Echoed result = echoOnce(group, transport, address, size, count, sent, echoed);
                System.out.printf("echo: %d messages of %d bytes over %s%s to %s came back unchanged, crc32 sent"
                        + " %08x, echoed %08x (%d ms)%n", count, size, transport.displayName(),
                        result.fallbackReason() == null ? "" : ", carried by TCP (" + result.fallbackReason() + "),",
                        address, sent.getValue(), echoed.getValue(), TimeUnit.NANOSECONDS.toMillis(result.nanos()));
            }
        } finally {
            group.shutdownGracefully();
        }
    }

    /**
     * Connects to the echo server at {@code address}, sends {@code count} messages of {@code size} random
     * bytes, each once the previous one came back, and closes. Returns the nanoseconds it took.
     *
     * @throws Exception if a message came back changed, the connection failed or closed early, or
     *         nothing happened for a minute
     */
    public static long echo(EventLoopGroup group, Transport transport, SocketAddress address, int size, int count)
            throws Exception {
        return echo(group, transport, address, size, count, new CRC32(), new CRC32());
    }

    /**
     * As {@link #echo(EventLoopGroup, Transport, SocketAddress, int, int)}, and updates {@code sent} with
     * every byte sent and {@code echoed} with every byte that came back, in order.
     */
    public static long echo(EventLoopGroup group, Transport transport, SocketAddress address, int size, int count,
            CRC32 sent, CRC32 echoed) throws Exception {
        return echoOnce(group, transport, address, size, count, sent, echoed).nanos();
    }

    /**
     * What one connection's echo took, and why TCP carried it: {@code null} for a channel of another
     * transport, or one that RDMA carried ({@link RdmaSocketChannel#fallbackReason()}).
     */
    private record Echoed(long nanos, RdmaFallbackReason fallbackReason) {
    }

    private static Echoed echoOnce(EventLoopGroup group, Transport transport, SocketAddress address, int size,
            int count, CRC32 sent, CRC32 echoed) throws Exception {
        if (size < 1 || count < 1) {
            throw new IllegalArgumentException("size: " + size + ", count: " + count + " (expected: >= 1)");
        }
        long start = System.nanoTime();
        CompletableFuture<Void> done = new CompletableFuture<>();
        Channel channel = new Bootstrap()
                .group(group)
                .channel(transport.socketChannelClass())
                .handler(new EchoClientHandler(size, count, done, sent, echoed))
                .connect(address).sync().channel();
        RdmaFallbackReason reason = channel instanceof RdmaSocketChannel
                ? ((RdmaSocketChannel) channel).fallbackReason() : null;
        try {
            done.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } finally {
            channel.close().sync();
        }
        return new Echoed(System.nanoTime() - start, reason);
    }

    /** Sends a message, collects its echo (which may arrive in pieces), compares, sends the next. */
    private static final class EchoClientHandler extends SimpleChannelInboundHandler<ByteBuf> {
        private final int count;
        private final CompletableFuture<Void> done;
        private final byte[] sent;
        private final CRC32 sentChecksum;
        private final CRC32 echoedChecksum;
        private ByteBuf echoed;
        private int completed;

        EchoClientHandler(int size, int count, CompletableFuture<Void> done, CRC32 sentChecksum,
                CRC32 echoedChecksum) {
            this.count = count;
            this.done = done;
            this.sent = new byte[size];
            this.sentChecksum = sentChecksum;
            this.echoedChecksum = echoedChecksum;
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            echoed = ctx.alloc().buffer(sent.length);
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            echoed.release();
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            send(ctx);
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
            if (msg.readableBytes() > sent.length - echoed.readableBytes()) {
                fail(ctx, new IllegalStateException("more bytes came back than message " + completed + " had"));
                return;
            }
            // nioBuffers(): a composite piece is read in place, not merged into a copy first.
            for (ByteBuffer piece : msg.nioBuffers()) {
                echoedChecksum.update(piece);
            }
            echoed.writeBytes(msg);
            if (echoed.readableBytes() < sent.length) {
                return;
            }
            if (!ByteBufUtil.equals(echoed, Unpooled.wrappedBuffer(sent))) {
                fail(ctx, new IllegalStateException("message " + completed + " came back changed"));
                return;
            }
            echoed.clear();
            if (++completed == count) {
                done.complete(null);
            } else {
                send(ctx);
            }
        }

        private void send(ChannelHandlerContext ctx) {
            ThreadLocalRandom.current().nextBytes(sent);
            sentChecksum.update(sent);
            ctx.writeAndFlush(Unpooled.copiedBuffer(sent));
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            // Harmless once every echo arrived: the future is already complete.
            done.completeExceptionally(new ClosedChannelException());
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            fail(ctx, cause);
        }

        private void fail(ChannelHandlerContext ctx, Throwable cause) {
            done.completeExceptionally(cause);
            ctx.close();
        }
    }
}
