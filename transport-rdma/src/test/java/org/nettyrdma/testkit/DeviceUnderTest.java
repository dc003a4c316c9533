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

import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

import com.ibm.disni.verbs.impl.NatObject;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.channel.rdma.memory.DeviceCapabilities;
import org.nettyrdma.channel.rdma.memory.DeviceVerbs;

/**
 * The device at the test address, probed as the transport probes a device when it opens it: what it
 * reports ({@link DeviceCapabilities}) and so which verbs the transport posts there ({@link DeviceVerbs}).
 * A test of a verb that some devices lack calls one of the {@code assume} methods first: on such a
 * device (siw has no ring and no atomics) it is skipped with the device's own answer as the reason,
 * while the tests of what the transport does instead run there (docs/devices.md).
 */
public final class DeviceUnderTest {

    private static DeviceCapabilities probed;

    private DeviceUnderTest() {
    }

    /** Returns what the test device reports, probed once per JVM. */
    public static synchronized DeviceCapabilities capabilities() throws Exception {
        if (probed == null) {
            probed = probe();
        }
        return probed;
    }

    /** Returns the verbs the transport posts on the test device. */
    public static DeviceVerbs verbs() throws Exception {
        return DeviceVerbs.decide(capabilities());
    }

    /** Skips the calling test unless the device can carry a ring: type-2 windows and Writes with immediate. */
    public static void assumeRings() throws Exception {
        DeviceVerbs verbs = verbs();
        assumeTrue(verbs.hostsRings(), () -> "needs a ring, which " + verbs.capabilities().name()
                + " cannot carry: " + verbs);
    }

    /** Skips the calling test unless the transport posts atomics on the device. */
    public static void assumeAtomics() throws Exception {
        DeviceVerbs verbs = verbs();
        assumeTrue(verbs.atomics(), () -> "needs atomics, which " + verbs.capabilities().name()
                + " lacks: " + verbs);
    }

    /**
     * Returns {@code true} if the device speaks iWARP, whose RDMA CM takes the TCP port a server binds.
     * Where {@code RDMA_TEST_DEVICE} names the device (the rxe VM), by its node type in sysfs
     * ({@code 4: RNIC}), which opens nothing: librdmacm keeps a device it opened until the process ends,
     * and a test whose JVM holds the device would hold up that device's removal.
     */
    public static boolean isIwarp() throws Exception {
        String device = RdmaTestEnvironment.deviceName();
        Path nodeType = device == null ? null : Path.of("/sys/class/infiniband", device, "node_type");
        if (nodeType != null && Files.exists(nodeType)) {
            return Files.readString(nodeType).startsWith("4:");
        }
        return capabilities().transport() == DeviceCapabilities.Transport.IWARP;
    }

    /**
     * Skips the calling test on iWARP if it sends a client of the transport to a plain TCP server: the
     * client's RDMA CM connect reaches that server as a TCP connection that starts with an MPA request,
     * and siw in the VM's kernel (6.1) oopses on any answer that is not an MPA reply
     * (docs/devices.md#siw-known-failures).
     */
    public static void assumeTcpServersSurviveRdmaConnects() throws Exception {
        assumeFalse(isIwarp(), "on siw a plain TCP server's answer to an RDMA CM connect oopses the kernel");
    }

    /** Opens the test address's device through RDMA CM, as the transport does, and reads its attributes. */
    public static DeviceCapabilities probe() throws Exception {
        RdmaTestEnvironment.assumeDevice();
        RdmaEventChannel channel = RdmaEventChannel.createEventChannel();
        RdmaCmId id = channel.createId(RdmaCm.RDMA_PS_TCP);
        try {
            // IPv4 whatever RDMA_TEST_IPV6 says: DiSNI's own address code writes sockaddr_in only.
            id.bindAddr(new InetSocketAddress(RdmaTestEnvironment.ipv4Address(), 0));
            long context = ((NatObject) id.getVerbs()).getObjId();
            ByteBuffer attr = ByteBuffer.allocateDirect(RdmaNative.DEVICE_ATTR_SIZE).order(ByteOrder.nativeOrder());
            RdmaNative.queryDevice(context, RdmaNative.directBufferAddress(attr));
            return DeviceCapabilities.read(RdmaNative.deviceName(context), attr);
        } finally {
            id.destroyId();
            channel.destroyEventChannel();
        }
    }
}
