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

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.FixedRecvByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaChannelOption;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.testkit.Await;
import org.nettyrdma.testkit.ExceptionRecorder;
import org.nettyrdma.testkit.RdmaTransportFixture;
import org.nettyrdma.testkit.RnrCounters;

/**
 * A credit promises a posted receive. The client holds the server's first messages unread
 * ({@code AUTO_READ} off), then reads them in one read loop and answers from inside the loop, dawdling
 * in the handler: each message from {@code channelRead}, or once from {@code channelReadComplete},
 * which the transport fires before it posts the loop's slots. Each answer is a header the server
 * reads at once, and the server has more to send: a credit in it for a slot not posted yet would be
 * used before the post. A Send that finds no receive posted is answered with an RNR NAK and retried by the
 * sender's device (rnr_retry 7, without end): no data is lost, but the promise was broken, and the
 * device's counters (rxe keeps them in sysfs) show it. The test asserts that they do not move.
 *
 * <p>The transport credits a read loop's reposted slots once they are posted, after
 * {@code channelReadComplete} (docs/decisions.md#credit-posted-receives-only). The test guards that
 * rule; it is not shown to catch a break of it, since in the VM the server's next Send may not
 * arrive inside the window (docs/protocol.md#flow-control).
 */
class RdmaReceiveCreditTest {

    private static final int SLOTS = 4;
    private static final int SLOT_SIZE = 256;
    /** A full slot: every message of the server's is a Send of its own, one slot each. */
    private static final int MESSAGE = SLOT_SIZE - 16;
    private static final int MESSAGES = 40;
    /** Long enough, even emulated, for the server to take a credit and Send before the client posts. */
    private static final long DAWDLE_MILLIS = 5;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    @Test
    void answersFromChannelReadCreditOnlyPostedSlots() throws Exception {
        exchange(false);
    }

    @Test
    void answersFromChannelReadCompleteCreditOnlyPostedSlots() throws Exception {
        exchange(true);
    }

    private void exchange(boolean answerOnReadComplete) throws Exception {
        Map<String, Long> before = RnrCounters.read();
        Channel server = rdma.bind(rdma.server().childHandler(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelActive(ChannelHandlerContext ctx) {
                for (int i = 0; i < MESSAGES; i++) {
                    // Each flushed alone; the client's three slots hold them back until it reads.
                    ctx.writeAndFlush(ctx.alloc().buffer(MESSAGE).writeZero(MESSAGE), ctx.voidPromise());
                }
            }

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ((ByteBuf) msg).release();
            }
        }));
        AtomicLong received = new AtomicLong();
        AtomicInteger firstLoopReads = new AtomicInteger();
        ExceptionRecorder errors = new ExceptionRecorder();
        RdmaSocketChannel client = (RdmaSocketChannel) rdma.client()
                .option(ChannelOption.AUTO_READ, false)
                .option(RdmaChannelOption.RECEIVE_SLOTS, SLOTS)
                .option(RdmaChannelOption.SLOT_SIZE, SLOT_SIZE)
                // The read loop goes on while messages wait, whatever the buffers' capacity (an
                // allocator made here reads one message per loop unless told otherwise).
                .option(ChannelOption.RECVBUF_ALLOCATOR,
                        new FixedRecvByteBufAllocator(MESSAGE).respectMaybeMoreData(false).maxMessagesPerRead(16))
                .handler(RdmaTransportFixture.pipeline(new ChannelInboundHandlerAdapter() {
                    private boolean firstLoop = true;

                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) throws InterruptedException {
                        ByteBuf buf = (ByteBuf) msg;
                        received.addAndGet(buf.readableBytes());
                        buf.release();
                        if (firstLoop) {
                            firstLoopReads.incrementAndGet();
                        }
                        if (!answerOnReadComplete) {
                            answer(ctx);
                        }
                    }

                    @Override
                    public void channelReadComplete(ChannelHandlerContext ctx) throws InterruptedException {
                        firstLoop = false;
                        if (answerOnReadComplete) {
                            answer(ctx);
                        }
                    }

                    private void answer(ChannelHandlerContext ctx) throws InterruptedException {
                        ctx.writeAndFlush(ctx.alloc().buffer(1).writeByte(1), ctx.voidPromise());
                        Thread.sleep(DAWDLE_MILLIS);
                    }
                }, errors))
                .connect(server.localAddress()).sync().channel();
        // The server's first two messages (all the client's slots allow) wait unread, then one loop reads them.
        Await.until(() -> client.metrics().receivedSends() >= 2, 30, () -> "messages arrived: " + client.metrics());
        client.config().setAutoRead(true);

        Await.until(() -> received.get() == (long) MESSAGES * MESSAGE, 60,
                () -> "received " + received.get() + " of " + MESSAGES * MESSAGE + " bytes");
        assertEquals(List.of(), errors.exceptions(), "client exceptions");
        assertTrue(firstLoopReads.get() >= 2, () -> "the first read loop read " + firstLoopReads.get()
                + " messages: the case needs two or more, answered before the loop ends");
        Map<String, Long> after = RnrCounters.read();
        assertEquals(before, after, "RNR NAKs on the device: a Send found its credited slot not posted");

        client.close().sync();
        server.close().sync();
    }
}
