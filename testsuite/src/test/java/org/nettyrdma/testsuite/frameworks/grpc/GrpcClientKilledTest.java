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

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.example.grpc.GrpcEchoClient;
import org.nettyrdma.testkit.ChildJvm;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * A gRPC client process killed with SIGKILL in the middle of a bidirectional stream over RDMA: its
 * kernel disconnects the connection, the server's call is cancelled (gRPC's cancel handler runs), and
 * the server goes on serving: a new client's call is answered.
 */
class GrpcClientKilledTest {

    /** Generous for emulation: the disconnect arrives in well under a second on a real device. */
    private static final long BOUND_SECONDS = 30;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    @Test
    void theServerCancelsAKilledClientsCallAndServesTheNext() throws Exception {
        try (GrpcEndpoints grpc = new GrpcEndpoints(rdma.group())) {
            try (ChildJvm client = ChildJvm.start(GrpcPeerProcess.PEER_FLAGS, GrpcPeerProcess.class, "stream",
                    grpc.address().getHostString(), String.valueOf(grpc.address().getPort()))) {
                client.awaitLine("streaming", 60, TimeUnit.SECONDS);
                client.kill();
                long killed = System.nanoTime();
                grpc.tracked.cancelled().get(BOUND_SECONDS, TimeUnit.SECONDS);
                System.out.printf("the server's call was cancelled %d ms after SIGKILL%n",
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed));
            }
            assertEquals(1, grpc.tracked.started());
            assertEquals(1, grpc.tracked.cancelledCount());

            byte[] message = GrpcEchoTest.messages(6, 100_000).get(0);
            assertArrayEquals(message, GrpcEchoClient.unary(grpc.channel(), message), "the next client is served");
        }
    }
}
