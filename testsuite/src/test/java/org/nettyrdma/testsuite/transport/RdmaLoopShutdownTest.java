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
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ConnectException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaIoHandler;
import org.nettyrdma.channel.rdma.RdmaServerSocketChannel;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.testkit.EchoHandler;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * A loop that shuts down closes its channels while it still runs tasks, so that a close's events fire.
 * A connection accepted onto a child loop that is shutting down is refused at once: the loop takes no
 * new RDMA channel once it began to shut down, the peer's connect fails as refused, and the listener
 * and its own loop go on. A channel registered there would be closed only after the loop stopped
 * taking the tasks that fire a close's events.
 */
class RdmaLoopShutdownTest {

    /** Long enough that the child loop is still shutting down, not gone, when the client connects. */
    private static final int QUIET_SECONDS = 10;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(1);

    @Test
    void aConnectionAcceptedOntoALoopThatIsShuttingDownIsRefused() throws Exception {
        EventLoopGroup children = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());
        Channel server = null;
        try {
            server = rdma.bind(new ServerBootstrap().group(rdma.group(), children)
                    .channel(RdmaServerSocketChannel.class).childHandler(EchoHandler.INSTANCE));
            children.shutdownGracefully(QUIET_SECONDS, 3 * QUIET_SECONDS, TimeUnit.SECONDS);

            ChannelFuture connect = rdma.client().handler(new ChannelInboundHandlerAdapter())
                    .connect(server.localAddress());
            assertTrue(connect.await(30, TimeUnit.SECONDS), "the connect ended");
            assertFalse(children.isTerminated(), "the child loop was still shutting down, not gone");
            assertFalse(connect.isSuccess(), "a connect onto a loop that is shutting down");
            Throwable cause = connect.cause();
            assertTrue(cause instanceof ConnectException && cause.getMessage().contains("connection refused"),
                    () -> "refused: " + cause);
            assertTrue(server.isActive(), "the listener is still up");
        } finally {
            if (server != null) {
                server.close().sync();
            }
            // A no-op if it is shutting down already; otherwise the test failed before it began to.
            children.shutdownGracefully(0, 5, TimeUnit.SECONDS);
            assertTrue(children.terminationFuture().await(60, TimeUnit.SECONDS), "the child loop terminated");
        }
    }

    /**
     * Netty's loop calls {@code prepareToDestroy} after a turn's I/O, if the shutdown has started by
     * then; with no quiet period, a loop asked to shut down while it runs its tasks ends without that
     * call. Its channels must still be closed while the loop runs the tasks that fire
     * {@code channelInactive} and {@code channelUnregistered}, not afterwards, when Netty can only log
     * "Can't invoke task later" and drop the events.
     */
    @Test
    void aLoopShutDownWithoutQuietPeriodWhileBusyFiresItsChannelsCloseEvents() throws Exception {
        EventLoopGroup clientLoop = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());
        Channel server = null;
        try {
            server = rdma.bind(rdma.server().childHandler(EchoHandler.INSTANCE));
            CountDownLatch inactive = new CountDownLatch(1);
            CountDownLatch unregistered = new CountDownLatch(1);
            Channel client = new Bootstrap().group(clientLoop).channel(RdmaSocketChannel.class)
                    .handler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelInactive(ChannelHandlerContext ctx) {
                            inactive.countDown();
                        }

                        @Override
                        public void channelUnregistered(ChannelHandlerContext ctx) {
                            unregistered.countDown();
                        }
                    }).connect(server.localAddress()).sync().channel();

            EventLoop loop = client.eventLoop();
            CountDownLatch busy = new CountDownLatch(1);
            loop.execute(new Runnable() {
                @Override
                public void run() {
                    busy.countDown();
                    if (!loop.isShuttingDown()) {
                        loop.execute(this);
                    }
                }
            });
            assertTrue(busy.await(10, TimeUnit.SECONDS), "the loop runs the busy task");
            clientLoop.shutdownGracefully(0, 5, TimeUnit.SECONDS);
            assertTrue(clientLoop.terminationFuture().await(30, TimeUnit.SECONDS), "the client loop terminated");

            assertTrue(client.closeFuture().isDone(), "the channel was closed");
            assertTrue(inactive.await(0, TimeUnit.SECONDS), "channelInactive fired");
            assertTrue(unregistered.await(0, TimeUnit.SECONDS), "channelUnregistered fired");
        } finally {
            if (server != null) {
                server.close().sync();
            }
            clientLoop.shutdownGracefully(0, 5, TimeUnit.SECONDS);
            assertTrue(clientLoop.terminationFuture().await(60, TimeUnit.SECONDS), "the client loop terminated");
        }
    }
}
