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

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaChannelOption;
import org.nettyrdma.channel.rdma.RdmaMemoryMetrics;
import org.nettyrdma.testkit.ChildJvm;
import org.nettyrdma.testkit.EchoProbe;
import org.nettyrdma.testkit.RdmaTestEnvironment;
import org.nettyrdma.testkit.RdmaTransportFixture;
import org.nettyrdma.testkit.RingsOnEveryDevice;

/**
 * A server at its limit of registered memory, or of connections, refuses a connection that would pass
 * it, at once and saying why, and takes connections again once one closes: the limits are
 * process-wide, so the server runs in a process of its own ({@code -Dorg.nettyrdma.maxRegisteredMemory},
 * {@code -Dorg.nettyrdma.maxConnections}), and opens no ring on any device, so that a connection's
 * memory is the same on every device.
 */
class RdmaMemoryLimitTest {

    /**
     * Room for a few connections' receive slots (8 KiB each, registered slot by slot in their own
     * queues, 4 to 64 of them as a share grows) and for the echoes' staging blocks (64 KiB each,
     * registered for a connection alone, since no 4 MiB slab of the pool fits): a connection is
     * admitted, and a share grows, only while a staging block fits beside its slots, so each
     * connection held can still answer.
     */
    private static final long LIMIT = 640 << 10;
    private static final int MOST_CONNECTS = 40;
    private static final int CONNECTION_LIMIT = 4;
    /** Longer than a connection keeps its emptied staging block after its last send (1 to 2 s). */
    private static final long SPARE_KEPT_MILLIS = 2500;

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
            List<Channel> held = new ArrayList<>();
            ConnectException refused = null;
            while (refused == null && held.size() < MOST_CONNECTS) {
                try {
                    held.add(echoOnce(address));
                } catch (ConnectException e) {
                    refused = e;
                }
                // The server keeps the staging block an echo emptied for one to two seconds after
                // its last send: once it went, the limit holds the connections' receive slots only.
                Thread.sleep(SPARE_KEPT_MILLIS);
            }
            System.out.println(held.size() + " connections held under a limit of " + LIMIT + " bytes, the next: "
                    + refused);
            assertNotNull(refused, "a connection beyond the server's limit was refused");
            assertTrue(held.size() >= 2, "connections held before the limit: " + held.size());
            assertTrue(refused.getMessage().contains("its limit of registered memory"), "the refusal says why: "
                    + refused.getMessage());

            // The server frees the first connection's share once it sees the close.
            closeOneAndConnectAgain(held, address);
        }
    }

    /**
     * The other process-wide bound: a server process that holds as many connections as it may
     * ({@code -Dorg.nettyrdma.maxConnections}) refuses the next one at once, saying why, and takes
     * connections again once one closes.
     */
    @Test
    void aConnectionBeyondTheProcessConnectionLimitIsRefusedWithTheReason() throws Exception {
        try (ChildJvm server = ChildJvm.start(List.of("-D" + RdmaMemoryMetrics.CONNECTION_LIMIT_PROPERTY + '='
                + CONNECTION_LIMIT), PeerProcess.class, "server", "0")) {
            InetSocketAddress address = new InetSocketAddress(RdmaTestEnvironment.address(),
                    Integer.parseInt(server.awaitLine("listening ", 60, TimeUnit.SECONDS)));
            List<Channel> held = new ArrayList<>();
            for (int i = 0; i < CONNECTION_LIMIT; i++) {
                held.add(echoOnce(address));
            }
            ConnectException refused = assertThrows(ConnectException.class, () -> held.add(echoOnce(address)),
                    "a connection beyond the server's connection limit");
            System.out.println(held.size() + " connections held under a limit of " + CONNECTION_LIMIT
                    + " connections, the next: " + refused);
            assertTrue(refused.getMessage().contains(RdmaMemoryMetrics.CONNECTION_LIMIT_PROPERTY),
                    "the refusal says why: " + refused.getMessage());
            // The server frees the first connection's queue pair once it sees the close.
            closeOneAndConnectAgain(held, address);
        }
    }

    /** Closes the first of {@code held}, connects again within 30 s, and closes every connection. */
    private void closeOneAndConnectAgain(List<Channel> held, InetSocketAddress address) throws Exception {
        held.remove(0).close().sync();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Channel again = null;
        while (again == null) {
            try {
                again = echoOnce(address);
            } catch (ConnectException e) {
                assertTrue(System.nanoTime() - deadline < 0, "a connection is taken again after one closed: " + e);
                Thread.sleep(200);
            }
        }
        again.close().sync();
        for (Channel channel : held) {
            channel.close().sync();
        }
    }

    /**
     * Connects, echoes a few bytes and returns the channel; a refused connect throws its exception.
     * The 4 KiB message is above the inline limit, so the server stages its echo; no slab of the pool
     * (4 MiB) fits its limit, so it stages it in a block registered for the connection alone.
     */
    private Channel echoOnce(InetSocketAddress address) throws Exception {
        EchoProbe probe = new EchoProbe(1, 100, 4096);
        // Strictly RDMA: with TCP_FALLBACK a connect refused for registered memory would go on over TCP.
        ChannelFuture connect = rdma.client().option(RdmaChannelOption.TCP_FALLBACK, false)
                .handler(RdmaTransportFixture.pipeline(probe)).connect(address).await();
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
