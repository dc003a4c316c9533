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
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.nettyrdma.channel.rdma.RdmaFallbackReason;
import org.nettyrdma.testkit.Await;
import org.nettyrdma.testkit.ChildJvm;
import org.nettyrdma.testkit.DeviceUnderTest;
import org.nettyrdma.testkit.EchoProbe;
import org.nettyrdma.testkit.RdmaTestEnvironment;

/**
 * The device of a server of this transport removed ({@code rdma link delete}) while the server serves
 * RDMA and TCP clients, and a client whose device is removed while it connects. What a user sees: the
 * RDMA connections fail naming the removal, the TCP ones go on, new TCP clients and new clients of this
 * transport are served over TCP, a connect that loses its device on the way goes on over TCP
 * ({@link RdmaFallbackReason#DEVICE_REMOVED}), and a server started while the device is away serves
 * TCP, then RDMA once the device is back.
 *
 * <p>The server and the clients of this transport run in processes of their own ({@link PeerProcess}),
 * as in {@link RdmaDeviceRemovalTest}, whose tag this test shares: it removes the test device, so it
 * runs in the boot that nothing else shares ({@code scripts/device-tests --suite removal}). The plain
 * TCP clients are Netty's {@link EpollSocketChannel}, in this process, which uses no RDMA.
 */
@Tag(RdmaDeviceRemovalTest.TAG)
class RdmaTcpAfterRemovalTest {

    /** Under emulation a release of everything takes a few seconds; the kernel itself takes 50 ms. */
    private static final long REMOVAL_BOUND_SECONDS = 60;
    /** A child JVM under emulation takes about 20 s to start, more when two VMs share the cores. */
    private static final long CHILD_SECONDS = 120;

    private final EventLoopGroup tcp = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    private RdmaLink link;
    /** The device's address, where the server listens. */
    private String address;

    @BeforeEach
    void removableDevice() {
        link = RdmaLink.assumeRemovable();
        address = RdmaTestEnvironment.address().getHostAddress();
    }

    @AfterEach
    void shutDown() throws InterruptedException {
        tcp.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void theServerKeepsServingTcpOnceItsDeviceIsRemoved() throws Exception {
        assumeFalse(DeviceUnderTest.isIwarp(),
                "on iWARP RDMA CM holds the server's TCP port: there is no TCP listener to keep serving");
        try (ChildJvm server = serverOnTheDevice()) {
            String port = server.awaitLine("listening ", CHILD_SECONDS, TimeUnit.SECONDS);
            InetSocketAddress target = new InetSocketAddress(address, Integer.parseInt(port));
            Channel tcpBefore = connectOverTcp(target);
            echoes(tcpBefore, 61);
            try (ChildJvm rdmaClient = ChildJvm.start(PeerProcess.class, "stream", address, port, "again")) {
                rdmaClient.awaitLine("connected", CHILD_SECONDS, TimeUnit.SECONDS);
                link.addBackAfter(() -> {
                    link.delete(REMOVAL_BOUND_SECONDS);
                    String failure = rdmaClient.awaitLine("failed: ", 30, TimeUnit.SECONDS);
                    assertTrue(failure.contains("removed"), () -> "the RDMA client's channel names the removal: "
                            + failure);
                    server.awaitLine("child-inactive", 30, TimeUnit.SECONDS);
                    String again = rdmaClient.awaitLine("carried by ", CHILD_SECONDS, TimeUnit.SECONDS);
                    System.out.println("the RDMA client's process connects again once the device is gone: carried by "
                            + again);
                    assertEquals("TCP: " + RdmaFallbackReason.NO_ROUTE, again,
                            "RDMA CM of a process that had the device finds none for the address");
                    assertEquals(0, rdmaClient.awaitExit(CHILD_SECONDS, TimeUnit.SECONDS),
                            () -> "the server echoed to the RDMA client's process over TCP: " + rdmaClient.output());

                    echoes(tcpBefore, 62);
                    Channel tcpAfter = connectOverTcp(target);
                    echoes(tcpAfter, 63);
                    tcpAfter.close().sync();
                    assertEquals(RdmaFallbackReason.NO_LOCAL_DEVICE, echoedOverTcp(address, port),
                            "a process started once the device is gone has no RDMA device");
                });
            }
            tcpBefore.close().sync();
            assertTrue(server.isAlive(), "the server process is still running");
        }
    }

    /**
     * A server started while the host has no RDMA device serves TCP, and RDMA too once the device is
     * back: the server of a host whose driver is reloaded comes up all the same.
     */
    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void aServerBoundWhileTheDeviceIsAwayServesTcpThenRdma() throws Exception {
        link.addBackAfter(() -> {
            link.delete(REMOVAL_BOUND_SECONDS);
            try (ChildJvm server = serverOnTheDevice()) {
                String port = server.awaitLine("listening ", CHILD_SECONDS, TimeUnit.SECONDS);
                Channel tcpClient = connectOverTcp(new InetSocketAddress(address, Integer.parseInt(port)));
                echoes(tcpClient, 64);
                tcpClient.close().sync();

                link.addBack();
                try (ChildJvm client = ChildJvm.start(PeerProcess.class, "echo", address, port)) {
                    assertEquals("RDMA", client.awaitLine("carried by ", CHILD_SECONDS, TimeUnit.SECONDS),
                            "the server listens on RDMA CM once the device is back");
                    assertEquals(0, client.awaitExit(CHILD_SECONDS, TimeUnit.SECONDS), () -> "the server echoed: "
                            + client.output());
                }
                assertTrue(server.isAlive(), "the server process is still running");
            }
        });
    }

    /**
     * The server's process is stopped, so that the kernel's CM takes the client's connect request and
     * nothing answers it: the client waits in {@code CONNECT}, with the id on the device, when the
     * device goes. The kernel completes a TCP handshake for a stopped process, so the client's TCP
     * connect succeeds; the removal itself waits for the server until it runs again.
     */
    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void aConnectWhoseDeviceIsRemovedGoesOnOverTcp() throws Exception {
        // On iWARP the kernel answers the TCP handshake and the MPA request is read, but the stopped
        // server sends no MPA reply: siw gives up after 5 s (UNREACHABLE), so no connect is still
        // waiting when the device goes.
        assumeFalse(DeviceUnderTest.isIwarp(), "on iWARP a connect to a stopped server ends at siw's 5 s MPA timeout,"
                + " before the device goes");
        try (ChildJvm server = serverOnTheDevice()) {
            String port = server.awaitLine("listening ", CHILD_SECONDS, TimeUnit.SECONDS);
            server.suspend();
            try (ChildJvm client = ChildJvm.start(PeerProcess.class, "echo", address, port)) {
                link.addBackAfter(() -> {
                    try {
                        awaitConnectRequest(address, port, client);
                        FutureTask<Long> removal = new FutureTask<>(() -> link.delete(REMOVAL_BOUND_SECONDS));
                        new Thread(removal, "rdma link delete").start();
                        String carrier = client.awaitLine("carried by ", 60, TimeUnit.SECONDS);
                        System.out.println("the client whose device was removed while it connected: carried by "
                                + carrier);
                        assertEquals("TCP: " + RdmaFallbackReason.DEVICE_REMOVED, carrier);
                        server.resume();
                        removal.get(REMOVAL_BOUND_SECONDS + 30, TimeUnit.SECONDS);
                        assertEquals(0, client.awaitExit(CHILD_SECONDS, TimeUnit.SECONDS),
                                () -> "the server echoed over TCP: " + client.output());
                    } finally {
                        server.resume();
                    }
                });
            }
            assertTrue(server.isAlive(), "the server process is still running");
        }
    }

    /** Starts a server of this transport bound to the device's address, in a process of its own. */
    private ChildJvm serverOnTheDevice() throws IOException {
        return ChildJvm.start(PeerProcess.class, "server", address + ":0");
    }

    /**
     * Waits until a connect request to {@code address}:{@code port} is sent and unanswered: its client's id
     * is in the kernel's {@code CONNECT} state (the id the server's CM made for the request has the
     * client's port as its destination).
     */
    private static void awaitConnectRequest(String address, String port, ChildJvm client) throws Exception {
        String destination = " dst-addr " + address + ':' + port;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CHILD_SECONDS);
        for (String ids = RdmaLink.cmIds(); ids.lines().noneMatch(id -> id.contains(" state CONNECT ")
                && (id + ' ').contains(destination + ' ')); ids = RdmaLink.cmIds()) {
            String last = ids;
            assertTrue(System.nanoTime() - deadline < 0, () -> "the client sent its connect request within "
                    + CHILD_SECONDS + " s; the CM ids:\n" + last + "\nthe client:\n" + client.output());
            Thread.sleep(100);
        }
    }

    /** Connects a new client of this transport, in a process of its own, and returns why TCP carries it. */
    private static RdmaFallbackReason echoedOverTcp(String address, String port) throws Exception {
        try (ChildJvm client = ChildJvm.start(PeerProcess.class, "echo", address, port)) {
            String carrier = client.awaitLine("carried by ", CHILD_SECONDS, TimeUnit.SECONDS);
            System.out.println("a new client of this transport once the device is gone: carried by " + carrier);
            assertTrue(carrier.startsWith("TCP: "), carrier);
            assertEquals(0, client.awaitExit(CHILD_SECONDS, TimeUnit.SECONDS), () -> "the server echoed: "
                    + client.output());
            return RdmaFallbackReason.valueOf(carrier.substring("TCP: ".length()));
        }
    }

    private Channel connectOverTcp(InetSocketAddress target) throws InterruptedException {
        return new Bootstrap().group(tcp).channel(EpollSocketChannel.class).handler(new ChannelInboundHandlerAdapter())
                .connect(target).sync().channel();
    }

    /** Sends a message over {@code channel} and waits for it back, within 30 s. */
    private static void echoes(Channel channel, long seed) throws Exception {
        EchoProbe probe = new EchoProbe(seed, 64, 100_000);
        channel.pipeline().addLast(probe);
        probe.writeAll(channel);
        probe.assertEchoed(30);
        channel.pipeline().remove(probe);
    }
}
