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

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.nettyrdma.channel.rdma.RdmaByteBufAllocator;
import org.nettyrdma.channel.rdma.RdmaIoHandler;
import org.nettyrdma.channel.rdma.RdmaServerSocketChannel;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;

/**
 * Large writes of buffers from the channel's allocator travel by RDMA Write from where the pipeline
 * wrote them (the channel copies nothing), buffers of other allocators are copied once and counted,
 * an empty write completes, and the receiver gets every byte in order either way.
 */
class ZeroCopySendTest {

    private static final int WRITE = 64 * 1024;
    /**
     * Half the peer's ring (SO_RCVBUF, 1 MiB): a write that finds the ring full goes on as Sends,
     * which copy, so that a receiver holding ring regions cannot stall the sender.
     */
    private static final int WRITES = 8;

    private EventLoopGroup group;

    @BeforeEach
    void setUp() {
        assumeTrue(System.getenv("RDMA_TEST_ADDRESS") != null && Files.exists(Path.of("/dev/infiniband/rdma_cm")),
                "needs an RDMA device: run with scripts/test-all (rxe VM) or set RDMA_TEST_ADDRESS");
        group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory());
    }

    @AfterEach
    void tearDown() throws Exception {
        if (group != null) {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void registeredBuffersAreSentWithoutACopyAndOthersWithOne() throws Exception {
        int total = (WRITES + 1) * WRITE;
        byte[] expected = new byte[total];
        new Random(11).nextBytes(expected);
        ByteBuf received = Unpooled.buffer(total);
        CompletableFuture<Void> done = new CompletableFuture<>();
        InetAddress address = InetAddress.getByName(System.getenv("RDMA_TEST_ADDRESS"));
        Channel server = new ServerBootstrap().group(group).channel(RdmaServerSocketChannel.class)
                .childHandler(new SimpleChannelInboundHandler<ByteBuf>() {
                    @Override
                    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
                        received.writeBytes(msg);
                        if (received.readableBytes() == total) {
                            done.complete(null);
                        }
                    }

                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                        done.completeExceptionally(cause);
                    }
                })
                .bind(new InetSocketAddress(address, 0)).sync().channel();
        RdmaSocketChannel client = (RdmaSocketChannel) new Bootstrap().group(group)
                .channel(RdmaSocketChannel.class).handler(new ChannelInboundHandlerAdapter())
                .connect(server.localAddress()).sync().channel();
        assertSame(RdmaByteBufAllocator.DEFAULT, client.alloc(), "the channel's default allocator");

        for (int i = 0; i < WRITES; i++) {
            ByteBuf buf = client.alloc().directBuffer(WRITE);
            buf.writeBytes(expected, i * WRITE, WRITE);
            client.write(buf);
        }
        client.flush();
        client.writeAndFlush(Unpooled.EMPTY_BUFFER).sync();
        assertEquals(0, client.copiedBytes(), "bytes copied of registered buffers");
        assertTrue(RdmaByteBufAllocator.registeredBytes() > 0, "allocator memory registered with the device");

        client.writeAndFlush(Unpooled.wrappedBuffer(expected, WRITES * WRITE, WRITE)).sync();
        assertEquals(WRITE, client.copiedBytes(), "bytes copied of a heap buffer");

        done.get(60, TimeUnit.SECONDS);
        byte[] actual = new byte[total];
        received.readBytes(actual);
        received.release();
        assertArrayEquals(expected, actual);
        client.close().sync();
        server.close().sync();
    }
}
