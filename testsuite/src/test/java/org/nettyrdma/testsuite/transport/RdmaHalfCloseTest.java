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

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * The peer's half-close reaches a channel that is not reading ({@code AUTO_READ} off, no
 * {@code read()} pending) at once, as TCP's FIN reaches an epoll channel through EPOLLRDHUP:
 * an application that stopped reading still learns that the input ended.
 */
class RdmaHalfCloseTest {

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    @Test
    void inputShutdownArrivesWithoutARead() throws Exception {
        CompletableFuture<Channel> child = new CompletableFuture<>();
        Channel server = rdma.bind(rdma.server().childHandler(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelActive(ChannelHandlerContext ctx) {
                child.complete(ctx.channel());
            }
        }));
        CompletableFuture<Void> inputShutdown = new CompletableFuture<>();
        Channel client = rdma.client()
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                        if (evt == ChannelInputShutdownEvent.INSTANCE) {
                            inputShutdown.complete(null);
                        }
                    }
                })
                .connect(server.localAddress()).sync().channel();

        ((DuplexChannel) child.get(30, TimeUnit.SECONDS)).shutdownOutput().sync();
        inputShutdown.get(30, TimeUnit.SECONDS);
        assertTrue(client.isOpen(), "a channel that allows half-closure stays open");
        assertTrue(((DuplexChannel) client).isInputShutdown());

        client.close().sync();
        server.close().sync();
    }

    /**
     * A server that writes and closes at once can destroy its id before its CM saw the connection
     * established; the kernel then rejects the connection, and the client gets RDMA CM's
     * {@code REJECTED} on a connection that is up, instead of {@code DISCONNECTED} (in Netty's
     * {@code testAllDataReadClosure} on rxe, now and then a connection, which then closed with its data
     * unread). However the end comes, a client that reads only after it arrived still reads every
     * byte first. Which end comes is up to timing: this test makes the pattern a hundred times, it
     * cannot force the rejection.
     */
    @Test
    void whatAPeerWroteBeforeClosingAtOnceIsReadAfterTheEnd() throws Exception {
        int size = 16 * 1024;
        int connections = 100;
        BlockingQueue<Channel> children = new LinkedBlockingQueue<>();
        Channel server = rdma.bind(rdma.server().childHandler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelActive(ChannelHandlerContext ctx) {
                        children.add(ctx.channel());
                        ByteBuf buf = ctx.alloc().buffer(size).writeZero(size);
                        ctx.writeAndFlush(buf).addListener(ChannelFutureListener.CLOSE);
                    }
                });
            }
        }));
        for (int i = 0; i < connections; i++) {
            AtomicInteger read = new AtomicInteger();
            CompletableFuture<Void> inactive = new CompletableFuture<>();
            Channel client = rdma.client()
                    .option(ChannelOption.AUTO_READ, false)
                    .handler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ByteBuf buf = (ByteBuf) msg;
                            read.addAndGet(buf.readableBytes());
                            buf.release();
                        }

                        @Override
                        public void channelReadComplete(ChannelHandlerContext ctx) {
                            ctx.read();
                        }

                        @Override
                        public void channelInactive(ChannelHandlerContext ctx) {
                            inactive.complete(null);
                        }
                    })
                    .connect(server.localAddress()).sync().channel();
            // The server's side is gone before the client reads: the end reached the client first.
            children.poll(30, TimeUnit.SECONDS).closeFuture().sync();
            Thread.sleep(20);
            client.read();
            inactive.get(30, TimeUnit.SECONDS);
            assertEquals(size, read.get(), "bytes read on connection " + i);
        }
        server.close().sync();
    }
}
