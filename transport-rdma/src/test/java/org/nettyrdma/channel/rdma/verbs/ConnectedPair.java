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

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.impl.NatObject;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.channel.rdma.internal.ConnectParameters;
import org.nettyrdma.testkit.RdmaTestEnvironment;

/**
 * A client and a server endpoint connected over RDMA CM on the test device, set up the way the
 * transport will do it:
 * <ul>
 *   <li>the server listens through DiSNI and takes the connect request with DiSNI's own event call;</li>
 *   <li>it moves the new child id to an event channel of its own ({@code RdmaNative.migrateId}), as the
 *       transport moves an accepted connection to its event loop, and accepts with private data
 *       ({@code RdmaNative.accept}; DiSNI's accept sends none);</li>
 *   <li>the client resolves, connects through DiSNI with retry counts set (DiSNI's default 0/0 kills the
 *       QP on the first lost packet) and reads its events through {@code RdmaNative.pollCmEvent}, which
 *       keeps the status and private data.</li>
 * </ul>
 * Receives are posted before the connection is established, so no Send can outrun them.
 */
final class ConnectedPair implements AutoCloseable {

    static final byte[] ACCEPT_PRIVATE_DATA = "netty-rdma accept".getBytes(StandardCharsets.US_ASCII);
    /** The transport's retry counts ({@link ConnectParameters#RETRY_COUNT}), as DiSNI's connect takes them. */
    static final byte RETRY_COUNT = (byte) ConnectParameters.RETRY_COUNT;
    static final byte RNR_RETRY_COUNT = (byte) ConnectParameters.RNR_RETRY_COUNT;
    /** Size of each pre-posted receive. */
    static final int RECEIVE_SIZE = 4096;
    /** Work request id of the client's first pre-posted receive. */
    static final long RECEIVE_ID = 1000;

    final RdmaEventChannel listenChannel;
    final RdmaCmId listenId;
    final RdmaEventChannel serverChannel;
    final CmEventReader serverEvents;
    final RdmaEventChannel clientChannel;
    final CmEventReader clientEvents;
    final RdmaCmId clientId;
    final VerbsEndpoint client;
    final VerbsEndpoint server;
    final CmEvent clientEstablished;

    private final RdmaCmId serverId;

    /** A step a test takes on the server's endpoint while the pair is being connected. */
    @FunctionalInterface
    interface ServerStep {
        ServerStep NONE = server -> { };

        void run(VerbsEndpoint server) throws Exception;
    }

    private ConnectedPair(int receivesToPost, IbvPd serverPd, ServerStep beforeAccept, ServerStep afterAccept)
            throws Exception {
        listenChannel = RdmaEventChannel.createEventChannel();
        listenId = listenChannel.createId(RdmaCm.RDMA_PS_TCP);
        listenId.bindAddr(RdmaTestEnvironment.anyPort());
        listenId.listen(8);
        InetSocketAddress serverAddress = (InetSocketAddress) listenId.getSource();

        clientChannel = RdmaEventChannel.createEventChannel();
        clientEvents = new CmEventReader(clientChannel);
        clientId = clientChannel.createId(RdmaCm.RDMA_PS_TCP);
        client = startConnect(clientId, clientEvents, serverAddress, receivesToPost);

        RdmaCmEvent request = listenChannel.getCmEvent(20_000);
        assertNotNull(request, "no connect request within 20 s");
        assertEquals(RdmaCmEventType.CONNECT_REQUEST.ordinal(), request.getEvent());
        serverId = request.getConnIdPriv();
        request.ackEvent();
        serverChannel = RdmaEventChannel.createEventChannel();
        serverEvents = new CmEventReader(serverChannel);
        RdmaNative.migrateId(handle(serverId), serverEvents.channelHandle());
        server = new VerbsEndpoint(serverId, serverPd);
        for (int i = 0; i < receivesToPost; i++) {
            server.postReceive(2000 + i, VerbsEndpoint.BUFFER_SIZE / 2 + i * 4096, 4096);
        }
        beforeAccept.run(server);
        ByteBuffer privateData = ByteBuffer.allocateDirect(ACCEPT_PRIVATE_DATA.length).put(ACCEPT_PRIVATE_DATA);
        RdmaNative.accept(handle(serverId), RNR_RETRY_COUNT, MemoryUtils.getAddress(privateData),
                ACCEPT_PRIVATE_DATA.length);
        afterAccept.run(server);

        clientEstablished = clientEvents.expect(RdmaCmEventType.ESTABLISHED);
        serverEvents.expect(RdmaCmEventType.ESTABLISHED);
        // The CM pads private data to the transport's size (an InfiniBand REP carries 196 bytes).
        byte[] received = clientEstablished.privateData();
        assertArrayEquals(ACCEPT_PRIVATE_DATA, Arrays.copyOf(received, Math.min(received.length,
                ACCEPT_PRIVATE_DATA.length)), "private data of the accept, as the client saw it");
        assertEquals(server.qp.getQp_num(), clientEstablished.remoteQpNum(), "the server's QP number");
    }

    /**
     * The client's half of connecting: resolves the server's address and route, makes the endpoint,
     * posts {@code receives} receives of 4 KiB (work request ids 1000 and up, at
     * {@link #receiveSlot(int)}) and sends the connect request with retry counts set. The caller awaits
     * {@code ESTABLISHED}.
     */
    static VerbsEndpoint startConnect(RdmaCmId id, CmEventReader events, InetSocketAddress server, int receives)
            throws Exception {
        id.resolveAddr(null, server, 2000);
        events.expect(RdmaCmEventType.ADDR_RESOLVED);
        id.resolveRoute(2000);
        events.expect(RdmaCmEventType.ROUTE_RESOLVED);
        VerbsEndpoint endpoint = new VerbsEndpoint(id);
        for (int i = 0; i < receives; i++) {
            endpoint.postReceive(RECEIVE_ID + i, receiveSlot(i), RECEIVE_SIZE);
        }
        RdmaConnParam connect = new RdmaConnParam();
        connect.setRetry_count(RETRY_COUNT);
        connect.setRnr_retry_count(RNR_RETRY_COUNT);
        id.connect(connect);
        return endpoint;
    }

    /** Connects a pair with {@code receivesToPost} receives of 4 KiB posted on each side. */
    static ConnectedPair connect(int receivesToPost) throws Exception {
        return new ConnectedPair(receivesToPost, null, ServerStep.NONE, ServerStep.NONE);
    }

    /**
     * Connects a pair whose server endpoint lives in {@code serverPd} (a PD of its own if null), and
     * runs the steps on the server's endpoint just before and just after {@code rdma_accept}.
     */
    static ConnectedPair connect(int receivesToPost, IbvPd serverPd, ServerStep beforeAccept, ServerStep afterAccept)
            throws Exception {
        return new ConnectedPair(receivesToPost, serverPd, beforeAccept, afterAccept);
    }

    static long handle(Object disniObject) {
        return ((NatObject) disniObject).getObjId();
    }

    /** Offset of the {@code index}-th pre-posted receive slot in either endpoint's buffer. */
    static int receiveSlot(int index) {
        return VerbsEndpoint.BUFFER_SIZE / 2 + index * RECEIVE_SIZE;
    }

    @Override
    public void close() throws Exception {
        // The passive side answers the disconnect request only when it disconnects too; until then the
        // active side waits for the CM's reply timeout before it reports DISCONNECTED.
        clientId.disconnect();
        serverEvents.expect(RdmaCmEventType.DISCONNECTED);
        serverId.disconnect();
        clientEvents.expect(RdmaCmEventType.DISCONNECTED);
        client.close();
        server.close();
        assertEquals(0, clientId.destroyId(), "destroy client id");
        assertEquals(0, serverId.destroyId(), "destroy server id");
        assertEquals(0, listenId.destroyId(), "destroy listen id");
        assertEquals(0, clientChannel.destroyEventChannel(), "destroy client event channel");
        assertEquals(0, serverChannel.destroyEventChannel(), "destroy server event channel");
        assertEquals(0, listenChannel.destroyEventChannel(), "destroy listen event channel");
    }
}
