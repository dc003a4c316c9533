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
package org.nettyrdma.testsuite.wire;

import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.nettyrdma.channel.rdma.RdmaIoHandler;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;

/**
 * What every test across the wire needs, as a JUnit extension: it aborts the test without a peer host
 * ({@link TwoHosts#assumePeer()}), gives it one {@code RdmaIoHandler} loop for its clients and shuts
 * the loop down afterwards. The servers are the peer's, in another kernel: the kernel's counts of
 * verbs objects here say nothing about them, so unlike the transport tests this one does not compare them.
 */
final class WireFixture implements BeforeEachCallback, AfterEachCallback {

    private EventLoopGroup group;

    @Override
    public void beforeEach(ExtensionContext context) throws InterruptedException {
        TwoHosts.assumePeer();
        group = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());
    }

    @Override
    public void afterEach(ExtensionContext context) throws InterruptedException {
        if (group != null) {
            try {
                group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
            } finally {
                group = null;
            }
        }
    }

    /** A client bootstrap on the test's loop; the caller adds the handler and options. */
    Bootstrap client() {
        return new Bootstrap().group(group).channel(RdmaSocketChannel.class);
    }
}
