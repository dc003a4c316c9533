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
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaChannelOption;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;

/**
 * The peer host powers off under an idle connection: no disconnect, no reset, its packets just stop.
 * With {@code SO_KEEPALIVE} the next probe goes unanswered, and after the queue pair's retries the
 * channel fails with the work completion's error and closes.
 *
 * <p>It ends the peer, so it runs last: {@code scripts/two-hosts} orders the classes of this package by
 * their {@link Order} ({@code ClassOrderer.OrderAnnotation}), and this one's is the highest.
 */
@Order(Integer.MAX_VALUE)
class RdmaWirePeerPowerOffTest {

    private static final int IDLE_MILLIS = 500;
    /**
     * The keep-alive bound, as in the transport's RdmaKeepAliveTest: an idle period, then the queue
     * pair's 6 retries at rxe's ACK timeout (about a second, docs/protocol.md), with room for emulation.
     */
    private static final long KEEPALIVE_BOUND_SECONDS = 60;
    private static final long POWER_OFF_SECONDS = 30;

    @RegisterExtension
    final WireFixture wire = new WireFixture();

    @Test
    void anIdleChannelFailsWhenThePeerHostPowersOff() throws Exception {
        assumeTrue(TwoHosts.runDirectory() != null, "needs scripts/two-hosts to power the peer host off ("
                + TwoHosts.RUN_DIR_VARIABLE + " unset)");
        Watch watch = new Watch();
        RdmaSocketChannel channel = (RdmaSocketChannel) wire.client()
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(RdmaChannelOption.KEEPALIVE_IDLE_MILLIS, IDLE_MILLIS)
                .handler(watch)
                .connect(TwoHosts.peer(TwoHosts.ECHO_PORT)).sync().channel();
        channel.writeAndFlush(channel.alloc().buffer(1).writeByte(1));
        watch.echoed.get(30, TimeUnit.SECONDS);
        // Idle now: the probes must come back from the peer's device across the wire, or the channel fails.
        Thread.sleep(4L * IDLE_MILLIS);
        assertTrue(channel.isActive(), "the idle channel is up while the peer is");
        long probes = channel.metrics().keepAliveProbes();
        assertTrue(probes >= 1, "probes while the peer was up: " + probes);

        long requested = System.nanoTime();
        TwoHosts.powerOffPeer(POWER_OFF_SECONDS);
        long off = System.nanoTime();
        assertTrue(channel.closeFuture().await(KEEPALIVE_BOUND_SECONDS, TimeUnit.SECONDS),
                () -> "the channel did not fail within " + KEEPALIVE_BOUND_SECONDS + " s of the peer's power-off");
        long closedAt = System.nanoTime();

        // Printed, not asserted: the figure depends on the device's ACK timeout and the machine.
        System.out.printf("wire: the idle channel failed %d ms after the peer host was seen powered off (%d ms"
                + " after asking for the power-off; %d probes before it): %s%n",
                TimeUnit.NANOSECONDS.toMillis(closedAt - off), TimeUnit.NANOSECONDS.toMillis(closedAt - requested),
                probes, watch.exceptions);
        assertEquals(1, watch.exceptions.size(), () -> "exceptions: " + watch.exceptions);
        String message = watch.exceptions.get(0).getMessage();
        assertTrue(message != null && message.contains("work completion failed"), message);
        assertTrue(channel.metrics().keepAliveProbes() > probes, () -> "found by a probe: " + channel.metrics());
    }

    /** Completes {@link #echoed} when the first bytes come back; keeps every exception. */
    private static final class Watch extends ChannelInboundHandlerAdapter {
        final CompletableFuture<Void> echoed = new CompletableFuture<>();
        final List<Throwable> exceptions = new CopyOnWriteArrayList<>();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ((ByteBuf) msg).release();
            echoed.complete(null);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            exceptions.add(cause);
            ctx.close();
        }
    }
}
