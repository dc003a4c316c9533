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

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.QueuePairProbe;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.testkit.EchoHandler;
import org.nettyrdma.testkit.EchoProbe;
import org.nettyrdma.testkit.RdmaTestEnvironment;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * The socket options that RPC and web frameworks set on every channel, over RDMA (docs/options.md):
 * a connection whose ends both got all of them carries data, and each reads back as set; {@code IP_TOS}
 * on the connecting side becomes the traffic class of its queue pair, and the accepting side's queue
 * pair carries the same; a closed server's port can be bound again at once without
 * {@code SO_REUSEADDR}, as RDMA CM keeps no port in TIME_WAIT.
 */
class RdmaSocketOptionsTest {

    /** DSCP 46 (expedited forwarding) in the upper six bits. */
    private static final int TRAFFIC_CLASS = 46 << 2;
    private static final int BUFFER = 256 * 1024;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    @Test
    void theOptionsFrameworksSetAreTakenAndIpTosMarksTheConnection() throws Exception {
        BlockingQueue<RdmaSocketChannel> children = new LinkedBlockingQueue<>();
        Channel server = rdma.bind(rdma.server()
                .option(ChannelOption.SO_BACKLOG, 128)
                .option(ChannelOption.SO_REUSEADDR, true)
                .option(ChannelOption.SO_RCVBUF, BUFFER)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childOption(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.SO_LINGER, 5)
                .childOption(ChannelOption.SO_SNDBUF, BUFFER)
                .childOption(ChannelOption.SO_RCVBUF, BUFFER)
                .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        children.add((RdmaSocketChannel) ch);
                        ch.pipeline().addLast(EchoHandler.INSTANCE);
                    }
                }));
        EchoProbe probe = new EchoProbe(11, 1, 4096, 100_000);
        RdmaSocketChannel client = (RdmaSocketChannel) rdma.client()
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.SO_REUSEADDR, true)
                .option(ChannelOption.SO_LINGER, 5)
                .option(ChannelOption.IP_TOS, TRAFFIC_CLASS)
                .option(ChannelOption.SO_SNDBUF, BUFFER)
                .option(ChannelOption.SO_RCVBUF, BUFFER)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 30_000)
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .handler(probe)
                .connect(server.localAddress()).sync().channel();
        probe.writeAll(client);
        probe.assertEchoed(60);
        RdmaSocketChannel child = children.poll(30, TimeUnit.SECONDS);

        Map<ChannelOption<?>, Object> options = client.config().getOptions();
        assertEquals(Boolean.TRUE, options.get(ChannelOption.TCP_NODELAY));
        assertEquals(Boolean.TRUE, options.get(ChannelOption.SO_KEEPALIVE));
        assertEquals(Boolean.TRUE, options.get(ChannelOption.SO_REUSEADDR));
        assertEquals(5, options.get(ChannelOption.SO_LINGER));
        assertEquals(TRAFFIC_CLASS, options.get(ChannelOption.IP_TOS));
        assertEquals(BUFFER, options.get(ChannelOption.SO_SNDBUF));
        assertEquals(BUFFER, options.get(ChannelOption.SO_RCVBUF));
        assertEquals(30_000, options.get(ChannelOption.CONNECT_TIMEOUT_MILLIS));
        assertEquals(PooledByteBufAllocator.DEFAULT, options.get(ChannelOption.ALLOCATOR));
        assertEquals(BUFFER, child.config().getReceiveBufferSize());
        assertEquals(Boolean.TRUE, child.config().getOption(ChannelOption.SO_KEEPALIVE));
        assertEquals(128, server.config().getOption(ChannelOption.SO_BACKLOG));

        int connecting = QueuePairProbe.trafficClass(client);
        int accepting = QueuePairProbe.trafficClass(child);
        System.out.printf("IP_TOS 0x%02x: the connecting side's queue pair carries traffic class 0x%02x, "
                + "the accepting side's 0x%02x%n", TRAFFIC_CLASS, connecting, accepting);
        assertEquals(TRAFFIC_CLASS, connecting, "the connecting side's traffic class");
        assertEquals(TRAFFIC_CLASS, accepting, "the accepting side carries the class the connecting side chose");
        client.close().sync();
        server.close().sync();
    }

    @Test
    void aClosedServersPortCanBeBoundAgainAtOnce() throws Exception {
        Channel first = rdma.bind(rdma.server().childHandler(EchoHandler.INSTANCE));
        int port = ((InetSocketAddress) first.localAddress()).getPort();
        EchoProbe probe = new EchoProbe(12, 64);
        Channel client = rdma.client().handler(probe).connect(first.localAddress()).sync().channel();
        probe.writeAll(client);
        probe.assertEchoed(60);
        client.close().sync();
        first.close().sync();

        // No SO_REUSEADDR: the port is free as soon as the listener's id is destroyed.
        Channel second = rdma.server().childHandler(EchoHandler.INSTANCE)
                .bind(new InetSocketAddress(RdmaTestEnvironment.address(), port)).sync().channel();
        EchoProbe again = new EchoProbe(13, 64);
        Channel next = rdma.client().handler(again).connect(second.localAddress()).sync().channel();
        again.writeAll(next);
        again.assertEchoed(60);
        next.close().sync();
        second.close().sync();
    }
}
