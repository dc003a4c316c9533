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
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.channel.rdma.protocol.HelloMessage;
import org.nettyrdma.channel.rdma.protocol.MessageHeader;
import org.nettyrdma.channel.rdma.protocol.RdmaProtocol;
import org.nettyrdma.channel.rdma.protocol.RingMessage;
import org.nettyrdma.testkit.DeviceUnderTest;

/**
 * A client that speaks raw verbs to a netty-rdma server, so that a test can send what the transport
 * itself never would: it connects over RDMA CM, posts its receives (by default {@link #RECEIVES} of
 * {@link #SLOT_SIZE} bytes), then sends and receives whole messages of its own making and makes RDMA
 * Writes, with or without immediate, wherever it likes: into the ring the server opens to it (its
 * address and rkey come in the server's {@code RING}, {@link #requestRing}), past it, or into another
 * connection's ring. It keeps no credits: what it sends is the test's choice.
 *
 * <p>Its registered buffer holds, in this order: what {@link #send} sends, the ring
 * {@link #ringOffer} opens to the server, the payloads of Writes, and the receive slots.
 *
 * <p>Used from one thread only; every wait has a deadline, so a missing event fails the test.
 */
public final class RawRdmaClient implements AutoCloseable {

    /** Size of each posted receive by default: the slot size {@link #hello(int)} announces. */
    public static final int SLOT_SIZE = ConnectedPair.RECEIVE_SIZE;
    /** Receives posted by default; enough for what a server says before it disconnects. */
    public static final int RECEIVES = 16;
    /** Size of the ring {@link #ringOffer(int)} opens. */
    public static final int RING_SIZE = 64 * 1024;
    /** Where that ring starts in the registered buffer: past what {@link #send(byte[])} uses. */
    private static final int RING_OFFSET = 64 * 1024;
    /** Where the payload of a Write is staged, past that ring. */
    private static final int WRITE_SOURCE = RING_OFFSET + RING_SIZE;
    /** Where the receive slots start: the upper half of the buffer. */
    private static final int RECEIVE_AREA = VerbsEndpoint.BUFFER_SIZE / 2;
    /** The largest RDMA Write this client makes. */
    public static final int MAX_WRITE = RECEIVE_AREA - WRITE_SOURCE;
    private static final long TIMEOUT_SECONDS = 30;
    /** IB_CM_REJ_CONSUMER_DEFINED: the peer's own reject, as its CM sends one for an id destroyed early. */
    private static final int REJECTED_BY_CONSUMER = 28;

    /** Memory to write to: an address, and the rkey that grants access to it, or not. */
    public record Target(long address, int rkey) {
        /** Address and rkey 0: for a Write of no bytes, which needs neither. */
        public static final Target NOWHERE = new Target(0, 0);
    }

    /**
     * The work completion of a request this client posted.
     *
     * @param wrId the work request's id
     * @param status the status's name in rdma-core's {@code enum ibv_wc_status}, e.g. {@code REM_ACCESS_ERR}
     */
    public record Completion(long wrId, String status) {
        /** Returns {@code true} if the request succeeded. */
        public boolean succeeded() {
            return WcStatus.SUCCESS.name().equals(status);
        }
    }

    private final RdmaEventChannel channel;
    private final CmEventReader events;
    private final RdmaCmId id;
    private final VerbsEndpoint endpoint;
    private final RawCompletions completions;
    private final int receiveSize;
    private HelloMessage serverHello;
    /** The ring the server opened to this client ({@link #requestRing()}); null before. */
    private RingMessage serverRing;
    private long nextSendId = 1;
    /** {@code true} once the first Send was followed by the nudge of iWARP ({@link #send}). */
    private boolean nudged;
    /** When a run of work requests saw the last of them complete successfully ({@link System#nanoTime()}). */
    private long lastAcceptedNanos;
    private boolean peerDisconnected;
    private boolean vanished;
    private boolean closed;

    private RawRdmaClient(InetSocketAddress server, int receiveSize, int receives) throws Exception {
        if (receives <= 0 || (long) receives * receiveSize > VerbsEndpoint.BUFFER_SIZE - RECEIVE_AREA) {
            throw new IllegalArgumentException(receives + " receives of " + receiveSize + " bytes (expected: "
                    + "at most " + (VerbsEndpoint.BUFFER_SIZE - RECEIVE_AREA) + " bytes)");
        }
        this.receiveSize = receiveSize;
        channel = RdmaEventChannel.createEventChannel();
        events = new CmEventReader(channel);
        id = channel.createId(RdmaCm.RDMA_PS_TCP);
        endpoint = ConnectedPair.startConnect(id, events, server, 0);
        completions = new RawCompletions(endpoint);
        // Posted once the connect request is out, in slots of this client's choosing, and still in time:
        // a netty-rdma server sends nothing before this client's HELLO (docs/protocol.md, "Connection").
        for (int i = 0; i < receives; i++) {
            endpoint.postReceive(RawCompletions.receiveId(i), receiveOffset(i), receiveSize);
        }
        events.expect(RdmaCmEventType.ESTABLISHED);
    }

    /** Connects to a server with the default receives; returns once the connection is established. */
    public static RawRdmaClient connect(InetSocketAddress server) throws Exception {
        return new RawRdmaClient(server, SLOT_SIZE, RECEIVES);
    }

    /**
     * Connects to a server with {@code receives} receives of {@code receiveSize} bytes posted, at most
     * half a MiB in all; returns once the connection is established.
     */
    public static RawRdmaClient connect(InetSocketAddress server, int receiveSize, int receives) throws Exception {
        return new RawRdmaClient(server, receiveSize, receives);
    }

    /** Returns a valid {@code HELLO} granting {@code slots} receive slots of {@link #SLOT_SIZE} and offering no ring. */
    public static byte[] hello(int slots) {
        return hello(slots, SLOT_SIZE);
    }

    /**
     * Returns a {@code HELLO} granting {@code slots} receive slots of {@code slotSize} bytes and offering
     * no ring; valid as far as the server can check, whatever this client really posted.
     */
    public static byte[] hello(int slots, int slotSize) {
        return encode(HelloMessage.of(slots, slotSize, 0));
    }

    /**
     * Returns a valid {@code HELLO} granting {@code slots} receive slots of {@link #SLOT_SIZE} and offering
     * rings of up to {@link #RING_SIZE} bytes: {@link #ringOffer} then opens one.
     */
    public static byte[] helloWithRing(int slots) {
        return encode(HelloMessage.of(slots, SLOT_SIZE, RING_SIZE));
    }

    /**
     * Returns a {@code RING} that opens ring {@code generation} of {@link #RING_SIZE} bytes in this
     * client's registered buffer, below its receive slots and above the bytes it sends from, under its
     * region's rkey: the server then writes into it (or probes it) with RDMA Writes. A server takes it
     * whether or not it asked, after a {@link #helloWithRing} offering that much.
     */
    public byte[] ringOffer(int generation) {
        ByteBuf buf = Unpooled.buffer(RdmaProtocol.HEADER_SIZE + RingMessage.RING_SIZE);
        MessageHeader.encode(buf, RdmaProtocol.TYPE_RING, 0, 0, RingMessage.RING_SIZE);
        RingMessage.encodeRing(buf, generation, RING_SIZE, endpoint.address(RING_OFFSET), endpoint.mr.getRkey());
        return ByteBufUtil.getBytes(buf);
    }

    /** Returns a {@code RING_REQUEST} naming ring {@code generation} as the newest this client knows of. */
    public static byte[] ringRequest(int generation) {
        return generationMessage(RdmaProtocol.TYPE_RING_REQUEST, generation);
    }

    /** Returns a {@code RING_RELEASED} of ring {@code generation}. */
    public static byte[] ringReleased(int generation) {
        return generationMessage(RdmaProtocol.TYPE_RING_RELEASED, generation);
    }

    private static byte[] generationMessage(int type, int generation) {
        ByteBuf buf = Unpooled.buffer(RdmaProtocol.HEADER_SIZE + RingMessage.GENERATION_SIZE);
        MessageHeader.encode(buf, type, 0, 0, RingMessage.GENERATION_SIZE);
        RingMessage.encodeGeneration(buf, generation);
        return ByteBufUtil.getBytes(buf);
    }

    private static byte[] encode(HelloMessage hello) {
        ByteBuf buf = Unpooled.buffer(RdmaProtocol.HELLO_SIZE);
        hello.encode(buf);
        return ByteBufUtil.getBytes(buf);
    }

    /** Sends {@code hello} and returns the server's {@code HELLO} in answer. */
    public HelloMessage exchangeHellos(byte[] hello) throws Exception {
        send(hello);
        byte[] answer = awaitMessage();
        serverHello = HelloMessage.decode(Unpooled.wrappedBuffer(answer), 0, answer.length);
        return serverHello;
    }

    /** Returns the server's {@code HELLO}, once {@link #exchangeHellos} received it. */
    public HelloMessage serverHello() {
        if (serverHello == null) {
            throw new IllegalStateException("no HELLO from the server yet");
        }
        return serverHello;
    }

    /**
     * Asks the server for a ring ({@code RING_REQUEST} naming none) and returns its {@code RING} in
     * answer, skipping the {@code CREDIT}s before it; from then on {@link #ring(long)} points into it.
     */
    public RingMessage requestRing() throws Exception {
        send(ringRequest(0));
        RingMessage ring = awaitRing();
        assertTrue(ring.size() > 0, "the server declined the ring");
        serverRing = ring;
        return ring;
    }

    /** Returns the next {@code RING} the server sent, skipping the {@code CREDIT}s before it. */
    public RingMessage awaitRing() throws Exception {
        MessageHeader header = new MessageHeader();
        while (true) {
            byte[] message = awaitMessage();
            ByteBuf buf = Unpooled.wrappedBuffer(message);
            header.decode(buf, 0, message.length);
            if (header.type() == RdmaProtocol.TYPE_RING) {
                RingMessage ring = new RingMessage();
                ring.decodeRing(buf, RdmaProtocol.HEADER_SIZE);
                return ring;
            }
            assertEquals(RdmaProtocol.TYPE_CREDIT, header.type(), "a message before the server's RING");
        }
    }

    /** Returns the ring the server opened to this client, once {@link #requestRing()} received it. */
    public RingMessage serverRing() {
        if (serverRing == null) {
            throw new IllegalStateException("no RING from the server yet");
        }
        return serverRing;
    }

    /**
     * Returns the memory at {@code offset} of the ring the server opened to this client, with the ring's
     * rkey: {@code offset} may lie outside the ring, and the target may be handed to another client.
     */
    public Target ring(long offset) {
        RingMessage ring = serverRing();
        return new Target(ring.address() + offset, ring.key());
    }

    /**
     * Frees the queue pair and its memory without disconnecting, as a host that crashed leaves its
     * peer: the peer's next packet finds no queue pair and is never acknowledged.
     */
    public void vanish() throws Exception {
        vanished = true;
        endpoint.close();
    }

    /** Returns the bytes of the next message the server sent (the receives are not posted again). */
    public byte[] awaitMessage() throws Exception {
        RawCompletions.Received received = completions.awaitReceive(TIMEOUT_SECONDS);
        byte[] message = new byte[received.length()];
        endpoint.buffer.get(receiveOffset(received.slot()), message);
        return message;
    }

    /**
     * Sends {@code message} as one Send and waits until the device completed it successfully. On iWARP
     * the first Send is followed by a zero-length RDMA Read, not awaited, as the transport's own client
     * nudges its {@code HELLO} (docs/decisions.md#hello-nudge-on-iwarp): siw may leave a Send that
     * arrives while it accepts unread until more bytes come.
     */
    public void send(byte[] message) throws Exception {
        long wrId = nextSendId++;
        endpoint.buffer.put(0, message);
        endpoint.postSend(wrId, 0, message.length);
        Completion completion = completions.awaitSend(wrId, TIMEOUT_SECONDS);
        assertEquals(WcStatus.SUCCESS.name(), completion.status(), "send completion status");
        if (!nudged && DeviceUnderTest.isIwarp()) {
            nudged = true;
            endpoint.postRead(nextSendId++, 0, 0, 0, 0);
        }
    }

    /**
     * Sends {@code message} as one Send with Invalidate naming {@code rkey} (a verb the protocol never
     * uses) and returns its work completion, whatever its status: a device that refuses the
     * invalidation fails the receive, and this client's request is never acknowledged.
     */
    public Completion sendWithInvalidate(byte[] message, int rkey) throws Exception {
        long wrId = nextSendId++;
        endpoint.buffer.put(0, message);
        endpoint.postSendWithInvalidate(wrId, 0, message.length, rkey);
        return completions.awaitSend(wrId, TIMEOUT_SECONDS);
    }

    /** Returns the lkey of this client's own memory region, which holds all its buffers. */
    public int lkey() {
        return endpoint.mr.getLkey();
    }

    /** Returns the rkey of this client's own memory region, registered for remote write and read. */
    public int rkey() {
        return endpoint.mr.getRkey();
    }

    /**
     * Makes an RDMA Write of {@code data} to {@code target}, without immediate: the target's device places
     * it, its software never hears of it. Returns the work completion, whatever its status.
     */
    public Completion write(Target target, byte[] data) throws Exception {
        long wrId = stage(data);
        endpoint.postWrite(wrId, WRITE_SOURCE, data.length, target.address(), target.rkey());
        return completions.awaitSend(wrId, TIMEOUT_SECONDS);
    }

    /**
     * Makes an RDMA Write with immediate of {@code data} to {@code target}: the target's software gets a
     * receive completion with {@code immediate} and the length (a netty-rdma server reads the immediate as
     * the ring offset written). Returns the work completion, whatever its status.
     */
    public Completion writeWithImmediate(Target target, byte[] data, int immediate) throws Exception {
        long wrId = stage(data);
        endpoint.postWriteWithImmediate(wrId, WRITE_SOURCE, data.length, target.address(), target.rkey(), immediate);
        return completions.awaitSend(wrId, TIMEOUT_SECONDS);
    }

    private long stage(byte[] data) {
        if (data.length > MAX_WRITE) {
            throw new IllegalArgumentException("write of " + data.length + " bytes (expected: <= " + MAX_WRITE + ')');
        }
        endpoint.buffer.put(WRITE_SOURCE, data);
        return nextSendId++;
    }

    /**
     * Floods the server's ring with {@code count} Writes with immediate of one byte each, at the offsets
     * from {@code firstOffset} on, each immediate naming its offset, with up to half the send queue in
     * flight at once. Posting stops at the first that fails. Returns the completions of those posted, in
     * order.
     */
    public List<Completion> flood(int firstOffset, int count) throws Exception {
        if (firstOffset < 0 || (long) firstOffset + count > serverRing().size()) {
            throw new IllegalArgumentException(count + " bytes at ring offset " + firstOffset + " (expected: within "
                    + serverRing().size() + ')');
        }
        endpoint.buffer.put(WRITE_SOURCE, (byte) 'f');
        return windowed(count, RawCompletions.WINDOW, (wrId, index) -> {
            Target target = ring(firstOffset + index);
            endpoint.postWriteWithImmediate(wrId, WRITE_SOURCE, 1, target.address(), target.rkey(),
                    firstOffset + index);
        });
    }

    /**
     * Sends {@code message} {@code count} times back to back, with up to half the send queue in flight
     * at once and no regard for credits. Posting stops at the first that fails. Returns the completions
     * of those posted, in order.
     */
    public List<Completion> burst(byte[] message, int count) throws Exception {
        endpoint.buffer.put(0, message);
        return windowed(count, RawCompletions.WINDOW, (wrId, index) -> endpoint.postSend(wrId, 0, message.length));
    }

    /** Posts one work request of a windowed run. */
    private interface Poster {
        void post(long wrId, int index) throws Exception;
    }

    /**
     * Posts {@code count} work requests with {@code poster}, up to {@code window} in flight at once,
     * and stops posting at the first that fails; returns the completions of those posted, in order,
     * and notes when the last successful one was seen ({@link #lastAcceptedNanos()}).
     */
    private List<Completion> windowed(int count, int window, Poster poster) throws Exception {
        List<Completion> result = new ArrayList<>(count);
        long firstId = nextSendId;
        int posted = 0;
        boolean failed = false;
        while (result.size() < posted || (posted < count && !failed)) {
            if (posted < count && !failed && posted - result.size() < window) {
                poster.post(nextSendId++, posted);
                posted++;
            } else {
                Completion completion = completions.awaitSend(firstId + result.size(), TIMEOUT_SECONDS);
                if (completion.succeeded()) {
                    lastAcceptedNanos = System.nanoTime();
                } else {
                    failed = true;
                }
                result.add(completion);
            }
        }
        return result;
    }

    /**
     * Posts {@code count} RDMA Writes with immediate of no bytes, which need no key or address, and
     * waits for none of them: a peer that sends them and disconnects at once.
     */
    public void postEmptyWritesWithImmediate(int count) throws Exception {
        for (int i = 0; i < count; i++) {
            endpoint.postWriteWithImmediate(nextSendId++, WRITE_SOURCE, 0, 0, 0, 0);
        }
    }

    /**
     * Sends {@code message} {@code count} times back to back, with the whole send queue in flight, as a
     * peer that floods; stops posting at the first Send that fails. Returns the completions of those
     * posted, in order: the successful ones are the Sends the server's device accepted, each into a
     * receive of the server's.
     */
    public List<Completion> floodSends(byte[] message, int count) throws Exception {
        endpoint.buffer.put(0, message);
        return windowed(count, VerbsEndpoint.QUEUE_DEPTH, (wrId, index) -> endpoint.postSend(wrId, 0, message.length));
    }

    /** Returns when the last run of work requests saw its last successful completion, in {@link System#nanoTime()}'s terms. */
    public long lastAcceptedNanos() {
        return lastAcceptedNanos;
    }

    /** Returns {@code true} if this client's queue pair is in the error state: a failed work request put it there. */
    public boolean queuePairInError() throws Exception {
        return RdmaNative.queryQpState(ConnectedPair.handle(endpoint.qp)) == RawCompletions.QP_STATE_ERR;
    }

    /** Returns the receives that came back flushed so far: the queue pair went to the error state under them. */
    public int flushedReceives() throws Exception {
        completions.pollOnce();
        return completions.flushedReceives();
    }

    /**
     * Waits for the server to end the connection: RDMA CM reports {@code DISCONNECTED}, or
     * {@code REJECTED} by the consumer (IB CM status 28) where the server ended it before its own side
     * was established: its CM had sent the REP but not yet seen this side's RTU, and destroying the id
     * then sends a REJ, which this side's CM reports although it is past ESTABLISHED.
     */
    public void awaitDisconnected(long timeout, TimeUnit unit) throws Exception {
        CmEvent event = events.next(timeout, unit);
        boolean ended = event.type() == RdmaCmEventType.DISCONNECTED.ordinal()
                || event.type() == RdmaCmEventType.REJECTED.ordinal() && event.status() == REJECTED_BY_CONSUMER;
        if (!ended) {
            throw new AssertionError("expected DISCONNECTED (or a consumer's REJECTED) but got " + event);
        }
        peerDisconnected = true;
    }

    private int receiveOffset(int slot) {
        return RECEIVE_AREA + slot * receiveSize;
    }

    /**
     * Disconnects (after the server's disconnect this answers it, so the server's side need not wait
     * for the CM's timeout) and frees every verbs object, asserting each destroy succeeded; the objects
     * are freed even if the disconnect is not confirmed in time. A second call does nothing.
     */
    @Override
    public void close() throws Exception {
        if (closed) {
            return;
        }
        closed = true;
        try {
            id.disconnect();
            if (!peerDisconnected) {
                awaitDisconnected(20, TimeUnit.SECONDS);
            }
        } finally {
            try {
                if (!vanished) {
                    endpoint.close();
                }
            } finally {
                assertEquals(0, id.destroyId(), "destroy id");
                assertEquals(0, channel.destroyEventChannel(), "destroy event channel");
            }
        }
    }
}
