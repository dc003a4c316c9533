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

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.nettyrdma.channel.rdma.Rdma;

/**
 * Where the device tests run: the RDMA-capable address and device that {@code docker/rxe-vm/run}
 * exports ({@code RDMA_TEST_ADDRESS}, {@code RDMA_TEST_DEVICE}), or that an RDMA host sets by hand.
 *
 * <p>Outside such a machine every device test is aborted with the reason, so none of them can pass
 * without a device; {@code scripts/test-all} then fails the run because no device test ran.
 */
public final class RdmaTestEnvironment {

    private static final String ADDRESS_VARIABLE = "RDMA_TEST_ADDRESS";
    private static final Path RDMA_CM_DEVICE = Path.of("/dev/infiniband/rdma_cm");

    private RdmaTestEnvironment() {
    }

    /** Aborts the calling test unless an RDMA device and this project's native library are present. */
    public static void assumeDevice() {
        assumeTrue(System.getenv(ADDRESS_VARIABLE) != null, "device tests need an RDMA device: run them "
                + "with scripts/test-all (it boots the rxe VM), or set " + ADDRESS_VARIABLE
                + " to the IPv4 address of an RDMA interface");
        assumeTrue(Files.exists(RDMA_CM_DEVICE), RDMA_CM_DEVICE + " is missing: no RDMA CM on this machine");
        Rdma.ensureAvailability();
    }

    /** Returns the IPv4 address of the RDMA interface the tests use. */
    public static InetAddress address() {
        try {
            return InetAddress.getByName(System.getenv(ADDRESS_VARIABLE));
        } catch (UnknownHostException e) {
            throw new IllegalStateException(ADDRESS_VARIABLE + " is not an address", e);
        }
    }

    /** Returns the test address with port 0, for binding to a port the system chooses. */
    public static InetSocketAddress anyPort() {
        return new InetSocketAddress(address(), 0);
    }

    /** Returns the name of the device the tests expect, or {@code null} if the machine did not say. */
    public static String deviceName() {
        return System.getenv("RDMA_TEST_DEVICE");
    }
}
