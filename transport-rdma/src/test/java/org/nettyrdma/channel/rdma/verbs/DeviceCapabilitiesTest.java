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
package org.nettyrdma.channel.rdma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.channel.rdma.memory.DeviceCapabilities;
import org.nettyrdma.channel.rdma.memory.DeviceVerbs;
import org.nettyrdma.testkit.DeviceUnderTest;
import org.nettyrdma.testkit.RdmaTestEnvironment;

/**
 * What the transport probes of the device at its opening ({@link DeviceCapabilities}) is what
 * rdma-core's {@code ibv_devinfo -v} reports of it, and the verbs it then posts there
 * ({@link DeviceVerbs}) follow from the device's kind: rxe, or siw where the guest has it.
 */
class DeviceCapabilitiesTest {

    private static final Path DEVINFO = Path.of("/usr/bin/ibv_devinfo");
    /** A number in parentheses after a name ({@code ATOMIC_HCA (1)}), or the value alone. */
    private static final Pattern NUMBER = Pattern.compile("\\((-?\\d+)\\)$|^(0x[0-9a-f]+|\\d+)$");

    @BeforeEach
    void requireDevice() {
        RdmaTestEnvironment.assumeDevice();
    }

    @Test
    void theProbedValuesAreWhatIbvDevinfoReports() throws Exception {
        DeviceCapabilities probed = DeviceUnderTest.probe();
        assumeTrue(Files.isExecutable(DEVINFO), DEVINFO + " is missing: install ibverbs-utils");
        Map<String, String> devinfo = devinfo(probed.name());
        System.out.println("probed " + probed);
        assertEquals(number(devinfo, "vendor_id"), probed.vendorId(), "vendor_id");
        assertEquals(number(devinfo, "atomic_cap"), probed.atomicCap(), "atomic_cap");
        assertEquals(number(devinfo, "max_mw"), probed.maxMw(), "max_mw");
        assertEquals(number(devinfo, "max_srq"), probed.maxSrq(), "max_srq");
        assertEquals(number(devinfo, "max_srq_wr"), probed.maxSrqWr(), "max_srq_wr");
        assertEquals(number(devinfo, "max_sge"), probed.maxSge(), "max_sge");
        assertEquals(number(devinfo, "max_sge_rd"), probed.maxSgeRd(), "max_sge_rd");
        assertEquals(number(devinfo, "max_qp_wr"), probed.maxQpWr(), "max_qp_wr");
        assertEquals(number(devinfo, "max_cqe"), probed.maxCqe(), "max_cqe");
        assertEquals(number(devinfo, "max_mr_size"), probed.maxMrSize(), "max_mr_size");
        assertEquals(number(devinfo, "device_cap_flags"), probed.capabilityFlags() & 0xffffffffL, "device_cap_flags");
        long transport = number(devinfo, "transport");
        assertEquals(transport == RdmaNative.TRANSPORT_IWARP ? DeviceCapabilities.Transport.IWARP
                : DeviceCapabilities.Transport.INFINIBAND, probed.transport(), "transport " + devinfo.get("transport"));
    }

    @Test
    void rxeHasEveryVerbButConfinesNoPeerWithItsWindows() throws Exception {
        DeviceCapabilities probed = DeviceUnderTest.probe();
        assumeTrue(probed.name().startsWith("rxe"), "the device is " + probed.name() + ", not rxe");
        DeviceVerbs verbs = DeviceVerbs.decide(probed);
        assertEquals(DeviceCapabilities.Transport.INFINIBAND, probed.transport());
        assertTrue(probed.hasAtomics(), "atomic_cap " + probed.atomicCap());
        assertTrue(probed.maxMw() > 0, "max_mw " + probed.maxMw());
        assertTrue(probed.hasType2Windows(), "type-2 windows");
        assertTrue(probed.hasSharedReceiveQueues(), "max_srq " + probed.maxSrq());
        assertTrue(probed.maxSgeRd() >= DeviceVerbs.READ_SCATTER_ENTRIES, "max_sge_rd " + probed.maxSgeRd());
        assertTrue(verbs.atomics());
        assertTrue(verbs.hostsRings());
        assertFalse(verbs.opensRings(), "rxe's windows do not confine a peer (docs/security.md)");
    }

    @Test
    void siwHasNeitherRingsNorAtomics() throws Exception {
        DeviceCapabilities probed = DeviceUnderTest.probe();
        assumeTrue(probed.name().startsWith("siw"), "the device is " + probed.name() + ", not siw");
        DeviceVerbs verbs = DeviceVerbs.decide(probed);
        assertEquals(DeviceCapabilities.Transport.IWARP, probed.transport());
        assertFalse(probed.hasAtomics(), "atomic_cap " + probed.atomicCap());
        assertEquals(0, probed.maxMw(), "max_mw");
        assertEquals(1, probed.maxSgeRd(), "max_sge_rd");
        assertFalse(verbs.hostsRings());
        assertFalse(verbs.atomics());
    }

    /** Returns the first value of each {@code name: value} line {@code ibv_devinfo -v -d device} prints. */
    private static Map<String, String> devinfo(String device) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(DEVINFO.toString(), "-v", "-d", device).redirectErrorStream(true).start();
        String output;
        try (InputStream in = process.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "ibv_devinfo ended");
        assertEquals(0, process.exitValue(), output);
        Map<String, String> values = new HashMap<>();
        for (String line : output.split("\n")) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                values.putIfAbsent(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
            }
        }
        return values;
    }

    /** Returns the number {@code ibv_devinfo} printed for {@code name}, decimal, hexadecimal or in parentheses. */
    private static long number(Map<String, String> devinfo, String name) {
        String value = devinfo.get(name);
        assertTrue(value != null, "ibv_devinfo -v printed no " + name + ": " + devinfo.keySet());
        Matcher matcher = NUMBER.matcher(value);
        assertTrue(matcher.find(), name + ": " + value);
        String number = matcher.group(1) != null ? matcher.group(1) : matcher.group(2);
        return number.startsWith("0x") ? Long.parseUnsignedLong(number.substring(2), 16) : Long.parseLong(number);
    }
}
