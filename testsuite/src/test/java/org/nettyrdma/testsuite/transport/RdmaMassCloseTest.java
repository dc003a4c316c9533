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

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaChannelOption;
import org.nettyrdma.channel.rdma.RdmaMemoryMetrics;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.testkit.Await;
import org.nettyrdma.testkit.ExceptionRecorder;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * Idle connections that all close at once register nothing, on either side, and the registered
 * memory only falls while they close: a client fleet that restarts must not push a server towards
 * its registered memory limit, where new clients are refused. Server and clients are in this
 * process, on two loops, so that both ends of every close count.
 */
class RdmaMassCloseTest {

    private static final int CONNECTIONS = 200;
    /** Connects in flight at once: more would wait past the HELLO timeout under emulation. */
    private static final int IN_FLIGHT = 16;
    private static final long TIMEOUT_SECONDS = 120;
    /** How often the registered bytes are read while the connections close. */
    private static final long SAMPLE_MILLIS = 5;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    /**
     * With the default inline limit, with none, and with more than rxe grants: the {@code CLOSE}s
     * still go inline, since a staging block for each would come from the allocator's pool, which
     * registers a slab when it has no spare one.
     */
    @ParameterizedTest(name = "MAX_INLINE_DATA={0}")
    @ValueSource(ints = {0, 128, 1024})
    void idleConnectionsClosingAtOnceRegisterNothing(int maxInline) throws Exception {
        AtomicInteger openChildren = new AtomicInteger();
        ExceptionRecorder serverErrors = new ExceptionRecorder();
        Channel server = rdma.bind(rdma.server()
                .childOption(RdmaChannelOption.HELLO_TIMEOUT_MILLIS, (int) TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS))
                .childOption(RdmaChannelOption.MAX_INLINE_DATA, maxInline)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        openChildren.incrementAndGet();
                        ch.closeFuture().addListener(f -> openChildren.decrementAndGet());
                        ch.pipeline().addLast(serverErrors);
                    }
                }));
        ExceptionRecorder clientErrors = new ExceptionRecorder();
        List<Channel> clients = connect(server, maxInline, clientErrors);
        Await.until(() -> openChildren.get() == CONNECTIONS, TIMEOUT_SECONDS,
                () -> openChildren.get() + " of " + CONNECTIONS + " children open");

        int granted = ((RdmaSocketChannel) clients.get(0)).metrics().maxInlineData();
        RdmaMemoryMetrics before = settled();
        List<ChannelFuture> closes = new ArrayList<>();
        for (Channel client : clients) {
            closes.add(client.close());
        }
        long peak = before.registeredBytes();
        long started = System.nanoTime();
        while (openChildren.get() > 0 || !allDone(closes)) {
            peak = Math.max(peak, RdmaMemoryMetrics.snapshot().registeredBytes());
            assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS),
                    () -> openChildren.get() + " children still open after " + TIMEOUT_SECONDS + " s");
            Thread.sleep(SAMPLE_MILLIS);
        }
        RdmaMemoryMetrics after = RdmaMemoryMetrics.snapshot();
        System.out.printf("RdmaMassCloseTest, MAX_INLINE_DATA=%d (%d for data): %d idle connections closed in %d ms;"
                        + " registered %d B before, peak %d B while closing, %d B after; registrations made while"
                        + " closing: %d%n", maxInline, granted, CONNECTIONS,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), before.registeredBytes(), peak,
                after.registeredBytes(),
                after.registrationsMade() - before.registrationsMade());

        assertEquals(before.registrationsMade(), after.registrationsMade(),
                () -> "registrations made while " + CONNECTIONS + " idle connections closed: " + before + " before, "
                        + after + " after");
        long peakBytes = peak;
        assertTrue(peakBytes <= before.registeredBytes(), () -> "registered bytes while closing: " + peakBytes
                + " B at the peak, " + before.registeredBytes() + " B before");
        assertTrue(after.registeredBytes() <= before.registeredBytes(), () -> "registered bytes: "
                + before.registeredBytes() + " B before the close, " + after.registeredBytes() + " B after");
        assertEquals(List.of(), clientErrors.exceptions(), "client exceptions");
        assertEquals(List.of(), serverErrors.exceptions(), "server exceptions");
        server.close().sync();
    }

    /** Opens {@link #CONNECTIONS} clients that send nothing, {@link #IN_FLIGHT} connects at a time. */
    private List<Channel> connect(Channel server, int maxInline, ExceptionRecorder errors) throws InterruptedException {
        Semaphore inFlight = new Semaphore(IN_FLIGHT);
        List<ChannelFuture> connects = new ArrayList<>();
        for (int i = 0; i < CONNECTIONS; i++) {
            inFlight.acquire();
            ChannelFuture connect = rdma.client().option(RdmaChannelOption.MAX_INLINE_DATA, maxInline)
                    .handler(RdmaTransportFixture.pipeline(errors)).connect(server.localAddress());
            connect.addListener(f -> inFlight.release());
            connects.add(connect);
        }
        List<Channel> clients = new ArrayList<>();
        for (ChannelFuture connect : connects) {
            clients.add(connect.sync().channel());
        }
        return clients;
    }

    /**
     * Returns the memory counts once the registrations and registered bytes read the same twice
     * 500 ms apart: the connects' staging and the allocator's slabs have come and gone.
     */
    private static RdmaMemoryMetrics settled() throws InterruptedException {
        RdmaMemoryMetrics last = RdmaMemoryMetrics.snapshot();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        for (;;) {
            Thread.sleep(500);
            RdmaMemoryMetrics now = RdmaMemoryMetrics.snapshot();
            if (now.registrationsMade() == last.registrationsMade() && now.registeredBytes() == last.registeredBytes()
                    || System.nanoTime() - deadline > 0) {
                return now;
            }
            last = now;
        }
    }

    private static boolean allDone(List<ChannelFuture> futures) {
        for (ChannelFuture future : futures) {
            if (!future.isDone()) {
                return false;
            }
        }
        return true;
    }
}
