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
import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.Test;
import org.nettyrdma.channel.rdma.RdmaIoHandler;
import org.nettyrdma.channel.rdma.RdmaIoHandlerConfig;
import org.nettyrdma.channel.rdma.RdmaServerSocketChannel;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.testkit.DeviceResources;
import org.nettyrdma.testkit.EchoHandler;
import org.nettyrdma.testkit.RdmaTestEnvironment;

/**
 * A loop opens completion queues as connections need them and closes those its live connections no
 * longer need: after a burst of connections on small queues, one queue per device is left.
 */
class RdmaCompletionQueueShrinkTest {

    /**
     * Room for two connections of the default options per queue: 128 sends and the 64 receives of
     * their own receive queue each (docs/decisions.md#completion-queue-bound).
     */
    private static final int CQ_ENTRIES = 400;
    private static final int CONNECTIONS = 8;

    @Test
    void queuesOpenedForABurstCloseWhenItEnds() throws Exception {
        RdmaTestEnvironment.assumeDevice();
        DeviceResources.Snapshot before = DeviceResources.snapshot();
        int queuesBefore = DeviceResources.transportCounts().completionQueues();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1,
                RdmaIoHandler.newFactory(new RdmaIoHandlerConfig().setCompletionQueueEntries(CQ_ENTRIES)));
        try {
            Channel server = new ServerBootstrap().group(group).channel(RdmaServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(EchoHandler.INSTANCE);
                        }
                    })
                    .bind(RdmaTestEnvironment.anyPort()).sync().channel();
            List<ChannelFuture> connects = new ArrayList<>();
            for (int i = 0; i < CONNECTIONS; i++) {
                connects.add(new Bootstrap().group(group).channel(RdmaSocketChannel.class)
                        .handler(new ChannelInitializer<>() {
                            @Override
                            protected void initChannel(Channel ch) {
                            }
                        })
                        .connect(server.localAddress()));
            }
            List<Channel> clients = new ArrayList<>();
            for (ChannelFuture connect : connects) {
                clients.add(connect.sync().channel());
            }
            // Both ends of every connection are on the one loop: 16 queue pairs, two per queue.
            int queuesAtPeak = DeviceResources.transportCounts().completionQueues() - queuesBefore;
            assertTrue(queuesAtPeak >= CONNECTIONS, "queues open with " + CONNECTIONS + " connections: "
                    + queuesAtPeak);

            for (Channel client : clients) {
                client.close().sync();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (DeviceResources.transportCounts().completionQueues() - queuesBefore > 1 && System.nanoTime() - deadline < 0) {
                Thread.sleep(50);
            }
            assertEquals(1, DeviceResources.transportCounts().completionQueues() - queuesBefore,
                    "queues left once the connections closed, of " + queuesAtPeak + " at the peak");
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
        DeviceResources.assertNoneLeftSince(before);
    }
}
