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

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Collections;
import java.util.function.Predicate;
import java.nio.file.Files;
import java.nio.file.Path;

import org.nettyrdma.channel.rdma.Rdma;

/**
 * Where the device tests run: the RDMA-capable address and device that {@code docker/rxe-vm/run}
 * exports ({@code RDMA_TEST_ADDRESS}, {@code RDMA_TEST_DEVICE}), or that an RDMA host sets by hand.
 *
 * <p>The IPv6 addresses are those of the same interface: the rxe VM gives it {@code fd00:77::1/64}
 * beside its IPv4 address, and the kernel a link-local one.
 *
 * <p>Outside such a machine every device test is aborted with the reason, so none of them can pass
 * without a device; {@code scripts/test-all} then fails the run because no device test ran.
 */
public final class RdmaTestEnvironment {

    private static final String ADDRESS_VARIABLE = "RDMA_TEST_ADDRESS";
    private static final String IPV6_VARIABLE = "RDMA_TEST_IPV6";
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

    /**
     * Returns the address of the RDMA interface the tests use: its IPv4 address, or its IPv6 one
     * ({@link #ipv6Address()}) when {@code RDMA_TEST_IPV6=1}, which runs the tests that take their
     * address here over IPv6.
     */
    public static InetAddress address() {
        return "1".equals(System.getenv(IPV6_VARIABLE)) ? ipv6Address() : ipv4Address();
    }

    /** Returns the IPv4 address of the RDMA interface the tests use, whatever {@code RDMA_TEST_IPV6} says. */
    public static InetAddress ipv4Address() {
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

    /**
     * Returns a global (not link-local) IPv6 address of the RDMA interface, without a scope, as a user
     * writes it. In the rxe VM it must be there ({@code docker/rxe-vm/guest-main} gives it); elsewhere
     * a test that needs one is aborted with what to do.
     */
    public static Inet6Address ipv6Address() {
        Inet6Address scoped = ipv6Address(a -> !a.isLinkLocalAddress(),
                "ip -6 address add fd00:77::1/64 dev <interface> nodad");
        try {
            // The interface lists its addresses with itself as their scope, which a global one does not need.
            return Inet6Address.getByAddress(null, scoped.getAddress(), -1);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // 16 bytes are always an IPv6 address
        }
    }

    /** Returns the RDMA interface's link-local IPv6 address, with the interface as its scope. */
    public static Inet6Address linkLocalAddress() {
        return ipv6Address(InetAddress::isLinkLocalAddress, "bring the interface up with IPv6 enabled");
    }

    private static Inet6Address ipv6Address(Predicate<Inet6Address> kind, String remedy) {
        NetworkInterface netdev;
        try {
            netdev = NetworkInterface.getByInetAddress(ipv4Address());
        } catch (SocketException e) {
            throw new IllegalStateException("cannot list the interfaces", e);
        }
        if (netdev != null) {
            for (InetAddress candidate : Collections.list(netdev.getInetAddresses())) {
                if (candidate instanceof Inet6Address && kind.test((Inet6Address) candidate)) {
                    return (Inet6Address) candidate;
                }
            }
        }
        String missing = "the RDMA interface " + (netdev != null ? netdev.getName() + " " : "") + "of "
                + ipv4Address().getHostAddress() + " has no such IPv6 address (" + remedy + ")";
        if (System.getenv("RXE_VM") != null) {
            throw new IllegalStateException(missing);
        }
        assumeTrue(false, missing);
        return null;
    }

    /** Returns the name of the device the tests expect, or {@code null} if the machine did not say. */
    public static String deviceName() {
        return System.getenv("RDMA_TEST_DEVICE");
    }
}
