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

import java.util.concurrent.TimeUnit;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaIoHandlerConfig;
import org.nettyrdma.channel.rdma.RdmaLoopMetrics;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.testkit.EchoHandler;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * Loops with adaptive polling (the default, with a bound generous enough for the VM's slow round
 * trips): while a ping-pong runs, their polls find the answers; once it stops, they poll no more,
 * whatever time passes (an idle loop sleeps in epoll).
 */
class RdmaAdaptivePollTest {

    private static final int ROUND_TRIPS = 300;
    private static final int MESSAGE = PingPongHandler.MESSAGE;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2, new RdmaIoHandlerConfig().setAdaptivePollMicros(20_000));

    @Test
    void pollsFindTheAnswersWhileTrafficRunsAndStopWhenItStops() throws Exception {
        Channel server = rdma.bind(rdma.server().childHandler(EchoHandler.INSTANCE));
        PingPongHandler pingPong = new PingPongHandler(ROUND_TRIPS);
        RdmaSocketChannel client = (RdmaSocketChannel) rdma.client().handler(pingPong)
                .connect(server.localAddress()).sync().channel();
        client.writeAndFlush(Unpooled.wrappedBuffer(new byte[MESSAGE]));
        assertEquals(ROUND_TRIPS, pingPong.done.get(120, TimeUnit.SECONDS), "round trips");

        RdmaLoopMetrics busy = client.loopMetrics();
        assertTrue(busy.busyPollHits() > ROUND_TRIPS / 2, () -> "polls found most answers: " + busy);
        assertTrue(busy.wakeUps() < ROUND_TRIPS / 2, () -> "fewer wake-ups than round trips: " + busy);

        // A few polls find nothing and halve the budget to none; after that the loop only sleeps.
        Thread.sleep(500);
        RdmaLoopMetrics settled = client.loopMetrics();
        Thread.sleep(1000);
        RdmaLoopMetrics idle = client.loopMetrics();
        assertEquals(settled.busyPolls(), idle.busyPolls(), () -> "an idle loop polled: " + settled + " then " + idle);
        assertEquals(settled.busyPollNanos(), idle.busyPollNanos(), "time spent polling while idle");

        client.close().sync();
        server.close().sync();
    }
}
