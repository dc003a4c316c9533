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

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import io.netty.channel.Channel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.testkit.EchoHandler;
import org.nettyrdma.testkit.RdmaTestEnvironment;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * A server bound to port 0 listens on RDMA CM and TCP at one port even where the port TCP hands out is
 * held in RDMA CM's own port space, from which this host's RDMA connections take their ports and which
 * TCP does not see. The guest's ephemeral range is narrowed to 64 ports for each bind. Linux gives a
 * listener bound to port 0 (with {@code SO_REUSEADDR}, as Netty's are) a port of the opposite parity
 * to the range's start from the range's first half: 16 odd ports here, of which RDMA CM ids hold every
 * other one, so that TCP hands out a held port about every other bind. Each bind must end on a port
 * RDMA CM does not hold. Needs root (the range is a sysctl), as the device tests have in the VM.
 */
class RdmaEphemeralPortTest {

    private static final Path RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    private static final int LOW = 40_700;
    private static final int HIGH = LOW + 63;
    private static final int BINDS = 16;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(1);

    @Test
    void aBindToPortZeroTakesAnotherPortWhereRdmaCmHoldsTheOneTcpGave() throws Exception {
        assumeTrue(Files.isWritable(RANGE), "the ephemeral port range is not writable here (not root)");
        String saved = readRange();
        RdmaEventChannel channel = RdmaEventChannel.createEventChannel();
        List<RdmaCmId> holders = new ArrayList<>();
        Set<Integer> held = new TreeSet<>();
        try {
            for (int port = LOW + 1; port < LOW + 32; port += 4) {
                RdmaCmId holder = channel.createId(RdmaCm.RDMA_PS_TCP);
                holders.add(holder);
                holder.bindAddr(new InetSocketAddress(RdmaTestEnvironment.ipv4Address(), port));
                held.add(port);
            }
            for (int i = 0; i < BINDS; i++) {
                Channel server;
                Files.writeString(RANGE, LOW + " " + HIGH);
                try {
                    server = rdma.server().childHandler(EchoHandler.INSTANCE)
                            .bind(new InetSocketAddress(RdmaTestEnvironment.ipv4Address(), 0)).sync().channel();
                } finally {
                    Files.writeString(RANGE, saved);
                }
                int port = ((InetSocketAddress) server.localAddress()).getPort();
                server.close().sync();
                assertFalse(held.contains(port), "bind " + (i + 1) + " on port " + port + ", which RDMA CM holds: "
                        + held);
            }
        } finally {
            Files.writeString(RANGE, saved);
            for (RdmaCmId holder : holders) {
                holder.destroyId();
            }
            channel.destroyEventChannel();
        }
    }

    /**
     * Reads the range in one read: a sysctl answers only a read at offset 0, and {@code Files.readString}
     * reads such a file a byte at a time.
     */
    private static String readRange() throws IOException {
        try (InputStream in = Files.newInputStream(RANGE)) {
            return new String(in.readNBytes(256), StandardCharsets.US_ASCII).trim();
        }
    }
}
