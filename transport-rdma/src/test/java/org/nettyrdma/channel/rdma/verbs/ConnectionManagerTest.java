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
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import com.ibm.disni.verbs.RdmaEventChannel;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.nettyrdma.testkit.RdmaTestEnvironment;

/**
 * RDMA CM connection set-up: a successful listen/connect/accept, and the failures DiSNI turns into
 * hangs (zrlio/disni#41, #46), which here must end in an event with a status.
 */
class ConnectionManagerTest {

    @BeforeEach
    void requireDevice() {
        RdmaTestEnvironment.assumeDevice();
    }

    @Test
    void listenConnectAcceptAndDisconnect() throws Exception {
        try (ConnectedPair pair = ConnectedPair.connect(1)) {
            assertEquals(pair.server.qp.getQp_num(), pair.clientEstablished.remoteQpNum());
            InetSocketAddress clientSide = (InetSocketAddress) pair.clientId.getDestination();
            assertEquals(RdmaTestEnvironment.address(), clientSide.getAddress());
        }
    }

    @Test
    void connectWithoutListenerIsRejectedWithAStatus() throws Exception {
        // Find a port with no listener: bind, note the port, free it again.
        RdmaEventChannel probeChannel = RdmaEventChannel.createEventChannel();
        RdmaCmId probe = probeChannel.createId(RdmaCm.RDMA_PS_TCP);
        probe.bindAddr(RdmaTestEnvironment.anyPort());
        InetSocketAddress unused = (InetSocketAddress) probe.getSource();
        assertEquals(0, probe.destroyId());
        assertEquals(0, probeChannel.destroyEventChannel());

        RdmaEventChannel channel = RdmaEventChannel.createEventChannel();
        CmEventReader events = new CmEventReader(channel);
        RdmaCmId id = channel.createId(RdmaCm.RDMA_PS_TCP);
        VerbsEndpoint endpoint = null;
        try {
            id.resolveAddr(null, unused, 2000);
            events.expect(RdmaCmEventType.ADDR_RESOLVED);
            id.resolveRoute(2000);
            events.expect(RdmaCmEventType.ROUTE_RESOLVED);
            endpoint = new VerbsEndpoint(id);
            RdmaConnParam connect = new RdmaConnParam();
            connect.setRetry_count(ConnectedPair.RETRY_COUNT);
            connect.setRnr_retry_count(ConnectedPair.RNR_RETRY_COUNT);
            id.connect(connect);
            CmEvent event = events.next(30, TimeUnit.SECONDS);
            assertEquals(RdmaCmEventType.REJECTED.ordinal(), event.type(), () -> "got " + event);
            assertNotEquals(0, event.status(), "a reject carries its reason");
        } finally {
            if (endpoint != null) {
                endpoint.close();
            }
            assertEquals(0, id.destroyId());
            assertEquals(0, channel.destroyEventChannel());
        }
    }

    @Test
    void resolvingAnAddressWithoutAnRdmaDeviceFailsWithAStatus() throws Exception {
        // Loopback has no RDMA device in the VM (and RDMA CM cannot use it even where rxe sits on lo).
        InetSocketAddress loopback = new InetSocketAddress(InetAddress.getLoopbackAddress(), 4791);
        RdmaEventChannel channel = RdmaEventChannel.createEventChannel();
        CmEventReader events = new CmEventReader(channel);
        RdmaCmId id = channel.createId(RdmaCm.RDMA_PS_TCP);
        try {
            // rdma_cm may refuse at once (a call fails with ENODEV) or report it later as an event.
            CmEvent event;
            try {
                id.resolveAddr(null, loopback, 2000);
                event = events.next(30, TimeUnit.SECONDS);
                if (event.type() == RdmaCmEventType.ADDR_RESOLVED.ordinal()) {
                    id.resolveRoute(2000);
                    event = events.next(30, TimeUnit.SECONDS);
                }
            } catch (IOException e) {
                assertTrue(e.getMessage().contains("No such device"), () -> "the failure names its cause: " + e);
                return;
            }
            CmEvent failure = event;
            assertTrue(Set.of(RdmaCmEventType.ADDR_ERROR.ordinal(), RdmaCmEventType.ROUTE_ERROR.ordinal())
                    .contains(failure.type()), () -> "expected an address or route error, got " + failure);
            assertTrue(failure.status() < 0, () -> "the error carries a negative errno, got " + failure);
        } finally {
            assertEquals(0, id.destroyId());
            assertEquals(0, channel.destroyEventChannel());
        }
    }
}
