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

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.testkit.Await;
import org.nettyrdma.testkit.ChildJvm;
import org.nettyrdma.testkit.EchoHandler;
import org.nettyrdma.testkit.EchoProbe;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * A client process killed with SIGKILL in the middle of a stream both ways: its kernel tears its
 * connection down, so the server's channel for it goes inactive at once (not at the keep-alive's
 * bound, which {@link RdmaKeepAliveTest} covers for a peer that vanished without a word), the writes
 * the server had flushed to it fail with an exception that says the peer is gone, and the server
 * goes on serving new clients.
 */
class RdmaPeerKilledTest {

    private static final int WRITE = 64 * 1024;
    /** Generous for emulation: the disconnect arrives in well under a second on a real device. */
    private static final long INACTIVE_BOUND_SECONDS = 30;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    @Test
    void theServerDropsAKilledClientAndServesTheNext() throws Exception {
        BlockingQueue<Channel> streamingChildren = new LinkedBlockingQueue<>();
        List<Throwable> writeFailures = new CopyOnWriteArrayList<>();
        CompletableFuture<FloodHandler> flooding = new CompletableFuture<>();
        AtomicInteger children = new AtomicInteger();
        Channel server = rdma.bind(rdma.server().childHandler(new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                if (children.getAndIncrement() == 0) {
                    FloodHandler flood = new FloodHandler(f -> {
                        if (!f.isSuccess()) {
                            writeFailures.add(f.cause());
                        }
                    });
                    ch.pipeline().addLast(flood, new ChannelInboundHandlerAdapter() {
                        @Override
                        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                            ctx.close();
                        }
                    });
                    flooding.complete(flood);
                    streamingChildren.add(ch);
                } else {
                    ch.pipeline().addLast(EchoHandler.INSTANCE);
                }
            }
        }));
        InetSocketAddress address = (InetSocketAddress) server.localAddress();
        try (ChildJvm client = ChildJvm.start(PeerProcess.class, "stream", address.getHostString(),
                String.valueOf(address.getPort()))) {
            client.awaitLine("connected", 60, TimeUnit.SECONDS);
            Channel child = streamingChildren.poll(30, TimeUnit.SECONDS);
            FloodHandler flood = flooding.get(30, TimeUnit.SECONDS);
            Await.until(() -> flood.receivedBytes() > 4 * WRITE, 60, () -> "the killed client's stream arrived: "
                    + flood.receivedBytes() + " bytes");
            client.kill();
            long killed = System.nanoTime();

            assertTrue(child.closeFuture().await(INACTIVE_BOUND_SECONDS, TimeUnit.SECONDS),
                    "the server's channel for the killed client closed within " + INACTIVE_BOUND_SECONDS + " s");
            long inactiveMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
            System.out.printf("the server's channel for the killed client closed %d ms after SIGKILL; "
                    + "%d writes failed, the first with: %s%n", inactiveMillis, writeFailures.size(),
                    writeFailures.isEmpty() ? "-" : writeFailures.get(0));
            assertFalse(child.isActive());
            assertFalse(writeFailures.isEmpty(), "the server's writes to the killed client failed");
            Throwable first = writeFailures.get(0);
            assertInstanceOf(java.io.IOException.class, first);
            assertFalse(first instanceof ClosedChannelException, () -> "the failure says why, not just that the "
                    + "channel is closed: " + first);
            assertTrue(first.getMessage().contains("peer"), () -> "the failure names the peer: " + first);
        }

        EchoProbe probe = new EchoProbe(3, 64, 200_000);
        Channel next = rdma.client().handler(RdmaTransportFixture.pipeline(probe)).connect(address).sync().channel();
        probe.writeAll(next);
        probe.assertEchoed(60);
        next.close().sync();
        server.close().sync();
    }
}
