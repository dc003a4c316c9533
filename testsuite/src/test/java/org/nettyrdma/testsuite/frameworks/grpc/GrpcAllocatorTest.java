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
package org.nettyrdma.testsuite.frameworks.grpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.grpc.ManagedChannel;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaByteBufAllocator;
import org.nettyrdma.channel.rdma.RdmaChannelMetrics;
import org.nettyrdma.channel.rdma.RdmaServerSocketChannel;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.example.grpc.GrpcEchoClient;
import org.nettyrdma.testkit.DeviceUnderTest;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * What gRPC's choice of allocator means for the transport. gRPC sets {@code ChannelOption.ALLOCATOR} on
 * every channel it makes, replacing the transport's registered allocator: with its own pooled allocator
 * by default, with Netty's {@code ByteBufAllocator.DEFAULT} under
 * {@code -Dio.grpc.netty.useCustomAllocator=false}. Only {@code withOption(ALLOCATOR, ...)} on the
 * channel builder and {@code withChildOption(ALLOCATOR, ...)} on the server builder, which gRPC applies
 * after its own, give the channels {@link RdmaByteBufAllocator} back. One 1 MiB unary echo per setting,
 * with and without a ring ({@code -Dorg.nettyrdma.ring}; on rxe connections open none by default),
 * and each side's {@link RdmaChannelMetrics#copiedBytes()} over the second of two echoes (a ring opens
 * on demand, during the first):
 * <ul>
 *   <li>without a ring every byte travels by Send: copied into registered memory from gRPC's or
 *       Netty's buffers; from the registered allocator's, mostly read where they are (a Send reads in
 *       place at least 4 KiB of one registered buffer; the frames' headers and what the encoder
 *       composed are copied);</li>
 *   <li>with a ring, the message's HTTP/2 DATA frames travel by RDMA Write: copied from gRPC's or
 *       Netty's buffers; from the registered allocator's, read where they are, except the frames that
 *       Netty's HTTP/2 encoder composed from several buffers, which are copied as any composite
 *       buffer is.</li>
 * </ul>
 */
class GrpcAllocatorTest {

    private static final String CUSTOM_ALLOCATOR = "io.grpc.netty.useCustomAllocator";
    private static final String RING = "org.nettyrdma.ring";
    private static final int MESSAGE = 1 << 20;
    private static final long BOUND_SECONDS = 30;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    /** How the gRPC channels get their allocator. */
    enum Setting {
        /** gRPC's default: its own pooled allocator. */
        GRPC,
        /** {@code -Dio.grpc.netty.useCustomAllocator=false}: Netty's default allocator. */
        NETTY_DEFAULT,
        /** {@code withOption}/{@code withChildOption(ChannelOption.ALLOCATOR, RdmaByteBufAllocator.DEFAULT)}. */
        REGISTERED
    }

    @ParameterizedTest(name = "{0}, ring {1}")
    @CsvSource({"GRPC, auto", "NETTY_DEFAULT, auto", "REGISTERED, auto",
                "GRPC, always", "NETTY_DEFAULT, always", "REGISTERED, always"})
    void copiesDependOnTheAllocator(Setting setting, String ring) throws Exception {
        if (ring.equals("always")) {
            DeviceUnderTest.assumeRings();
        }
        BlockingQueue<Channel> children = new LinkedBlockingQueue<>();
        BlockingQueue<RdmaSocketChannel> clients = new LinkedBlockingQueue<>();
        String customAllocator = System.getProperty(CUSTOM_ALLOCATOR);
        String ringMode = System.getProperty(RING);
        if (setting == Setting.NETTY_DEFAULT) {
            System.setProperty(CUSTOM_ALLOCATOR, "false");
        }
        System.setProperty(RING, ring);
        try (GrpcEndpoints grpc = new GrpcEndpoints(rdma.group(), builder -> {
            builder.channelFactory(() -> {
                RdmaServerSocketChannel server = new RdmaServerSocketChannel();
                // Ahead of the acceptor that ServerBootstrap adds: it sees every accepted channel first.
                server.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object child) {
                        children.add((Channel) child);
                        ctx.fireChannelRead(child);
                    }
                });
                return server;
            });
            return setting == Setting.REGISTERED
                    ? builder.withChildOption(ChannelOption.ALLOCATOR, RdmaByteBufAllocator.DEFAULT) : builder;
        })) {
            ManagedChannel channel = grpc.channel(builder -> {
                builder.channelFactory(() -> {
                    RdmaSocketChannel client = new RdmaSocketChannel();
                    clients.add(client);
                    return client;
                }, InetSocketAddress.class);
                return setting == Setting.REGISTERED
                        ? builder.withOption(ChannelOption.ALLOCATOR, RdmaByteBufAllocator.DEFAULT) : builder;
            });
            byte[] message = GrpcEchoTest.messages(7, MESSAGE).get(0);
            // The first echo opens the rings that the second one writes into.
            assertArrayEquals(message, GrpcEchoClient.unary(channel, message));

            RdmaSocketChannel client = clients.poll(BOUND_SECONDS, TimeUnit.SECONDS);
            RdmaSocketChannel child = (RdmaSocketChannel) children.poll(BOUND_SECONDS, TimeUnit.SECONDS);
            assertNotNull(client, "the client's channel");
            assertNotNull(child, "the server's channel");
            assertAllocator(setting, client.config().getAllocator());
            assertAllocator(setting, child.config().getAllocator());
            Counts clientBefore = Counts.of(metrics(client));
            Counts childBefore = Counts.of(metrics(child));
            assertArrayEquals(message, GrpcEchoClient.unary(channel, message));
            Counts sent = Counts.of(metrics(client)).minus(clientBefore);
            Counts answered = Counts.of(metrics(child)).minus(childBefore);
            System.out.printf(Locale.ROOT, "allocator %s (%s), ring %s: client %s, server %s%n", setting,
                    client.config().getAllocator().getClass().getSimpleName(), ring, copies(sent), copies(answered));
            assertCopies(setting, ring, sent);
            assertCopies(setting, ring, answered);
        } finally {
            restore(CUSTOM_ALLOCATOR, customAllocator);
            restore(RING, ringMode);
        }
    }

    private static void assertAllocator(Setting setting, ByteBufAllocator allocator) {
        switch (setting) {
            case GRPC:
                // gRPC's own pool: a PooledByteBufAllocator that is not Netty's default one.
                assertTrue(allocator instanceof PooledByteBufAllocator, String.valueOf(allocator));
                assertNotEquals(ByteBufAllocator.DEFAULT, allocator);
                break;
            case NETTY_DEFAULT:
                assertSame(ByteBufAllocator.DEFAULT, allocator);
                break;
            default:
                assertSame(RdmaByteBufAllocator.DEFAULT, allocator);
                break;
        }
    }

    /** Asserts what a side copied of the bytes it sent, at least the message. */
    private static void assertCopies(Setting setting, String ring, Counts metrics) {
        long payload = metrics.sendBytes() + metrics.rdmaWriteBytes();
        assertTrue(payload > MESSAGE, "the message and gRPC's framing were sent: " + copies(metrics));
        if (ring.equals("auto")) {
            assertEquals(0, metrics.rdmaWrites(), "on rxe a connection opens no ring, everything goes by Send");
            if (setting == Setting.REGISTERED) {
                assertTrue(metrics.copiedBytes() <= metrics.sendBytes() / 4,
                        "most of the Sends read the registered buffers where they are: " + copies(metrics));
            } else {
                assertEquals(metrics.sendBytes(), metrics.copiedBytes(),
                        "every Send's payload is copied: the buffers are not registered");
            }
        } else if (setting == Setting.REGISTERED) {
            assertTrue(metrics.rdmaWriteBytes() >= MESSAGE / 2, "the DATA frames go by RDMA Write: " + copies(metrics));
            // A frame that Netty's HTTP/2 encoder composed from several buffers is copied all the same.
            assertTrue(metrics.copiedBytes() - metrics.sendBytes() <= metrics.rdmaWriteBytes() / 4,
                    "most of the Writes are read from the registered buffers: " + copies(metrics));
        } else {
            assertTrue(metrics.rdmaWriteBytes() >= MESSAGE / 2, "the DATA frames go by RDMA Write: " + copies(metrics));
            assertEquals(payload, metrics.copiedBytes(), "every byte is copied: the buffers are not registered");
        }
    }

    private static RdmaChannelMetrics metrics(RdmaSocketChannel channel) throws Exception {
        // Counted on the event loop: read there, after the call's last send was posted.
        return channel.eventLoop().submit(channel::metrics).get(BOUND_SECONDS, TimeUnit.SECONDS);
    }

    private static String copies(Counts metrics) {
        return String.format(Locale.ROOT, "%d B by %d Sends, %d B by %d Writes, %d B copied", metrics.sendBytes(),
                metrics.sends(), metrics.rdmaWriteBytes(), metrics.rdmaWrites(), metrics.copiedBytes());
    }

    /** The counters this test reads, so that one echo's share can be taken out of a channel's totals. */
    private record Counts(long sends, long sendBytes, long rdmaWrites, long rdmaWriteBytes, long copiedBytes) {

        static Counts of(RdmaChannelMetrics metrics) {
            return new Counts(metrics.sends(), metrics.sendBytes(), metrics.rdmaWrites(), metrics.rdmaWriteBytes(),
                    metrics.copiedBytes());
        }

        Counts minus(Counts earlier) {
            return new Counts(sends - earlier.sends, sendBytes - earlier.sendBytes, rdmaWrites - earlier.rdmaWrites,
                    rdmaWriteBytes - earlier.rdmaWriteBytes, copiedBytes - earlier.copiedBytes);
        }
    }

    private static void restore(String property, String value) {
        if (value == null) {
            System.clearProperty(property);
        } else {
            System.setProperty(property, value);
        }
    }
}
