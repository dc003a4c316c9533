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

import org.nettyrdma.testkit.RdmaTestEnvironment;

/**
 * The test device as the {@code rdma} tool of iproute2 sees it, for the tests that remove it as an
 * operator or a driver reload does ({@code rdma link delete}) and add it back: a software device (rxe,
 * or siw) and the netdev under it, which the rxe VM names in {@code RDMA_TEST_DEVICE} and
 * {@code RDMA_TEST_NETDEV}.
 */
record RdmaLink(String device, String netdev) {

    /** Returns the test device, or skips the test where there is none that may be removed. */
    static RdmaLink assumeRemovable() {
        RdmaTestEnvironment.assumeDevice();
        String device = RdmaTestEnvironment.deviceName();
        String netdev = System.getenv("RDMA_TEST_NETDEV");
        assumeTrue(device != null && netdev != null, "removing the device needs RDMA_TEST_DEVICE and "
                + "RDMA_TEST_NETDEV (an rxe or siw device and its netdev, as the rxe VM sets them)");
        return new RdmaLink(device, netdev);
    }

    /**
     * Removes the device, and returns how long {@code rdma link delete} took: the kernel blocks the
     * command until every process has let go of the device, so it ends only once they all did. Fails
     * unless it ended, successfully, within {@code boundSeconds}.
     */
    long delete(long boundSeconds) throws IOException, InterruptedException {
        long started = System.nanoTime();
        Result delete = run(boundSeconds, "rdma", "link", "delete", device);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        System.out.printf("rdma link delete %s took %d ms (exit %d)%n", device, millis, delete.status);
        assertTrue(delete.finished, "the removal completed within " + boundSeconds
                + " s: every process let go of the device");
        assertEquals(0, delete.status, () -> "rdma link delete: " + delete.output);
        return millis;
    }

    /** What a test does while the device is away. */
    interface Removal {
        void run() throws Exception;
    }

    /**
     * Runs {@code removal}, which removes the device, and adds the device back afterwards whatever
     * happened, so that the tests after it have one.
     */
    void addBackAfter(Removal removal) throws Exception {
        try {
            removal.run();
        } catch (Throwable t) {
            try {
                addBack();
            } catch (Throwable again) {
                t.addSuppressed(again);
            }
            throw t;
        }
        addBack();
    }

    /** Adds the device again unless it is there, and waits until its port is active. */
    void addBack() throws Exception {
        if (!link().contains("link " + device + '/')) {
            // The link type is the device's name without its number: rxe0 is an rxe link, siw0 a siw one.
            String type = device.replaceFirst("\\d+$", "");
            Result add = run(60, "rdma", "link", "add", device, "type", type, "netdev", netdev);
            assertEquals(0, add.status, () -> "rdma link add: " + add.output);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (String state = link(); !state.contains("state ACTIVE"); state = link()) {
            String last = state;
            assertTrue(System.nanoTime() - deadline < 0, () -> device + " came back ACTIVE within 30 s: " + last);
            Thread.sleep(100);
        }
    }

    /** Returns the line of {@code rdma link show} about the device's port, or "". */
    private String link() throws IOException, InterruptedException {
        return run(30, "rdma", "link", "show").output.lines().filter(line -> line.startsWith("link " + device + '/'))
                .findFirst().orElse("");
    }

    /**
     * Returns what {@code rdma resource show cm_id} says of the RDMA CM ids on the devices, a line each
     * with its kernel state ({@code state CONNECT} while a connect request waits for its answer) and
     * addresses. Its {@code pid} is the thread's that made the id, not the process's.
     */
    static String cmIds() throws IOException, InterruptedException {
        return run(30, "rdma", "resource", "show", "cm_id").output;
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

    /** What a command did: whether it ended within its bound, its exit status and its output. */
    private record Result(boolean finished, int status, String output) {
    }
}
