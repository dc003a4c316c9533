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
package org.nettyrdma.testsuite.frameworks.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.example.Transport;
import org.nettyrdma.example.grpc.GrpcEchoClient;
import org.nettyrdma.testkit.Await;
import org.nettyrdma.testkit.ChildJvm;
import org.nettyrdma.testkit.RdmaTestEnvironment;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * A gRPC server that goes away while calls run on it over RDMA: every call ends, none hangs, and the
 * channel's next call fails with {@code UNAVAILABLE}. Unary calls the server never answers and open
 * bidirectional streams run on one channel when
 * <ul>
 *   <li>the server shuts down now ({@code Server.shutdownNow()}): gRPC resets each stream
 *       ({@code RST_STREAM CANCEL}) and sends {@code GOAWAY}, then closes the connection; a call ends
 *       {@code CANCELLED} if the reset reaches the client first, {@code UNAVAILABLE} if the close does.
 *       Which comes first is gRPC's race, the same over TCP (both are seen over NIO on loopback), so
 *       either is right; the server sees every call cancelled.</li>
 *   <li>the server's process dies: its kernel disconnects the connection, and every call ends
 *       {@code UNAVAILABLE}.</li>
 * </ul>
 */
class GrpcServerShutdownTest {

    private static final int EACH = 4;
    /** Generous for emulation: the calls end in milliseconds on a real device. */
    private static final long BOUND_SECONDS = 30;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    @Test
    void callsEndWhenTheServerShutsDownNow() throws Exception {
        try (GrpcEndpoints grpc = new GrpcEndpoints(rdma.group())) {
            ManagedChannel channel = grpc.channel();
            RunningCalls calls = RunningCalls.start(channel, EACH, BOUND_SECONDS);
            Await.until(() -> grpc.tracked.started() == 2 * EACH, BOUND_SECONDS,
                    () -> grpc.tracked.started() + " calls started on the server");

            grpc.server().shutdownNow();
            List<Status> statuses = calls.awaitEnds(BOUND_SECONDS);
            System.out.println("after Server.shutdownNow(): " + statuses);
            Set<Status.Code> forceful = EnumSet.of(Status.Code.CANCELLED, Status.Code.UNAVAILABLE);
            for (Status status : statuses) {
                assertTrue(forceful.contains(status.getCode()), "a call ended with " + status);
            }
            assertTrue(grpc.server().awaitTermination(BOUND_SECONDS, TimeUnit.SECONDS), "the server ended");
            assertEquals(2 * EACH, grpc.tracked.cancelledCount(), "the server saw every call cancelled");
            assertNextCallUnavailable(channel);
        }
    }

    @Test
    void callsFailUnavailableWhenTheServerProcessDies() throws Exception {
        try (ChildJvm server = ChildJvm.start(GrpcPeerProcess.PEER_FLAGS, GrpcPeerProcess.class, "server")) {
            int port = Integer.parseInt(server.awaitLine("listening ", 60, TimeUnit.SECONDS));
            ManagedChannel channel = GrpcEchoClient.newChannel(rdma.group(), Transport.RDMA,
                    new InetSocketAddress(RdmaTestEnvironment.address(), port));
            try {
                RunningCalls calls = RunningCalls.start(channel, EACH, BOUND_SECONDS);
                server.kill();
                List<Status> statuses = calls.awaitEnds(BOUND_SECONDS);
                System.out.println("after the server's process was killed: " + statuses);
                for (Status status : statuses) {
                    assertEquals(Status.Code.UNAVAILABLE, status.getCode(), "a call ended with " + status);
                }
                assertNextCallUnavailable(channel);
            } finally {
                channel.shutdownNow();
                assertTrue(channel.awaitTermination(BOUND_SECONDS, TimeUnit.SECONDS), "the channel ended");
            }
        }
    }

    /** The server is gone: a new call's connect is refused, and the call fails at once. */
    private static void assertNextCallUnavailable(ManagedChannel channel) {
        StatusRuntimeException refused = assertThrows(StatusRuntimeException.class,
                () -> GrpcEchoClient.unary(channel, new byte[16]));
        assertEquals(Status.Code.UNAVAILABLE, refused.getStatus().getCode(), refused.toString());
    }
}
