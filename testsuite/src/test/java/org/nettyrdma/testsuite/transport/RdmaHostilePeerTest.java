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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.nettyrdma.channel.rdma.RdmaProtocolException;
import org.nettyrdma.channel.rdma.internal.HelloMessage;
import org.nettyrdma.channel.rdma.internal.MessageHeader;
import org.nettyrdma.channel.rdma.internal.RdmaProtocol;
import org.nettyrdma.testsuite.verbs.RawRdmaClient;

/**
 * A peer that breaks the wire protocol (docs/protocol.md) costs only its own connection. A raw verbs
 * client connects to an {@code RdmaServerSocketChannel} over RDMA CM and sends, after the server's
 * {@code HELLO}, a broken {@code HELLO} or a valid one followed by a header that returns credits it
 * was never given. The server's child channel must get an {@link RdmaProtocolException} that names
 * the violation and close, and the raw peer must see {@code DISCONNECTED}, while a well-behaved
 * {@code RdmaSocketChannel} on the same server keeps transferring and completes its stream unchanged.
 */
class RdmaHostilePeerTest {

    /** The raw client grants the server fewer slots than it posted, and no ring: the server only Sends. */
    private static final int GRANTED_SLOTS = RawRdmaClient.RECEIVES - 2;
    private static final int MAX_WRITE = 256 << 10;

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
                        List.of(hello(0, (byte) RdmaProtocol.TYPE_HELLO), credit(GRANTED_SLOTS + 1000, 0)),
                        "peer returned " + (GRANTED_SLOTS + 1000) + " slots, but only 1 of " + GRANTED_SLOTS),
                Arguments.of("ring bytes returned though no ring was used",
                        List.of(hello(0, (byte) RdmaProtocol.TYPE_HELLO), credit(0, 4096)),
                        "peer returned 4096 ring bytes, but only 0 of"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("violations")
    void aViolationClosesOnlyThatConnection(String violation, List<byte[]> messages, String expectedMessage,
                                            TestInfo test) throws Exception {
        long seed = TestSeed.of(test);
        BlockingQueue<Accepted> children = new LinkedBlockingQueue<>();
        Channel server = rdma.bind(rdma.server().childHandler(new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                Accepted child = new Accepted(ch, new StreamReader(seed), new ExceptionRecorder());
                ch.pipeline().addLast(child.reader, child.errors);
                children.add(child);
            }
        }));

        // The well-behaved connection writes until the hostile one is dealt with.
        StreamWriter writer = new StreamWriter(seed, WritePlan.untilStopped(seed, MAX_WRITE));
        ExceptionRecorder clientErrors = new ExceptionRecorder();
        Channel client = rdma.client().handler(RdmaTransportFixture.pipeline(writer, clientErrors))
                .connect(server.localAddress()).sync().channel();
        Accepted good = children.poll(10, TimeUnit.SECONDS);

        try (RawRdmaClient raw = RawRdmaClient.connect((InetSocketAddress) server.localAddress())) {
            Accepted hostile = children.poll(10, TimeUnit.SECONDS);
            for (int i = 0; i < messages.size(); i++) {
                raw.send(messages.get(i));
                if (i == 0 && messages.size() > 1) {
                    // The client speaks first: a HELLO the server accepts is answered with its own.
                    HelloMessage.decode(Unpooled.wrappedBuffer(raw.awaitMessage()), 0, RdmaProtocol.HELLO_SIZE);
                }
            }
            raw.awaitDisconnected(30, TimeUnit.SECONDS);
            assertTrue(hostile.channel.closeFuture().await(30, TimeUnit.SECONDS), "the hostile peer's channel closed");
            assertEquals(1, hostile.errors.exceptions().size(), () -> "exceptions: " + hostile.errors.exceptions());
            Throwable cause = hostile.errors.exceptions().get(0);
            assertInstanceOf(RdmaProtocolException.class, cause);
            assertTrue(cause.getMessage().contains(expectedMessage), () -> "the exception names the violation ("
                    + expectedMessage + "): " + cause.getMessage());
        }

        assertTrue(writer.queuedBytes() > 0 && client.isActive(), "the good connection was transferring");
        writer.stop();
        StreamDigest sent = writer.done().get(60, TimeUnit.SECONDS);
        assertEquals(sent, good.reader.digestAt(sent.length()).get(30, TimeUnit.SECONDS),
                "the well-behaved stream, seed " + seed);
        assertTrue(good.channel.isActive(), "the well-behaved connection is still up");
        assertFalse(good.reader.errors().isCompletedExceptionally());
        assertEquals(List.of(), clientErrors.exceptions(), "exceptions of the well-behaved client");
        assertEquals(List.of(), good.errors.exceptions(), "exceptions of the well-behaved server child");

        client.close().sync();
        server.close().sync();
    }

    /** A valid {@code HELLO} granting {@link #GRANTED_SLOTS} slots and no ring, with one byte changed. */
    private static byte[] hello(int index, byte value) {
        byte[] hello = RawRdmaClient.hello(GRANTED_SLOTS);
        hello[index] = value;
        return hello;
    }

    /** A {@code CREDIT} message returning {@code slots} and {@code ringBytes}. */
    private static byte[] credit(int slots, int ringBytes) {
        ByteBuf buf = Unpooled.buffer(RdmaProtocol.HEADER_SIZE);
        MessageHeader.encode(buf, RdmaProtocol.TYPE_CREDIT, slots, ringBytes, 0);
        return ByteBufUtil.getBytes(buf);
    }

    private record Accepted(Channel channel, StreamReader reader, ExceptionRecorder errors) {
    }
}
