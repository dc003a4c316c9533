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

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Promise;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaChannelOption;
import org.nettyrdma.channel.rdma.RdmaMemoryMetrics;
import org.nettyrdma.testkit.Await;
import org.nettyrdma.testkit.EchoHandler;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * The receive memory a burst of streaming connections grew on a loop's shared receive queue does not
 * stay at its peak: it goes when the burst's connections close, and where a connection stays on the
 * queue, as that connection's traffic cycles the receives the burst left posted. One loop, so that
 * every connection, client and server side, is on the same queue, which each of them asks for
 * ({@code SHARED_RECEIVE_QUEUE}): by default a connection has a queue of its own.
 */
class RdmaSharedReceiveShrinkTest {

    private static final int STREAMS = 8;
    private static final int MESSAGES = 400;
    private static final int MESSAGE_BYTES = 8 * 1024;
    /** Eight connections grown to 64 slots of 8 KiB hold 4 MiB; the test wants at least half of that. */
    private static final long GROWN = 2L << 20;
    /** What may stay: {@code SharedReceiveQueue.KEPT_WHEN_UNUSED} (4 chunks of 32 slots of 8 KiB) and a chunk. */
    private static final long KEPT = 5 * 32 * 8 * 1024;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(1);

    @Test
    void theBurstsReceiveMemoryGoesWhenItsConnectionsClose() throws Exception {
        long before = sharedReceiveBytes();
        Channel sink = rdma.bind(rdma.server().childOption(RdmaChannelOption.SHARED_RECEIVE_QUEUE, true).childHandler(new Sink()));
        long peak = stream(sink);
        assertTrue(peak - before >= GROWN, () -> "the streams grew the shared receive queue: "
                + before + " B before, " + peak + " B while they ran");
        long startedNanos = System.nanoTime();
        Await.until(() -> sharedReceiveBytes() <= before + KEPT, 20,
                () -> "shared receive memory: " + before + " B before the streams, " + peak + " B while they ran, "
                        + sharedReceiveBytes() + " B after they closed");
        System.out.printf("shared receive memory: %d B before the streams, %d B while they ran, %d B %d ms after "
                + "they closed%n", before, peak, sharedReceiveBytes(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos));
        sink.close().sync();
    }

    @Test
    void aConnectionThatStaysCyclesTheReceivesTheBurstLeftAndTheQueueShrinks() throws Exception {
        long before = sharedReceiveBytes();
        Channel echo = rdma.bind(rdma.server().childOption(RdmaChannelOption.SHARED_RECEIVE_QUEUE, true).childHandler(EchoHandler.INSTANCE));
        Channel sink = rdma.bind(rdma.server().childOption(RdmaChannelOption.SHARED_RECEIVE_QUEUE, true).childHandler(new Sink()));
        PingPong pingPong = new PingPong();
        Channel stays = rdma.client().option(RdmaChannelOption.SHARED_RECEIVE_QUEUE, true).handler(pingPong).connect(echo.localAddress()).sync().channel();
        long peak = stream(sink);
        assertTrue(peak - before >= GROWN, () -> "the streams grew the shared receive queue: "
                + before + " B before, " + peak + " B while they ran");
        long closed = sharedReceiveBytes();
        // Each round trip takes the oldest receive of the queue, on each side: twice the receives the
        // burst could have left posted cycles all of them.
        int roundTrips = (int) (2 * peak / MESSAGE_BYTES);
        pingPong.start(stays, roundTrips).await(120, TimeUnit.SECONDS);
        assertTrue(pingPong.done.isSuccess(), () -> roundTrips + " round trips: " + pingPong.done);
        long after = sharedReceiveBytes();
        System.out.printf("shared receive memory: %d B before the streams, %d B while they ran, %d B once they "
                + "closed, %d B after %d round trips on the connection that stayed%n", before, peak, closed, after,
                roundTrips);
        assertTrue(after <= before + KEPT, () -> "shared receive memory: " + before + " B before the streams, "
                + peak + " B while they ran, " + closed + " B once they closed, " + after + " B after "
                + roundTrips + " round trips on the connection that stayed");
        stays.close().sync();
        echo.close().sync();
        sink.close().sync();
    }

    private static long sharedReceiveBytes() {
        return RdmaMemoryMetrics.snapshot().sharedReceiveBytes();
    }

    /** Streams {@link #MESSAGES} full slots on each of {@link #STREAMS} connections, closes them; returns the peak. */
    private long stream(Channel sink) throws Exception {
        List<Channel> streams = new ArrayList<>();
        for (int i = 0; i < STREAMS; i++) {
            streams.add(rdma.client().option(RdmaChannelOption.SHARED_RECEIVE_QUEUE, true).handler(new ChannelInboundHandlerAdapter())
                    .connect(sink.localAddress()).sync().channel());
        }
        long peak = 0;
        for (int round = 0; round < MESSAGES / 50; round++) {
            List<ChannelFuture> written = new ArrayList<>();
            for (Channel stream : streams) {
                for (int i = 0; i < 50; i++) {
                    ByteBuf message = stream.alloc().buffer(MESSAGE_BYTES).writeZero(MESSAGE_BYTES);
                    written.add(stream.write(message));
                }
                stream.flush();
            }
            for (ChannelFuture future : written) {
                future.sync();
            }
            peak = Math.max(peak, sharedReceiveBytes());
        }
        for (Channel stream : streams) {
            stream.close().sync();
        }
        return peak;
    }

    /** Reads and drops. */
    @ChannelHandler.Sharable
    private static final class Sink extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
        }
    }

    /** Sends 64 B, waits for it to come back, again, a given number of times. */
    private static final class PingPong extends ChannelInboundHandlerAdapter {
        private static final int SIZE = 64;
        private int left;
        private int pending;
        Promise<Void> done;

        Promise<Void> start(Channel channel, int roundTrips) throws Exception {
            return channel.eventLoop().submit(() -> {
                done = channel.eventLoop().newPromise();
                left = roundTrips;
                send(channel);
                return done;
            }).get();
        }

        private void send(Channel channel) {
            pending = SIZE;
            channel.writeAndFlush(channel.alloc().buffer(SIZE).writeZero(SIZE));
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            pending -= ((ByteBuf) msg).readableBytes();
            ReferenceCountUtil.release(msg);
            if (pending > 0) {
                return;
            }
            if (--left == 0) {
                done.trySuccess(null);
            } else {
                send(ctx.channel());
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (done != null) {
                done.tryFailure(cause);
            }
        }
    }
}
