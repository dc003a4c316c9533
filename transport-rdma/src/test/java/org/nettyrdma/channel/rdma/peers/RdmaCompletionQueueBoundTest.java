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
package org.nettyrdma.channel.rdma.peers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.CompletionQueueProbe;
import org.nettyrdma.channel.rdma.RdmaIoHandlerConfig;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.channel.rdma.loop.CompletionQueue;
import org.nettyrdma.channel.rdma.protocol.MessageHeader;
import org.nettyrdma.channel.rdma.protocol.RdmaProtocol;
import org.nettyrdma.channel.rdma.verbs.RawRdmaClient;
import org.nettyrdma.testkit.Await;
import org.nettyrdma.testkit.EchoHandler;
import org.nettyrdma.testkit.ExceptionRecorder;
import org.nettyrdma.testkit.RdmaTransportFixture;
import org.nettyrdma.testkit.TestSeed;

/**
 * No completion queue of a loop can be overrun, whatever a peer sends
 * (docs/decisions.md#completion-queue-bound), and one that fails costs only the channels on it. The
 * loop's queues are small here, 64 entries (a connection that needs more gets a queue of its size),
 * so that a burst outnumbers them many times over; one loop carries every connection.
 */
class RdmaCompletionQueueBoundTest {

    private static final int CQ_ENTRIES = 64;
    /** Sends beyond any credit: many times what the shared receive queue and its completion queue hold. */
    private static final int BURST = 3000;
    private static final int GRANTED_SLOTS = RawRdmaClient.RECEIVES - 2;
    private static final long TIMEOUT_SECONDS = 30;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(1,
            new RdmaIoHandlerConfig().setCompletionQueueEntries(CQ_ENTRIES));

    /**
     * A raw peer bursts {@code CREDIT}s beyond its credit, half its send queue in flight at a time,
     * into its connection's own receive queue (the default), on a loop whose queues are far smaller
     * than the burst: the device reports no completion queue in error, since the queue pair completes
     * no more receives than its queue holds and its connection reserved; the offender's connection
     * fails, and the well-behaved stream on the same loop finishes intact.
     */
    @Test
    void aBurstBeyondTheCreditOverrunsNoCompletionQueue(TestInfo test) throws Exception {
        long errorsBefore = CompletionQueue.errors();
        try (HostilePeerServer server = HostilePeerServer.start(rdma, TestSeed.of(test), bootstrap -> { });
             RawRdmaClient raw = RawRdmaClient.connect(server.address())) {
            HostilePeerServer.RawChild hostile = server.nextRawChild();
            raw.exchangeHellos(RawRdmaClient.hello(GRANTED_SLOTS));
            long started = System.nanoTime();
            List<RawRdmaClient.Completion> sends = raw.burst(emptyCredit(), BURST);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            long accepted = sends.stream().filter(RawRdmaClient.Completion::succeeded).count();
            String last = sends.isEmpty() ? "none" : sends.get(sends.size() - 1).status();
            // By the protocol check, or by the transport error its broken queue pair causes.
            hostile.assertClosedWith(IOException.class, "");
            System.out.println("a burst of " + BURST + " Sends beyond the credit on a loop with queues of "
                    + CQ_ENTRIES + " entries: " + accepted + " accepted in " + millis + " ms, the last " + last
                    + "; CQ errors " + (CompletionQueue.errors() - errorsBefore));
            server.assertStreamIntact();
        }
        assertEquals(errorsBefore, CompletionQueue.errors(), "IBV_EVENT_CQ_ERR reported by the device");
    }

    /**
     * A completion queue the device reports in error fails the channel whose work completes into it
     * with an {@code IOException} that names the device and the event; a channel on another queue of
     * the same loop goes on echoing, and a new connection gets a queue that works. rxe raises the
     * event only on an overrun, which the transport no longer makes: the loop's handling of a real
     * queue is driven directly ({@link CompletionQueueProbe}).
     */
    @Test
    void aFailedCompletionQueueFailsOnlyTheChannelsOnIt() throws Exception {
        long errorsBefore = CompletionQueue.errors();
        Channel server = rdma.bind(rdma.server().childHandler(RdmaTransportFixture.pipeline(EchoHandler.INSTANCE)));
        Echoes victimEchoes = new Echoes();
        ExceptionRecorder victimErrors = new ExceptionRecorder();
        RdmaSocketChannel victim = (RdmaSocketChannel) rdma.client()
                .handler(RdmaTransportFixture.pipeline(victimEchoes, victimErrors))
                .connect(server.localAddress()).sync().channel();
        Echoes bystanderEchoes = new Echoes();
        ExceptionRecorder bystanderErrors = new ExceptionRecorder();
        RdmaSocketChannel bystander = (RdmaSocketChannel) rdma.client()
                .handler(RdmaTransportFixture.pipeline(bystanderEchoes, bystanderErrors))
                .connect(server.localAddress()).sync().channel();
        victimEchoes.roundTrip(victim, 4096);
        bystanderEchoes.roundTrip(bystander, 4096);

        String device = CompletionQueueProbe.failOwnQueue(victim, bystander);
        assertTrue(victim.closeFuture().await(TIMEOUT_SECONDS, TimeUnit.SECONDS), "the victim closed");
        List<Throwable> exceptions = victimErrors.exceptions();
        System.out.println("the channel on the failed completion queue closed with " + exceptions);
        assertEquals(1, exceptions.size(), () -> "exceptions: " + exceptions);
        assertInstanceOf(IOException.class, exceptions.get(0));
        String message = exceptions.get(0).getMessage();
        assertTrue(message.contains(device) && message.contains("IBV_EVENT_CQ_ERR"),
                () -> "the exception names the device " + device + " and the event: " + message);

        bystanderEchoes.roundTrip(bystander, 64 << 10);
        assertEquals(List.of(), bystanderErrors.exceptions(), "exceptions of the channel on another queue");
        Echoes newcomerEchoes = new Echoes();
        Channel newcomer = rdma.client().handler(RdmaTransportFixture.pipeline(newcomerEchoes))
                .connect(server.localAddress()).sync().channel();
        newcomerEchoes.roundTrip(newcomer, 64 << 10);
        newcomer.close().sync();
        bystander.close().sync();
        server.close().sync();
        assertEquals(errorsBefore, CompletionQueue.errors(), "IBV_EVENT_CQ_ERR reported by the device");
    }

    /** A {@code CREDIT} that returns nothing: each one takes a receive of the server's. */
    private static byte[] emptyCredit() {
        ByteBuf buf = Unpooled.buffer(RdmaProtocol.HEADER_SIZE);
        MessageHeader.encode(buf, RdmaProtocol.TYPE_CREDIT, 0, 0, 0);
        return ByteBufUtil.getBytes(buf);
    }

    /** Counts the bytes echoed back, for round trips of a known size. */
    private static final class Echoes extends ChannelInboundHandlerAdapter {
        private final AtomicLong received = new AtomicLong();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf buf = (ByteBuf) msg;
            received.addAndGet(buf.readableBytes());
            buf.release();
        }

        /** Writes {@code bytes} and waits until as many more came back. */
        void roundTrip(Channel channel, int bytes) throws Exception {
            long target = received.get() + bytes;
            channel.writeAndFlush(Unpooled.wrappedBuffer(new byte[bytes])).sync();
            Await.until(() -> received.get() >= target, TIMEOUT_SECONDS,
                    () -> "echoed " + received.get() + " of " + target + " bytes on " + channel);
        }
    }
}
