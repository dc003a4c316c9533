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
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaMemoryMetrics;
import org.nettyrdma.testkit.ChildJvm;
import org.nettyrdma.testkit.EchoProbe;
import org.nettyrdma.testkit.RdmaTestEnvironment;
import org.nettyrdma.testkit.RdmaTransportFixture;
import org.nettyrdma.testkit.RingsOnEveryDevice;

/**
 * A server at its limit of registered memory refuses a connection that would pass it, at once and
 * saying why, and takes connections again once one closes: the limit is process-wide, so the server
 * runs in a process of its own, with a limit of one and a half times what a connection can come to
 * hold ({@code -Dorg.nettyrdma.maxRegisteredMemory}), and opens no ring on any device, so that a
 * connection's memory is the same on every device.
 */
class RdmaMemoryLimitTest {

    /**
     * A connection with the default buffers and no ring is admitted with room for 1.5 MiB, its slots
     * (0.5 MiB) and {@code SO_SNDBUF} of staging blocks, and holds its slots while idle: two idle
     * ones leave 1.25 MiB of this limit, too little for a third.
     */
    private static final long LIMIT = (3L << 20) / 2 * 3 / 2;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(1);

    @Test
    void aConnectionBeyondTheLimitIsRefusedWithTheReason() throws Exception {
        try (ChildJvm server = ChildJvm.start(List.of("-D" + RdmaMemoryMetrics.LIMIT_PROPERTY + '=' + LIMIT,
                // No share per address in this server: only the process-wide limit refuses.
                "-D" + RingsOnEveryDevice.PROPERTY + "=never"), PeerProcess.class, "server", "0",
                Long.toString(Long.MAX_VALUE))) {
            InetSocketAddress address = new InetSocketAddress(RdmaTestEnvironment.address(),
                    Integer.parseInt(server.awaitLine("listening ", 60, TimeUnit.SECONDS)));
            Channel first = echoOnce(address);
            // Idle, the first holds only its slots: room for the second's bound remains.
            Channel second = echoOnce(address);

            ChannelFuture refused = rdma.client().handler(new EchoProbe(2, 1)).connect(address).await();
            assertFalse(refused.isSuccess(), "a third connection would pass the server's limit");
            assertInstanceOf(ConnectException.class, refused.cause());
            assertTrue(refused.cause().getMessage().contains("its limit of registered memory"), () -> "the refusal says why: "
                    + refused.cause().getMessage());

            first.close().sync();
            // The server frees the first connection's memory once it sees the close.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            Channel third = null;
            while (third == null) {
                try {
                    third = echoOnce(address);
                } catch (ConnectException e) {
                    assertTrue(System.nanoTime() - deadline < 0, "a connection is taken again after one closed");
                    Thread.sleep(200);
                }
            }
            third.close().sync();
            second.close().sync();
        }
    }

    /**
     * Connects, echoes a few bytes and returns the channel; a refused connect throws its exception.
     * The 4 KiB message is above the inline limit, so the server stages its echo; no slab of the pool
     * (4 MiB) fits its limit, so it stages it in a block registered for the connection alone.
     */
    private Channel echoOnce(InetSocketAddress address) throws Exception {
        EchoProbe probe = new EchoProbe(1, 100, 4096);
        ChannelFuture connect = rdma.client().handler(RdmaTransportFixture.pipeline(probe)).connect(address).await();
        if (!connect.isSuccess()) {
            if (connect.cause() instanceof ConnectException) {
                throw (ConnectException) connect.cause();
            }
            throw new AssertionError("connect failed", connect.cause());
        }
        probe.writeAll(connect.channel());
        probe.assertEchoed(60);
        return connect.channel();
    }
}
