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
import java.util.concurrent.atomic.AtomicReference;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.nettyrdma.channel.rdma.RdmaMemoryMetrics;
import org.nettyrdma.testkit.Await;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * A connection closed while both ends stream gives its memory back when the device has flushed
 * every request it still had posted, not when the drain's bound runs out: the count of
 * {@link RdmaMemoryMetrics#drainTimeouts() drain timeouts} does not move, whichever end closes
 * first, both included, with small writes (sends) and large ones (RDMA writes) in flight.
 */
class RdmaCloseDrainTest {

    /** Each end has read this much when the test closes. */
    private static final long READ_BEFORE_CLOSE = 256 << 10;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    enum Closer { CLIENT, SERVER, BOTH }

    @ParameterizedTest(name = "{0} closes, {1} B writes")
    @CsvSource({ "CLIENT, 64", "SERVER, 64", "BOTH, 64", "CLIENT, 65536", "SERVER, 65536", "BOTH, 65536" })
    void memoryIsFreedByTheFlushesNotByTheBound(Closer closer, int writeSize) throws Exception {
        AtomicReference<FloodHandler> serverFlood = new AtomicReference<>();
        AtomicReference<Channel> child = new AtomicReference<>();
        Channel server = rdma.bind(rdma.server().childHandler(new ChannelInboundHandlerAdapter() {
            @Override
            public void handlerAdded(ChannelHandlerContext ctx) {
                FloodHandler flood = new FloodHandler(writeSize, ChannelFutureListener.CLOSE_ON_FAILURE);
                serverFlood.set(flood);
                child.set(ctx.channel());
                ctx.pipeline().replace(this, null, flood);
            }
        }));
        FloodHandler clientFlood = new FloodHandler(writeSize, ChannelFutureListener.CLOSE_ON_FAILURE);
        Channel client = rdma.client().handler(RdmaTransportFixture.pipeline(clientFlood))
                .connect(server.localAddress()).sync().channel();
        Await.until(() -> serverFlood.get() != null && serverFlood.get().receivedBytes() >= READ_BEFORE_CLOSE
                && clientFlood.receivedBytes() >= READ_BEFORE_CLOSE, 60,
                () -> "both ends did not read " + READ_BEFORE_CLOSE + " bytes");
        long timeoutsBefore = RdmaMemoryMetrics.snapshot().drainTimeouts();

        switch (closer) {
            case CLIENT -> client.close();
            case SERVER -> child.get().close();
            case BOTH -> {
                client.close();
                child.get().close();
            }
        }
        assertTrue(client.closeFuture().await(30, TimeUnit.SECONDS), "the client closed");
        assertTrue(child.get().closeFuture().await(30, TimeUnit.SECONDS), "the server's child closed");
        Await.until(() -> RdmaMemoryMetrics.snapshot().connectionRegions() == 0, 30,
                () -> "connection memory left: " + RdmaMemoryMetrics.snapshot());

        assertEquals(timeoutsBefore, RdmaMemoryMetrics.snapshot().drainTimeouts(),
                () -> "connections freed at the drain's bound, not by the flushes: " + RdmaMemoryMetrics.snapshot());
        server.close().sync();
    }
}
