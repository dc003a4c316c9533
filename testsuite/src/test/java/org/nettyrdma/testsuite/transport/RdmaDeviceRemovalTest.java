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

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.nettyrdma.testkit.ChildJvm;
import org.nettyrdma.testkit.RdmaTestEnvironment;

/**
 * {@code rdma link delete} under load, as an operator or a driver reload does it: a server process
 * and a client process streaming through it. Every channel on the device fails with an error that
 * names the removal, the processes do not crash, they let go of everything on the device so that the
 * kernel completes the removal within seconds, and after {@code rdma link add} the same server
 * process accepts and serves a new client. The removal command is the process under test's judge:
 * the kernel blocks it until every process has released the device.
 *
 * <p>It removes the test device, so it runs in a boot of its own ({@code scripts/device-tests},
 * tag {@value #TAG}), and needs an rxe device it may delete and add again: {@code RDMA_TEST_NETDEV}
 * names the netdev under it (the rxe VM sets it).
 */
@Tag(RdmaDeviceRemovalTest.TAG)
class RdmaDeviceRemovalTest {

    /** The tag that keeps this test out of the boots that share a device with other tests. */
    static final String TAG = "removes-device";
    /** Under emulation a release of everything takes a few seconds; the kernel itself takes 50 ms. */
    private static final long REMOVAL_BOUND_SECONDS = 60;

    @Test
    // Three child JVMs under emulation take about 110 s of a quiet run, over the suite's default
    // 120 s when CI's two lanes share the cores; every step has a bound of its own.
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void channelsFailTheRemovalCompletesAndTheServerServesAgain() throws Exception {
        RdmaLink link = RdmaLink.assumeRemovable();
        String address = RdmaTestEnvironment.address().getHostAddress();

        try (ChildJvm server = ChildJvm.start(PeerProcess.class, "server", "0")) {
            String port = server.awaitLine("listening ", 60, TimeUnit.SECONDS);
            try (ChildJvm client = ChildJvm.start(PeerProcess.class, "stream", address, port)) {
                client.awaitLine("connected", 60, TimeUnit.SECONDS);
                Thread.sleep(2000);
                removeUnderLoad(link, server, client);
            } catch (Throwable t) {
                try {
                    link.addBack();
                } catch (Throwable again) {
                    t.addSuppressed(again);
                }
                throw t;
            }
            link.addBack();
            try (ChildJvm next = ChildJvm.start(PeerProcess.class, "echo", address, port)) {
                assertEquals(0, next.awaitExit(120, TimeUnit.SECONDS), () -> "a client after the device came back"
                        + " was served by the same server process: " + next.output());
            }
            assertTrue(server.isAlive(), "the server process is still running");
        }
    }

    private static void removeUnderLoad(RdmaLink link, ChildJvm server, ChildJvm client) throws Exception {
        link.delete(REMOVAL_BOUND_SECONDS);

        String clientFailure = client.awaitLine("failed: ", 30, TimeUnit.SECONDS);
        assertTrue(clientFailure.contains("removed"), () -> "the client's channel names the removal: "
                + clientFailure);
        assertEquals(0, client.awaitExit(30, TimeUnit.SECONDS), "the client ended normally");
        // The server's channel fails with the removal, or, when the client's disconnect reaches it
        // first, closes as for any peer that went away; either way it is gone.
        server.awaitLine("child-inactive", 30, TimeUnit.SECONDS);
        String serverSide = server.output();
        assertTrue(!serverSide.contains("child-failed: ") || serverSide.contains("child-failed: the RDMA device"),
                () -> "a failure of the server's channel names the removal: " + serverSide);
    }
}
