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

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import org.HdrHistogram.Histogram;

/**
 * Opens connections to one server one after another, as a client that connects per request does: a
 * connect, one {@value #MESSAGE_BYTES} B message echoed, a close that completes before the next connect.
 * Records, for each connection, the time from {@code connect()} to the channel active (set-up) and to
 * the echo's last byte back (a usable channel), on the channel's event loop, so that no hand-over
 * between threads is counted; and the wall time of the whole run, for connects per second. Every
 * channel passes a check before it closes: a failed check ends the run. Used by one thread.
 */
final class SequentialConnects {

    /** The message each connection echoes once. */
    static final int MESSAGE_BYTES = 64;

    /** A step (connect, echo, close) that takes longer is stuck: the transports' own timeouts are shorter. */
    private static final long STEP_SECONDS = 60;
    private static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(STEP_SECONDS * 2);
    private static final byte[] MESSAGE = new byte[MESSAGE_BYTES];

    /** What a run measured: set-up and usable times in nanoseconds, and the wall time of all connects. */
    record Figures(Histogram setUpNanos, Histogram usableNanos, long wallNanos) {

        /** Returns the connects completed per second of the run's wall time. */
        double connectsPerSecond() {
            return setUpNanos.getTotalCount() / (wallNanos / 1e9);
        }
    }

    private final Bootstrap bootstrap;
    private final SocketAddress server;
    private final Consumer<Channel> check;

    /**
     * Connects with {@code bootstrap}'s group, channel class and options (not its handler) to
     * {@code server}; {@code check} throws an {@link IllegalStateException} for a channel that is not
     * what the run measures (carried by the wrong transport, say).
     */
    SequentialConnects(Bootstrap bootstrap, SocketAddress server, Consumer<Channel> check) {
        this.bootstrap = bootstrap.clone();
        this.server = server;
        this.check = check;
    }

    /**
     * Runs {@code connects} connections, one after another.
     *
     * @throws IOException if a connection failed, its echo did not come back, or it failed the check
     */
    Figures run(int connects) throws IOException, InterruptedException {
        Histogram setUp = new Histogram(HIGHEST_NANOS, 3);
        Histogram usable = new Histogram(HIGHEST_NANOS, 3);
        long start = System.nanoTime();
        for (int i = 0; i < connects; i++) {
            FirstEcho probe = new FirstEcho(System.nanoTime());
            ChannelFuture connect = bootstrap.handler(probe).connect(server);
            connect.addListener(future -> {
                if (!future.isSuccess()) {
                    probe.echoed.completeExceptionally(future.cause());
                }
            });
            try {
                probe.echoed.get(STEP_SECONDS, TimeUnit.SECONDS);
                check.accept(connect.channel());
            } catch (ExecutionException e) {
                throw new IOException("connect " + (i + 1) + " of " + connects + " to " + server + ": " + e.getCause(),
                        e.getCause());
            } catch (TimeoutException e) {
                throw new IOException("connect " + (i + 1) + " of " + connects + " to " + server
                        + ": no echo in " + STEP_SECONDS + " s");
            } catch (IllegalStateException e) {
                throw new IOException("connect " + (i + 1) + " of " + connects + " to " + server + ": "
                        + e.getMessage());
            } finally {
                connect.channel().close().await(STEP_SECONDS, TimeUnit.SECONDS);
            }
            setUp.recordValue(Math.min(probe.setUpNanos, HIGHEST_NANOS));
            usable.recordValue(Math.min(probe.usableNanos, HIGHEST_NANOS));
        }
        return new Figures(setUp, usable, System.nanoTime() - start);
    }

    /**
     * Times one connection: writes the message once the channel is active and completes {@link #echoed}
     * when all of it came back. The times are written on the event loop before the future completes,
     * which makes them visible to the thread that waited for it.
     */
    private static final class FirstEcho extends ChannelInboundHandlerAdapter {
        final CompletableFuture<Void> echoed = new CompletableFuture<>();
        private final long connectAt;
        private long setUpNanos;
        private long usableNanos;
        private int received;

        FirstEcho(long connectAt) {
            this.connectAt = connectAt;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            setUpNanos = System.nanoTime() - connectAt;
            ctx.writeAndFlush(Unpooled.wrappedBuffer(MESSAGE));
            ctx.fireChannelActive();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                received += ((ByteBuf) msg).readableBytes();
            } finally {
                ReferenceCountUtil.release(msg);
            }
            if (received >= MESSAGE_BYTES && !echoed.isDone()) {
                usableNanos = System.nanoTime() - connectAt;
                echoed.complete(null);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            // Harmless once the echo came back: the future is complete already.
            echoed.completeExceptionally(new ClosedChannelException());
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            echoed.completeExceptionally(cause);
            ctx.close();
        }
    }
}
