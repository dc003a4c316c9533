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
package org.nettyrdma.testsuite.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.nettyrdma.channel.rdma.internal.HelloMessage;
import org.nettyrdma.channel.rdma.internal.RdmaProtocol;

/**
 * A client that speaks raw verbs to a netty-rdma server, so that a test can send what the transport
 * itself never would: it connects over RDMA CM with {@link #RECEIVES} receives of
 * {@link #SLOT_SIZE} bytes posted, then sends and receives whole messages of its own making.
 *
 * <p>Used from the test thread only; every wait has a deadline, so a missing event fails the test.
 */
public final class RawRdmaClient implements AutoCloseable {

    /** Size of each posted receive: the slot size this client may announce in a {@code HELLO}. */
    public static final int SLOT_SIZE = ConnectedPair.RECEIVE_SIZE;
    /** Receives posted before connecting; enough for what a server says before it disconnects. */
    public static final int RECEIVES = 16;
    /** Size of the ring {@link #helloWithRing(int)} grants. */
    public static final int RING_SIZE = 64 * 1024;
    /** Where that ring starts in the registered buffer: past what {@link #send(byte[])} uses. */
    private static final int RING_OFFSET = 64 * 1024;

    private static final int WC_SUCCESS = 0;
    private static final int WC_RECV = 128;

    private final RdmaEventChannel channel;
    private final CmEventReader events;
    private final RdmaCmId id;
    private final VerbsEndpoint endpoint;
    private final ArrayDeque<IbvWC> receives = new ArrayDeque<>();
    private long nextSendId = 1;
    private boolean peerDisconnected;
    private boolean vanished;

    private RawRdmaClient(InetSocketAddress server) throws Exception {
        channel = RdmaEventChannel.createEventChannel();
        events = new CmEventReader(channel);
        id = channel.createId(RdmaCm.RDMA_PS_TCP);
        // Receives are posted before connecting, as the transport does, so that no Send finds none.
        endpoint = ConnectedPair.startConnect(id, events, server, RECEIVES);
        events.expect(RdmaCmEventType.ESTABLISHED);
    }

    /** Returns a valid {@code HELLO} granting {@code slots} receive slots of {@link #SLOT_SIZE} and no ring. */
    public static byte[] hello(int slots) {
        ByteBuf buf = Unpooled.buffer(RdmaProtocol.HELLO_SIZE);
        HelloMessage.of(slots, SLOT_SIZE, 0, 0, 0).encode(buf);
        return ByteBufUtil.getBytes(buf);
    }

    /**
     * Returns a valid {@code HELLO} granting {@code slots} receive slots of {@link #SLOT_SIZE} and a
     * ring of {@link #RING_SIZE} bytes in this client's registered buffer, below its receive slots
     * and above the bytes it sends from: the server then writes into it (or probes it) with RDMA Writes.
     */
    public byte[] helloWithRing(int slots) {
        ByteBuf buf = Unpooled.buffer(RdmaProtocol.HELLO_SIZE);
        HelloMessage.of(slots, SLOT_SIZE, RING_SIZE, endpoint.address(RING_OFFSET), endpoint.mr.getRkey()).encode(buf);
        return ByteBufUtil.getBytes(buf);
    }

    /**
     * Frees the queue pair and its memory without disconnecting, as a host that crashed leaves its
     * peer: the peer's next packet finds no queue pair and is never acknowledged.
     */
    public void vanish() throws Exception {
        vanished = true;
        endpoint.close();
    }

    /** Connects to a server; returns once the connection is established. */
    public static RawRdmaClient connect(InetSocketAddress server) throws Exception {
        return new RawRdmaClient(server);
    }

    /** Returns the bytes of the next message the server sent (the receives are not posted again). */
    public byte[] awaitMessage() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (receives.isEmpty()) {
            sortCompletions(endpoint.pollOnce());
            if (receives.isEmpty()) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("no message from the server within 20 s");
                }
                Thread.sleep(1);
            }
        }
        IbvWC wc = receives.poll();
        int slot = (int) (wc.getWr_id() - ConnectedPair.RECEIVE_ID);
        return DataTransferTest.read(endpoint.buffer, ConnectedPair.receiveSlot(slot), wc.getByte_len());
    }

    /** Sends {@code message} as one Send and waits until the device completed it successfully. */
    public void send(byte[] message) throws Exception {
        long wrId = nextSendId++;
        endpoint.buffer.put(0, message);
        endpoint.postSend(wrId, 0, message.length);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        for (;;) {
            boolean sent = false;
            // The whole batch is looked at: a receive polled with the send's completion (the server
            // answering a HELLO at once) must not be lost.
            for (IbvWC wc : endpoint.pollOnce()) {
                if (wc.getWr_id() == wrId) {
                    assertEquals(WC_SUCCESS, wc.getStatus(), () -> "send completion status "
                            + WcStatus.name(wc.getStatus()));
                    sent = true;
                } else {
                    sortCompletions(java.util.List.of(wc));
                }
            }
            if (sent) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("send " + wrId + " did not complete within 20 s");
            }
            Thread.sleep(1);
        }
    }

    /** Waits for the server to disconnect: RDMA CM reports {@code DISCONNECTED}. */
    public void awaitDisconnected(long timeout, TimeUnit unit) throws Exception {
        CmEvent event = events.next(timeout, unit);
        if (event.type() != RdmaCmEventType.DISCONNECTED.ordinal()) {
            throw new AssertionError("expected DISCONNECTED but got " + event);
        }
        peerDisconnected = true;
    }

    private void sortCompletions(Iterable<IbvWC> completions) {
        for (IbvWC wc : completions) {
            // Receives flushed by the disconnect carry no opcode worth keeping; only real ones count.
            if (wc.getOpcode() == WC_RECV && wc.getStatus() == WC_SUCCESS) {
                receives.add(wc);
            }
        }
    }

    /**
     * Disconnects (after the server's disconnect this answers it, so the server's side need not wait
     * for the CM's timeout) and frees every verbs object, asserting each destroy succeeded.
     */
    @Override
    public void close() throws Exception {
        id.disconnect();
        if (!peerDisconnected) {
            awaitDisconnected(20, TimeUnit.SECONDS);
        }
        if (!vanished) {
            endpoint.close();
        }
        assertEquals(0, id.destroyId(), "destroy id");
        assertEquals(0, channel.destroyEventChannel(), "destroy event channel");
    }
}
