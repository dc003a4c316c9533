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

import java.nio.channels.ClosedChannelException;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.testkit.Await;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * A side whose peer holds every receive slot it was granted (the peer's pipeline does not read) still
 * ends its stream in order: its {@code SHUTDOWN_OUTPUT} and {@code CLOSE} wait for a slot instead of
 * being dropped, so the peer, once it reads, sees every byte, then the end of input, then a close, and
 * its own pending writes fail as closed, not as reset by a peer that vanished.
 */
class RdmaCloseWithoutCreditTest {

    private static final int SERVER_WRITES = 1000;
    private static final int SERVER_WRITE_SIZE = 4096;
    private static final int CLIENT_WRITES = 512;
    private static final int CLIENT_WRITE_SIZE = 64 * 1024;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    @Test
    void theEndOfStreamWaitsForASlotWhenThePeerHoldsThemAll() throws Exception {
        CompletableFuture<Channel> child = new CompletableFuture<>();
        AtomicInteger serverDelivered = new AtomicInteger();
        AtomicLong serverRead = new AtomicLong();
        Channel server = rdma.bind(rdma.server().childHandler(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelActive(ChannelHandlerContext ctx) {
                child.complete(ctx.channel());
                for (int i = 0; i < SERVER_WRITES; i++) {
                    ByteBuf buf = ctx.alloc().buffer(SERVER_WRITE_SIZE).writeZero(SERVER_WRITE_SIZE);
                    ctx.writeAndFlush(buf).addListener(f -> {
                        if (f.isSuccess()) {
                            serverDelivered.incrementAndGet();
                        }
                    });
                }
            }

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ByteBuf buf = (ByteBuf) msg;
                serverRead.addAndGet(buf.readableBytes());
                buf.release();
            }
        }));

        AtomicLong clientRead = new AtomicLong();
        CompletableFuture<Void> inputShutdown = new CompletableFuture<>();
        Queue<Throwable> clientErrors = new ConcurrentLinkedQueue<>();
        Channel client = rdma.client()
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(32 << 20, 64 << 20))
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf buf = (ByteBuf) msg;
                        clientRead.addAndGet(buf.readableBytes());
                        buf.release();
                    }

                    @Override
                    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                        if (evt == ChannelInputShutdownEvent.INSTANCE) {
                            inputShutdown.complete(null);
                        }
                    }

                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                        clientErrors.add(cause);
                    }
                })
                .connect(server.localAddress()).sync().channel();
        Channel serverChild = child.get(30, TimeUnit.SECONDS);

        // The client reads nothing: the server's writes stop once the client holds every slot and the
        // ring is full.
        awaitSteady(serverDelivered);
        int delivered = serverDelivered.get();
        assertTrue(delivered < SERVER_WRITES, () -> "all " + delivered + " writes were delivered to a peer that "
                + "does not read: the test needs the server out of credit");

        // The server reads what the client writes, so its CREDIT messages take its last slots too.
        Queue<Throwable> writeFailures = new ConcurrentLinkedQueue<>();
        AtomicInteger pendingWrites = new AtomicInteger(CLIENT_WRITES);
        for (int i = 0; i < CLIENT_WRITES; i++) {
            ByteBuf buf = client.alloc().buffer(CLIENT_WRITE_SIZE).writeZero(CLIENT_WRITE_SIZE);
            ChannelFuture write = client.write(buf);
            write.addListener(f -> {
                if (!f.isSuccess()) {
                    writeFailures.add(f.cause());
                }
                pendingWrites.decrementAndGet();
            });
        }
        client.flush();
        Await.until(() -> serverRead.get() >= 1 << 20, 60, () -> "the server read only " + serverRead.get() + " bytes");

        DuplexChannel duplexChild = (DuplexChannel) serverChild;
        duplexChild.shutdownOutput().sync();
        serverChild.close();

        client.config().setAutoRead(true);
        assertTrue(client.closeFuture().await(30, TimeUnit.SECONDS), "the client closed");
        assertTrue(serverChild.closeFuture().await(30, TimeUnit.SECONDS), "the server's child closed");
        inputShutdown.get(1, TimeUnit.SECONDS);
        Await.until(() -> pendingWrites.get() == 0, 30, () -> pendingWrites.get() + " client writes never completed");

        // Every write the server was told was delivered, and at most a part of the one after it: the
        // rest of that one failed with the shutdown, as writes not yet sent fail at a TCP shutdown.
        long confirmed = (long) serverDelivered.get() * SERVER_WRITE_SIZE;
        assertTrue(clientRead.get() >= confirmed && clientRead.get() < confirmed + SERVER_WRITE_SIZE,
                () -> "the client read " + clientRead.get() + " bytes; the server's writes confirmed " + confirmed);
        assertFalse(writeFailures.isEmpty(), "client writes were pending when the server closed");
        for (Throwable failure : writeFailures) {
            assertTrue(failure instanceof ClosedChannelException, () -> "a client write failed with " + failure
                    + ": the server's CLOSE did not arrive before its disconnect");
        }
        assertEquals(List.of(), List.copyOf(clientErrors), "exceptions in the client's pipeline");
        server.close().sync();
    }

    /** Waits until {@code count} is above 0 and has not moved for a second. */
    private static void awaitSteady(AtomicInteger count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        int last = -1;
        int steadyPolls = 0;
        while (steadyPolls < 5) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the server's writes did not stop: " + count.get() + " delivered");
            }
            Thread.sleep(200);
            int now = count.get();
            steadyPolls = now > 0 && now == last ? steadyPolls + 1 : 0;
            last = now;
        }
    }
}
