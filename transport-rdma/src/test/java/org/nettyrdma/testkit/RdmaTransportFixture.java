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
package org.nettyrdma.testkit;

import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.nettyrdma.channel.rdma.RdmaIoHandler;
import org.nettyrdma.channel.rdma.RdmaIoHandlerConfig;
import org.nettyrdma.channel.rdma.RdmaServerSocketChannel;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;

/**
 * What every transport device test needs, as a JUnit extension: it aborts the test without an RDMA
 * device, gives it a fresh group of {@code RdmaIoHandler} loops shared by servers and clients, and
 * afterwards shuts the group down and asserts that no memory region, completion queue, queue pair or
 * CM id is left ({@link DeviceResources}). The group is per test because the loops own the completion
 * queues: only when they stop can the test see every object freed.
 */
public final class RdmaTransportFixture implements BeforeEachCallback, AfterEachCallback {

    private final int loops;
    private final RdmaIoHandlerConfig config;
    private EventLoopGroup group;
    private DeviceResources.Snapshot before;

    public RdmaTransportFixture(int loops) {
        this(loops, 0);
    }

    /** A fixture whose loops busy-poll for {@code busyPollMicros} ({@link RdmaIoHandler#newFactory(int)}). */
    public RdmaTransportFixture(int loops, int busyPollMicros) {
        this(loops, new RdmaIoHandlerConfig().setBusyPollMicros(busyPollMicros));
    }

    /** A fixture whose loops have the tunables of {@code config}. */
    public RdmaTransportFixture(int loops, RdmaIoHandlerConfig config) {
        this.loops = loops;
        this.config = new RdmaIoHandlerConfig(config);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        RdmaTestEnvironment.assumeDevice();
        before = DeviceResources.snapshot();
        group = new MultiThreadIoEventLoopGroup(loops, RdmaIoHandler.newFactory(config));
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        if (group == null) {
            return;
        }
        try {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        } finally {
            group = null;
        }
        DeviceResources.assertNoneLeftSince(before);
    }

    public EventLoopGroup group() {
        return group;
    }

    /** A server bootstrap on the test group; the caller adds the child handler and options. */
    public ServerBootstrap server() {
        return new ServerBootstrap().group(group).channel(RdmaServerSocketChannel.class);
    }

    /** A client bootstrap on the test group; the caller adds the handler and options. */
    public Bootstrap client() {
        return new Bootstrap().group(group).channel(RdmaSocketChannel.class);
    }

    /** A pipeline of {@code handlers}, for a bootstrap that makes one channel (they are added once). */
    public static ChannelInitializer<Channel> pipeline(ChannelHandler... handlers) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(handlers);
            }
        };
    }

    /** Binds {@code server} to a free port of the test device's address. */
    public Channel bind(ServerBootstrap server) throws InterruptedException {
        return server.bind(RdmaTestEnvironment.anyPort()).sync().channel();
    }
}
