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
package org.nettyrdma.channel.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.junit.jupiter.api.Test;
import org.nettyrdma.channel.rdma.internal.CmEvent;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.channel.rdma.protocol.RejectReason;

/**
 * Which answers of RDMA CM let a connect go on over TCP ({@link TcpFallback#reasonFor}), on event
 * records made here as the event channel's poll writes them, and what a strictly RDMA connect says
 * instead. The cases are those measured in the VM (docs/fallback.md).
 */
class TcpFallbackDecisionTest {

    /** What an IB CM reject always carries: 148 bytes of private data. */
    private static final int REJECT_PRIVATE_DATA = 148;
    /** IB_CM_REJ_CONSUMER_DEFINED: the listener itself refused. */
    private static final int REJECTED_BY_CONSUMER = 28;

    private final ByteBuffer record = ByteBuffer.allocateDirect(RdmaNative.CM_EVENT_SIZE)
            .order(ByteOrder.nativeOrder());
    private final CmEvent event = new CmEvent(record);

    @Test
    void noRouteNoListenerAndNoAnswerFallBack() {
        assertEquals(RdmaFallbackReason.NO_ROUTE, TcpFallback.reasonFor(event(CmEvent.ADDR_ERROR, -19), false));
        assertEquals(RdmaFallbackReason.NO_ROUTE, TcpFallback.reasonFor(event(CmEvent.ROUTE_ERROR, -19), false));
        assertEquals(RdmaFallbackReason.RDMA_UNREACHABLE,
                TcpFallback.reasonFor(event(CmEvent.UNREACHABLE, -110), false));
        assertEquals(RdmaFallbackReason.NO_RDMA_LISTENER,
                TcpFallback.reasonFor(rejected(TcpFallback.REJECTED_NO_LISTENER, new byte[REJECT_PRIVATE_DATA]),
                        false));
    }

    @Test
    void aServerShortOfRegisteredMemoryIsReachedOverTcp() {
        assertEquals(RdmaFallbackReason.PEER_DECLINED,
                TcpFallback.reasonFor(rejectedFor(RejectReason.REGISTERED_MEMORY_LIMIT), false));
        assertEquals(RdmaFallbackReason.PEER_DECLINED,
                TcpFallback.reasonFor(rejectedFor(RejectReason.ADDRESS_LIMIT), false));
    }

    @Test
    void aServerThatRefusesTheConnectionItselfIsNotAskedAgainOverTcp() {
        for (int reason : new int[] {RejectReason.BACKLOG_FULL, RejectReason.SHUTTING_DOWN, RejectReason.SERVER_ERROR,
                RejectReason.ADDRESS_CONNECTION_LIMIT, RejectReason.CONNECTION_LIMIT}) {
            assertNull(TcpFallback.reasonFor(rejectedFor(reason), false), "reject reason " + reason);
        }
    }

    @Test
    void anotherRdmaProgramsRejectAndAConnectErrorFail() {
        byte[] foreign = new byte[REJECT_PRIVATE_DATA];
        foreign[0] = 1;
        foreign[1] = 2;
        assertNull(TcpFallback.reasonFor(rejected(REJECTED_BY_CONSUMER, foreign), false), "another program's reject");
        assertNull(TcpFallback.reasonFor(rejected(REJECTED_BY_CONSUMER, new byte[REJECT_PRIVATE_DATA]), false),
                "a consumer reject without data");
        assertNull(TcpFallback.reasonFor(event(CmEvent.CONNECT_ERROR, -22), false));
    }

    @Test
    void onIwarpATcpServerThatResetsOrAnswersSomethingElseMeansNoRdmaListener() {
        // siw: a TCP server that closes on the MPA request resets it (REJECTED, -ECONNRESET, no data);
        // one that answers with bytes that are no MPA reply fails it (CONNECT_ERROR, -EINVAL).
        assertEquals(RdmaFallbackReason.NO_RDMA_LISTENER,
                TcpFallback.reasonFor(rejected(-TcpFallback.ECONNRESET, new byte[0]), true));
        assertEquals(RdmaFallbackReason.NO_RDMA_LISTENER,
                TcpFallback.reasonFor(event(CmEvent.CONNECT_ERROR, -22), true));
        // Rejects by a server of this transport say why, over iWARP as well.
        assertEquals(RdmaFallbackReason.PEER_DECLINED,
                TcpFallback.reasonFor(iwarpReject(RejectReason.ADDRESS_LIMIT), true));
        assertNull(TcpFallback.reasonFor(iwarpReject(RejectReason.BACKLOG_FULL), true));
        // IB CM's status of a port nobody listens on means nothing over iWARP, nor iWARP's on IB.
        assertNull(TcpFallback.reasonFor(rejected(TcpFallback.REJECTED_NO_LISTENER, new byte[0]), true));
        assertNull(TcpFallback.reasonFor(rejected(-TcpFallback.ECONNRESET, new byte[0]), false));
    }

    @Test
    void aStrictConnectSaysWhatWasMissing() {
        InetSocketAddress loopback = new InetSocketAddress(InetAddress.getLoopbackAddress(), 7000);
        ConnectException e = TcpFallback.refused(RdmaFallbackReason.NO_ROUTE,
                "rdma_resolve_route failed: No such device (errno 19)", loopback);
        assertEquals("no RDMA device serves 127.0.0.1 (rdma_resolve_route failed: No such device (errno 19)); "
                + "TCP_FALLBACK is off", e.getMessage());
        String noListener = TcpFallback.refused(RdmaFallbackReason.NO_RDMA_LISTENER, "RDMA CM REJECTED, status 8",
                loopback).getMessage();
        assertTrue(noListener.startsWith("no RDMA listener at 127.0.0.1:7000") && noListener.contains("status 8"),
                noListener);
    }

    @Test
    void anIpv6AddressIsInBracketsBeforeItsPort() throws Exception {
        InetSocketAddress ipv6 = new InetSocketAddress(InetAddress.getByName("fd00:77::1"), 7000);
        String noListener = TcpFallback.refused(RdmaFallbackReason.NO_RDMA_LISTENER, "RDMA CM REJECTED, status 8",
                ipv6).getMessage();
        assertTrue(noListener.startsWith("no RDMA listener at [fd00:77::1]:7000"), noListener);
    }

    private CmEvent event(int type, int status) {
        record.putInt(RdmaNative.CM_EVENT_TYPE_OFFSET, type);
        record.putInt(RdmaNative.CM_EVENT_STATUS_OFFSET, status);
        record.putInt(RdmaNative.CM_EVENT_PRIVATE_DATA_LENGTH_OFFSET, 0);
        return event;
    }

    private CmEvent rejected(int status, byte[] privateData) {
        event(CmEvent.REJECTED, status);
        record.put(RdmaNative.CM_EVENT_PRIVATE_DATA_OFFSET, privateData);
        record.putInt(RdmaNative.CM_EVENT_PRIVATE_DATA_LENGTH_OFFSET, privateData.length);
        return event;
    }

    /** A reject by a server of this transport over iWARP: its reason alone, in an MPA reject. */
    private CmEvent iwarpReject(int reason) {
        ByteBuffer data = ByteBuffer.allocate(RejectReason.SIZE);
        RejectReason.encode(data, reason);
        return rejected(-TcpFallback.ECONNRESET, data.array());
    }

    /** A reject by a server of this transport: its reason first, then the zeros of the rest. */
    private CmEvent rejectedFor(int reason) {
        ByteBuffer data = ByteBuffer.allocate(REJECT_PRIVATE_DATA);
        RejectReason.encode(data, reason);
        return rejected(REJECTED_BY_CONSUMER, data.array());
    }
}
