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
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaLoopMetrics;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.testkit.Await;
import org.nettyrdma.testkit.EchoHandler;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * Loops that busy-poll their completion queues: request and response go back and forth, spins
 * find completions (as {@code loopMetrics()} counts them), and the loops still run their tasks,
 * those submitted from other threads and those scheduled, and still see their other fds' events
 * (RDMA CM's), while they spin.
 */
class RdmaBusyPollTest {

    private static final int ROUND_TRIPS = 200;
    private static final int MESSAGE = PingPongHandler.MESSAGE;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2, 1000);

    @Test
    void roundTripsEchoAndTasksRunWhileLoopsSpin() throws Exception {
        Channel server = rdma.bind(rdma.server().childHandler(EchoHandler.INSTANCE));
        PingPongHandler pingPong = new PingPongHandler(ROUND_TRIPS);
        Channel client = rdma.client().handler(pingPong).connect(server.localAddress()).sync().channel();

        client.writeAndFlush(Unpooled.wrappedBuffer(new byte[MESSAGE]));
        assertEquals(ROUND_TRIPS, pingPong.done.get(60, TimeUnit.SECONDS), "round trips");
        // The loop spun, and some spins found the completions they waited for (its own send
        // completions at least, which follow its posts closely).
        RdmaLoopMetrics loop = ((RdmaSocketChannel) client).loopMetrics();
        assertTrue(loop.completions() >= ROUND_TRIPS, () -> "a receive completion per echo: " + loop);
        assertTrue(loop.busyPolls() > 0 && loop.busyPollHits() > 0, () -> "spins that found work: " + loop);

        // A task from another thread, and a scheduled one, run although the loop spins between them.
        for (int i = 0; i < 20; i++) {
            CompletableFuture<Void> submitted = new CompletableFuture<>();
            client.eventLoop().execute(() -> submitted.complete(null));
            submitted.get(5, TimeUnit.SECONDS);
        }
        long start = System.nanoTime();
        CompletableFuture<Long> scheduled = new CompletableFuture<>();
        client.eventLoop().schedule(() -> scheduled.complete(System.nanoTime()), 20, TimeUnit.MILLISECONDS);
        long lateMillis = TimeUnit.NANOSECONDS.toMillis(scheduled.get(5, TimeUnit.SECONDS) - start) - 20;
        assertTrue(lateMillis < 1000, "a task scheduled in 20 ms ran " + lateMillis + " ms late");

        client.close().sync();
        server.close().sync();
    }

    /**
     * While both loops keep finding completions (an endless ping-pong), a second connection's RDMA CM
     * events still reach them: it connects, echoes and closes, three times, and the ping-pong goes on
     * meanwhile. This checks the outcome, not the 100 us interval between looks at the fds: a loop
     * also looks whenever it has tasks or a spin ends empty, and a variant that never looked while
     * finding completions passed here too.
     */
    @Test
    void connectionsComeAndGoWhileSpinsKeepFindingCompletions() throws Exception {
        Channel server = rdma.bind(rdma.server().childHandler(EchoHandler.INSTANCE));
        PingPongHandler endless = new PingPongHandler(Integer.MAX_VALUE);
        Channel busy = rdma.client().handler(endless).connect(server.localAddress()).sync().channel();
        busy.writeAndFlush(Unpooled.wrappedBuffer(new byte[MESSAGE]));
        Await.until(() -> endless.roundTrips > 100, 60, () -> "round trips: " + endless.roundTrips);
        RdmaLoopMetrics before = ((RdmaSocketChannel) busy).loopMetrics();

        for (int i = 0; i < 3; i++) {
            int roundTripsBefore = endless.roundTrips;
            PingPongHandler one = new PingPongHandler(1);
            Channel other = rdma.client().handler(one).connect(server.localAddress()).sync().channel();
            other.writeAndFlush(Unpooled.wrappedBuffer(new byte[MESSAGE]));
            assertEquals(1, one.done.get(30, TimeUnit.SECONDS), "the second connection's echo");
            assertTrue(other.close().await(30, TimeUnit.SECONDS), "the second connection closed");
            assertTrue(endless.roundTrips > roundTripsBefore, "the ping-pong went on meanwhile");
        }
        RdmaLoopMetrics after = ((RdmaSocketChannel) busy).loopMetrics();
        assertTrue(after.busyPollHits() > before.busyPollHits(), () -> "spins found work meanwhile: " + after);
        assertFalse(endless.done.isDone(), () -> "the ping-pong ended: " + endless.done);

        endless.stopped = true;
        busy.close().sync();
        server.close().sync();
    }
}
