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
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
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
        RdmaTestEnvironment.assumeDevice();
        String device = RdmaTestEnvironment.deviceName();
        String netdev = System.getenv("RDMA_TEST_NETDEV");
        assumeTrue(device != null && netdev != null, "removing the device needs RDMA_TEST_DEVICE and "
                + "RDMA_TEST_NETDEV (an rxe device and its netdev, as the rxe VM sets them)");
        String address = RdmaTestEnvironment.address().getHostAddress();

        try (ChildJvm server = ChildJvm.start(PeerProcess.class, "server", "0")) {
            String port = server.awaitLine("listening ", 60, TimeUnit.SECONDS);
            try (ChildJvm client = ChildJvm.start(PeerProcess.class, "stream", address, port)) {
                client.awaitLine("connected", 60, TimeUnit.SECONDS);
                Thread.sleep(2000);
                removeUnderLoad(device, server, client);
            } catch (Throwable t) {
                try {
                    addDeviceBack(device, netdev);
                } catch (Throwable again) {
                    t.addSuppressed(again);
                }
                throw t;
            }
            addDeviceBack(device, netdev);
            try (ChildJvm next = ChildJvm.start(PeerProcess.class, "echo", address, port)) {
                assertEquals(0, next.awaitExit(120, TimeUnit.SECONDS), () -> "a client after the device came back"
                        + " was served by the same server process: " + next.output());
            }
            assertTrue(server.isAlive(), "the server process is still running");
        }
    }

    private static void removeUnderLoad(String device, ChildJvm server, ChildJvm client) throws Exception {
        long started = System.nanoTime();
        Result delete = run(REMOVAL_BOUND_SECONDS, "rdma", "link", "delete", device);
        long removalMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        System.out.printf("rdma link delete %s took %d ms (exit %d)%n", device, removalMillis, delete.status);
        assertTrue(delete.finished, "the removal completed within " + REMOVAL_BOUND_SECONDS
                + " s: every process let go of the device");
        assertEquals(0, delete.status, () -> "rdma link delete: " + delete.output);

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

    /** Adds the device again unless it is there, and waits until its port is active. */
    private static void addDeviceBack(String device, String netdev) throws Exception {
        if (!link(device).contains("link " + device + '/')) {
            Result add = run(60, "rdma", "link", "add", device, "type", "rxe", "netdev", netdev);
            assertEquals(0, add.status, () -> "rdma link add: " + add.output);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (String state = link(device); !state.contains("state ACTIVE"); state = link(device)) {
            String last = state;
            assertTrue(System.nanoTime() - deadline < 0, () -> device + " came back ACTIVE within 30 s: " + last);
            Thread.sleep(100);
        }
    }

    /** Returns the line of {@code rdma link show} about {@code device}'s port, or "". */
    private static String link(String device) throws IOException, InterruptedException {
        return run(30, "rdma", "link", "show").output.lines().filter(line -> line.startsWith("link " + device + '/'))
                .findFirst().orElse("");
    }

    private record Result(boolean finished, int status, String output) {
    }

    private static Result run(long timeoutSeconds, String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(List.of(command)).redirectErrorStream(true).start();
        boolean finished = process.waitFor(timeoutSeconds, TimeUnit.SECONDS);
        if (!finished) {
            // Blocked in the kernel, it cannot be killed; the test fails and says so.
            return new Result(false, -1, "still running after " + timeoutSeconds + " s");
        }
        return new Result(true, process.exitValue(),
                new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }
}
