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
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nettyrdma.channel.rdma.RdmaChannelMetrics;
import org.nettyrdma.channel.rdma.RdmaChannelOption;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.channel.rdma.protocol.HelloMessage;
import org.nettyrdma.channel.rdma.protocol.MessageHeader;
import org.nettyrdma.channel.rdma.protocol.RdmaProtocol;
import org.nettyrdma.channel.rdma.verbs.RawRdmaClient;
import org.nettyrdma.testkit.Await;
import org.nettyrdma.testkit.EchoHandler;
import org.nettyrdma.testkit.EchoProbe;
import org.nettyrdma.testkit.ExceptionRecorder;
import org.nettyrdma.testkit.RdmaTransportFixture;
import org.nettyrdma.testkit.RingsOnEveryDevice;

/**
 * {@code SO_KEEPALIVE}: an idle connection is probed (zero-byte RDMA Writes, or {@code CREDIT}
 * messages to a peer without a ring) and stays up and usable; a peer whose queue pair vanished without
 * a disconnect, as a crashed host's does, is found by a probe and its channel closes with the error.
 */
class RdmaKeepAliveTest {

    private static final int IDLE_MILLIS = 300;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    /**
     * With rings (a device whose windows confine a peer; forced here on rxe), opened by a first echo of
     * large writes and kept while idle, each end probes with zero-byte RDMA Writes its peer's software
     * never sees, so both ends probe. Without, as on rxe by default, a probe is a {@code CREDIT} the
     * peer receives, which is activity there: one end probes, and the other, hearing it, need not.
     */
    @ParameterizedTest(name = "rings: {0}")
    @ValueSource(strings = {"always", "never"})
    void idleConnectionsAreProbedAndStayUsable(String rings) throws Exception {
        System.setProperty(RingsOnEveryDevice.PROPERTY, rings);
        try {
            probeIdleConnections("always".equals(rings));
        } finally {
            System.clearProperty(RingsOnEveryDevice.PROPERTY);
        }
    }

    private void probeIdleConnections(boolean rings) throws Exception {
        BlockingQueue<RdmaSocketChannel> children = new LinkedBlockingQueue<>();
        Channel server = bindProbingServer(children, EchoHandler.INSTANCE);
        EchoProbe opening = new EchoProbe(4, 100, 20_000, 200_000);
        RdmaSocketChannel client = (RdmaSocketChannel) rdma.client()
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(RdmaChannelOption.KEEPALIVE_IDLE_MILLIS, IDLE_MILLIS)
                .option(RdmaChannelOption.RING_IDLE_MILLIS, 0)
                .handler(opening)
                .connect(server.localAddress()).sync().channel();
        RdmaSocketChannel child = children.poll(10, TimeUnit.SECONDS);
        // Writes larger than a slot each way: with rings, each end opens one to the other, kept while idle.
        opening.writeAll(client);
        opening.assertEchoed(60);
        assertEquals(rings ? 1 : 0, client.metrics().ringsOpened(), () -> "rings the client opened: " + client.metrics());
        assertEquals(rings ? 1 : 0, child.metrics().ringsOpened(), () -> "rings the child opened: " + child.metrics());
        long clientProbesBefore = client.metrics().keepAliveProbes();
        long childProbesBefore = child.metrics().keepAliveProbes();

        Thread.sleep(8 * IDLE_MILLIS);
        long clientProbes = client.metrics().keepAliveProbes() - clientProbesBefore;
        long childProbes = child.metrics().keepAliveProbes() - childProbesBefore;
        System.out.println("rings " + rings + ": probes by the client " + clientProbes + ", by the server child "
                + childProbes);
        if (rings) {
            assertTrue(clientProbes >= 2, "the client's probes: " + clientProbes);
            assertTrue(childProbes >= 2, "the server child's probes: " + childProbes);
        } else {
            assertTrue(Math.max(clientProbes, childProbes) >= 2, "probes by the client " + clientProbes
                    + ", by the server child " + childProbes);
        }
        assertTrue(client.isActive() && child.isActive(), "both ends still up");
        EchoProbe probe = new EchoProbe(5, 100, 20_000, 200_000);
        client.pipeline().replace(opening, "probe", probe);
        probe.writeAll(client);
        probe.assertEchoed(60);

        client.close().sync();
        server.close().sync();
    }

    /**
     * With a ring granted, the server probes with zero-byte RDMA Writes into it; without, with
     * {@code CREDIT} Sends. Either way the probe is what finds the vanished peer.
     */
    @ParameterizedTest(name = "the peer grants a ring: {0}")
    @ValueSource(booleans = {false, true})
    void aPeerThatVanishedIsFoundByAProbe(boolean ring) throws Exception {
        BlockingQueue<RdmaSocketChannel> children = new LinkedBlockingQueue<>();
        ExceptionRecorder errors = new ExceptionRecorder();
        AtomicReference<RdmaChannelMetrics> atFailure = new AtomicReference<>();
        ChannelHandler metricsAtFailure = new ChannelInboundHandlerAdapter() {
            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                // Before the close, which may post a CLOSE of its own.
                atFailure.compareAndSet(null, ((RdmaSocketChannel) ctx.channel()).metrics());
                ctx.fireExceptionCaught(cause);
            }
        };
        Channel server = bindProbingServer(children, metricsAtFailure, errors);

        try (RawRdmaClient raw = RawRdmaClient.connect((InetSocketAddress) server.localAddress())) {
            RdmaSocketChannel child = children.poll(10, TimeUnit.SECONDS);
            int slots = RawRdmaClient.RECEIVES - 2;
            raw.send(ring ? RawRdmaClient.helloWithRing(slots) : RawRdmaClient.hello(slots));
            HelloMessage.decode(Unpooled.wrappedBuffer(raw.awaitMessage()), 0, RdmaProtocol.HELLO_SIZE);
            if (ring) {
                // Opened unasked: the server probes into it from then on.
                raw.send(raw.ringOffer(1));
                // The HELLO and the RING used half the server's share of four slots: it returns them in a
                // CREDIT, which must be out before the peer vanishes, or its failure, not a probe, finds it.
                MessageHeader credit = new MessageHeader();
                byte[] message = raw.awaitMessage();
                credit.decode(Unpooled.wrappedBuffer(message), 0, message.length);
                assertEquals(RdmaProtocol.TYPE_CREDIT, credit.type(), "the server's answer to the RING");
            }
            // The server posts its HELLO before its loop marks the child active: the peer may
            // hold the HELLO a moment before the child is up.
            Await.until(child::isActive, 10, () -> "the server child is up once both HELLOs are out");
            // Read on the child's loop: its counts are plain fields written there, and the CREDIT that
            // the raw peer already holds may be counted after another thread's read would look.
            long controlAtStart = child.eventLoop().submit(() -> child.metrics().controlMessages())
                    .get(10, TimeUnit.SECONDS);

            long vanished = System.nanoTime();
            raw.vanish();
            // An idle period, then the queue pair's 6 retries at its ACK timeout.
            assertTrue(child.closeFuture().await(60, TimeUnit.SECONDS), "the server child closed");
            // Printed, not asserted: the figure depends on the device's ACK timeout and the machine.
            System.out.printf("RdmaKeepAliveTest: the vanished peer (ring: %b) was found %d ms after it vanished:"
                    + " %s%n", ring, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - vanished), errors.exceptions());
            assertEquals(1, errors.exceptions().size(), () -> "exceptions: " + errors.exceptions());
            String message = errors.exceptions().get(0).getMessage();
            assertTrue(message.contains("work completion failed"), message);
            RdmaChannelMetrics metrics = atFailure.get();
            assertTrue(metrics.keepAliveProbes() >= 1, () -> "found by a probe: " + metrics);
            long controlSent = metrics.controlMessages() - controlAtStart;
            if (ring) {
                assertEquals(0, controlSent, () -> "every probe an RDMA Write, no CREDIT: " + metrics);
            } else {
                assertEquals(metrics.keepAliveProbes(), controlSent, () -> "every probe a CREDIT: " + metrics);
            }
        }
        server.close().sync();
    }

    /** Binds a server whose children probe after {@link #IDLE_MILLIS} and end in {@code handlers}. */
    private Channel bindProbingServer(BlockingQueue<RdmaSocketChannel> children, ChannelHandler... handlers)
            throws InterruptedException {
        return rdma.bind(rdma.server()
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childOption(RdmaChannelOption.KEEPALIVE_IDLE_MILLIS, IDLE_MILLIS)
                .childOption(RdmaChannelOption.RING_IDLE_MILLIS, 0)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        children.add((RdmaSocketChannel) ch);
                        ch.pipeline().addLast(handlers);
                    }
                }));
    }
}
