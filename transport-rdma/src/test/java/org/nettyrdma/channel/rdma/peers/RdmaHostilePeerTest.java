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
package org.nettyrdma.channel.rdma.peers;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.nettyrdma.channel.rdma.RdmaChannelOption;
import org.nettyrdma.channel.rdma.RdmaCreditTimeoutException;
import org.nettyrdma.channel.rdma.RdmaProtocolException;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.channel.rdma.protocol.MessageHeader;
import org.nettyrdma.channel.rdma.internal.ConnectParameters;
import org.nettyrdma.channel.rdma.protocol.RdmaProtocol;
import org.nettyrdma.channel.rdma.verbs.RawRdmaClient;
import org.nettyrdma.testkit.Await;
import org.nettyrdma.testkit.DeviceUnderTest;
import org.nettyrdma.testkit.RdmaTransportFixture;
import org.nettyrdma.testkit.TestSeed;

/**
 * A peer that breaks the wire protocol (docs/protocol.md) with its Sends costs only its own connection.
 * A raw verbs client connects to an {@code RdmaServerSocketChannel} over RDMA CM and sends, after the
 * server's {@code HELLO}, a broken {@code HELLO}, or a valid one followed by a message the server must
 * refuse: credits it never gave, a second {@code HELLO}, an unknown type, a payload length that is not
 * the Send's. The server's child channel must get an {@link RdmaProtocolException} that names the
 * violation and close, and the raw peer must see {@code DISCONNECTED}, while a well-behaved
 * {@code RdmaSocketChannel} on the same server keeps transferring and completes its stream unchanged
 * ({@link HostilePeerServer}). {@link RdmaHostileWriteTest} does the same with RDMA Writes.
 */
class RdmaHostilePeerTest {

    // What the server child's exception must say, for the violations of both hostile-peer tests: the
    // one place to change when the wording changes. RdmaProtocolException messages, except the last.
    /** A Write with immediate before the peer's {@code HELLO}. */
    static final String BEFORE_HELLO = "before HELLO";
    /** A Write with immediate whose immediate is not where the peer may write. */
    static final String WRITE_OFFSET = "RDMA Write at ring offset";
    /** More ring bytes written than the ring credit allowed. */
    static final String RING_BYTES = "ring bytes";
    /** More Sends or Writes with immediate than receive slots granted. */
    static final String RECEIVE_SLOTS = "receive slots";
    /** A Write with immediate of bytes that a receive slot would take. */
    static final String SMALL_WRITE = "fit a receive slot";
    /** A {@code HELLO} after the first. */
    static final String SECOND_HELLO = "second HELLO";
    /** A header with a type the protocol does not have. */
    static final String UNKNOWN_TYPE = "unknown message type";
    /** A header whose payload length is not the Send's length less the header. */
    static final String PAYLOAD_LENGTH = "payload length";
    /**
     * A Write with immediate that the server's device refused (outside the ring): the receive it took
     * completes with the remote access error status, which the child's {@code IOException} names.
     */
    static final String REMOTE_ACCESS_ERROR = "remote access error";
    /** Writes that waited for the peer's credit longer than the bound ({@link RdmaCreditTimeoutException}). */
    static final String CREDIT_TIMEOUT = "returned no receive credit";
    /** A Send that met no receive posted, retried until the bound (an {@code IOException}). */
    static final String RNR_RETRIES_EXHAUSTED = "receiver-not-ready retries exhausted";

    /** The raw client grants the server fewer slots than it posted, and no ring: the server only Sends. */
    private static final int GRANTED_SLOTS = RawRdmaClient.RECEIVES - 2;
    private static final int UNKNOWN_MESSAGE_TYPE = 9;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    static Stream<Arguments> violations() {
        return Stream.of(
                Arguments.of("HELLO of another type", List.of(hello(0, (byte) RdmaProtocol.TYPE_DATA)),
                        "first message is DATA (expected: HELLO)"),
                Arguments.of("HELLO of another version", List.of(hello(1, (byte) 99)),
                        "peer speaks protocol version 99"),
                Arguments.of("HELLO with unknown flags", List.of(hello(3, (byte) 1)), "HELLO flags: 0x1"),
                Arguments.of("HELLO too short", List.of(new byte[8]), "HELLO too short: 8 bytes"),
                // The server's own HELLO is the only message that used a slot of this client's.
                Arguments.of("more slots returned than were in use",
                        List.of(validHello(), header(RdmaProtocol.TYPE_CREDIT, GRANTED_SLOTS + 1000, 0, 0, 0)),
                        "peer returned " + (GRANTED_SLOTS + 1000) + " slots, but only 1 of " + GRANTED_SLOTS),
                Arguments.of("ring bytes returned though no ring was used",
                        List.of(validHello(), header(RdmaProtocol.TYPE_CREDIT, 0, 4096, 0, 0)),
                        "peer returned 4096 ring bytes, but only 0 of"),
                Arguments.of("a second HELLO", List.of(validHello(), validHello()), SECOND_HELLO),
                Arguments.of("a message of an unknown type",
                        List.of(validHello(), header(UNKNOWN_MESSAGE_TYPE, 0, 0, 0, 0)), UNKNOWN_TYPE),
                Arguments.of("DATA whose payload length is not the Send's",
                        List.of(validHello(), header(RdmaProtocol.TYPE_DATA, 0, 0, 100, 50)), PAYLOAD_LENGTH));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("violations")
    void aViolationClosesOnlyThatConnection(String violation, List<byte[]> messages, String expectedMessage,
                                            TestInfo test) throws Exception {
        try (HostilePeerServer server = HostilePeerServer.start(rdma, TestSeed.of(test), bootstrap -> { });
             RawRdmaClient raw = RawRdmaClient.connect(server.address())) {
            HostilePeerServer.RawChild hostile = server.nextRawChild();
            for (int i = 0; i < messages.size(); i++) {
                if (i == 0 && messages.size() > 1) {
                    // The client speaks first: a HELLO the server accepts is answered with its own.
                    raw.exchangeHellos(messages.get(0));
                } else {
                    raw.send(messages.get(i));
                }
            }
            HostilePeerServer.assertClosed(hostile, raw, RdmaProtocolException.class, expectedMessage);
            server.assertStreamIntact();
        }
    }

    /**
     * A peer that sends more than its credit into the loop's shared receive queue
     * ({@code SHARED_RECEIVE_QUEUE}) takes receives that other peers' credits stand for: its connection
     * closes at the first such message, naming the slots, and the well-behaved stream on the same
     * server goes on intact. (On a queue of its own, the default, its Sends beyond the receives posted
     * there meet RNR at its own queue: {@link RdmaSharedReceiveQueueTest#creditFloodersAtOnceStarveNobody}.) The peer sends
     * {@code CREDIT}s that return nothing, more than its share could ever have grown to with every
     * credit the server returned: the server can send it at most {@code GRANTED_SLOTS - 1} messages,
     * each returning at most the share's maximum.
     */
    @Test
    void sendsBeyondTheCreditCloseOnlyThatConnection(TestInfo test) throws Exception {
        int flood = GRANTED_SLOTS * 64 + 64;
        try (HostilePeerServer server = HostilePeerServer.start(rdma, TestSeed.of(test),
                bootstrap -> bootstrap.childOption(RdmaChannelOption.SHARED_RECEIVE_QUEUE, true));
             RawRdmaClient raw = RawRdmaClient.connect(server.address())) {
            HostilePeerServer.RawChild hostile = server.nextRawChild();
            raw.exchangeHellos(validHello());
            int sent = 0;
            try {
                for (; sent < flood; sent++) {
                    raw.send(header(RdmaProtocol.TYPE_CREDIT, 0, 0, 0, 0));
                }
            } catch (AssertionError | Exception e) {
                // The server closed the queue pair: the Sends after the violation fail.
            }
            assertTrue(sent < flood, "the server took all " + flood + " Sends");
            HostilePeerServer.assertClosed(hostile, raw, RdmaProtocolException.class, RECEIVE_SLOTS);
            server.assertStreamIntact();
        }
    }

    /**
     * A peer that grants receive slots it never posted: the server's first Send beyond them meets no
     * receive, is retried {@link ConnectParameters#RNR_RETRY_COUNT} times, and fails; the write's promise
     * fails and the connection closes with the error, in bounded time, however long the peer stays.
     */
    @Test
    void slotsGrantedButNeverPostedEndTheConnection(TestInfo test) throws Exception {
        // The retries are InfiniBand's: an iWARP Send completes once sent, and a peer without a receive
        // for it ends the connection instead (docs/devices.md#siw-known-failures).
        assumeFalse(DeviceUnderTest.isIwarp(), "iWARP has no receiver-not-ready retry to run out of");
        try (HostilePeerServer server = HostilePeerServer.start(rdma, TestSeed.of(test), bootstrap -> { });
             RawRdmaClient raw = RawRdmaClient.connect(server.address(), RawRdmaClient.SLOT_SIZE, 2)) {
            HostilePeerServer.RawChild liar = server.nextRawChild();
            // Grants GRANTED_SLOTS, posted 2: the server's HELLO takes the first, one write the second.
            raw.exchangeHellos(validHello());
            ChannelFuture fits = liar.channel.writeAndFlush(Unpooled.wrappedBuffer(new byte[64])).await();
            assertTrue(fits.isSuccess(), () -> "the write into the last receive posted: " + fits.cause());
            long started = System.nanoTime();
            ChannelFuture beyond = liar.channel.writeAndFlush(Unpooled.wrappedBuffer(new byte[64]));
            assertTrue(beyond.await(60, TimeUnit.SECONDS), "the write beyond the receives posted ended");
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            System.out.println("a Send to receives never posted failed after " + millis + " ms: " + beyond.cause());
            assertFalse(beyond.isSuccess(), "the write beyond the receives posted");
            liar.assertClosedWith(IOException.class, RNR_RETRIES_EXHAUSTED);
            server.assertStreamIntact();
        }
    }

    /**
     * A peer that posted its receives and granted them, and then never returns a credit: the server's
     * writes beyond the credit wait for {@link RdmaChannelOption#CREDIT_TIMEOUT_MILLIS}, then fail
     * with an {@link RdmaCreditTimeoutException} that says so, and the connection closes. Its queue
     * pair works throughout: nothing but the bound ends the wait.
     */
    @Test
    void creditNeverReturnedFailsTheWritesAtTheBound(TestInfo test) throws Exception {
        int bound = 3000;
        try (HostilePeerServer server = HostilePeerServer.start(rdma, TestSeed.of(test),
                bootstrap -> bootstrap.childOption(RdmaChannelOption.CREDIT_TIMEOUT_MILLIS, bound));
             RawRdmaClient raw = RawRdmaClient.connect(server.address())) {
            HostilePeerServer.RawChild miser = server.nextRawChild();
            raw.exchangeHellos(validHello());
            // Twice the slots granted, a flush each: the first ones land, the rest wait for credit.
            List<ChannelFuture> writes = new ArrayList<>();
            for (int i = 0; i < 2 * GRANTED_SLOTS; i++) {
                writes.add(miser.channel.writeAndFlush(Unpooled.wrappedBuffer(new byte[64])));
            }
            Await.until(() -> miser.channel instanceof RdmaSocketChannel
                    && ((RdmaSocketChannel) miser.channel).metrics().creditStalls() > 0, 30,
                    () -> "the server's writes stalled on credit");
            long stalled = System.nanoTime();
            ChannelFuture last = writes.get(writes.size() - 1);
            assertTrue(last.await(bound + 30_000, TimeUnit.MILLISECONDS), "the write waiting for credit ended");
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stalled);
            System.out.println("writes waiting for credit failed " + millis + " ms after the first stall (bound "
                    + bound + " ms): " + last.cause());
            assertInstanceOf(RdmaCreditTimeoutException.class, last.cause(), "the failed write's cause");
            assertTrue(millis >= bound - 100, "the writes waited for the bound: " + millis + " ms");
            assertFalse(raw.queuePairInError(), "the peer's queue pair works: only the bound ended the wait");
            miser.assertClosedWith(RdmaCreditTimeoutException.class, CREDIT_TIMEOUT);
            raw.awaitDisconnected(30, TimeUnit.SECONDS);
            server.assertStreamIntact();
        }
    }

    /** A valid {@code HELLO} granting {@link #GRANTED_SLOTS} slots and no ring. */
    private static byte[] validHello() {
        return RawRdmaClient.hello(GRANTED_SLOTS);
    }

    /** A valid {@code HELLO} granting {@link #GRANTED_SLOTS} slots and no ring, with one byte changed. */
    private static byte[] hello(int index, byte value) {
        byte[] hello = validHello();
        hello[index] = value;
        return hello;
    }

    /**
     * A message of {@code type} returning {@code slots} and {@code ringBytes}, whose header says
     * {@code payloadLength} and which carries {@code payload} bytes.
     */
    private static byte[] header(int type, int slots, int ringBytes, int payloadLength, int payload) {
        ByteBuf buf = Unpooled.buffer(RdmaProtocol.HEADER_SIZE + payload);
        MessageHeader.encode(buf, type, slots, ringBytes, payloadLength);
        buf.writeZero(payload);
        return ByteBufUtil.getBytes(buf);
    }
}
