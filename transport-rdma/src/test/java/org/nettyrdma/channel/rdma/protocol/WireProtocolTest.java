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
package org.nettyrdma.channel.rdma.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.nettyrdma.channel.rdma.RdmaProtocolException;

/**
 * {@code HELLO}, the message header and the ring messages: what is written reads back, and every bad
 * field is named.
 */
class WireProtocolTest {

    @Test
    void helloRoundTrips() throws Exception {
        ByteBuf buf = Unpooled.buffer();
        HelloMessage.of(64, 8192, 1 << 20).encode(buf);
        assertEquals(RdmaProtocol.HELLO_SIZE, buf.readableBytes());
        HelloMessage hello = HelloMessage.decode(buf, 0, buf.readableBytes());
        assertEquals(64, hello.slots());
        assertEquals(8192, hello.slotSize());
        assertEquals(1 << 20, hello.maxRingSize());
        assertEquals(64, hello.maxSlots(), "a share that cannot grow: the most is what is granted");
        buf.release();
    }

    @Test
    void helloCarriesTheMostSlotsTheShareMayGrowTo() throws Exception {
        ByteBuf buf = Unpooled.buffer();
        HelloMessage.of(4, 64, 8192, 0).encode(buf);
        HelloMessage hello = HelloMessage.decode(buf, 0, buf.readableBytes());
        assertEquals(4, hello.slots());
        assertEquals(64, hello.maxSlots());
        buf.release();
    }

    @Test
    void helloWithAnotherVersionNamesBothVersions() {
        ByteBuf buf = hello();
        buf.setByte(1, 9);
        RdmaProtocolException e = assertThrows(RdmaProtocolException.class, () -> HelloMessage.decode(buf, 0, 32));
        assertTrue(e.getMessage().contains("version 9")
                && e.getMessage().contains("this side " + RdmaProtocol.VERSION), e.getMessage());
        buf.release();
    }

    @Test
    void helloFieldsOutOfRangeAreRefused() {
        assertHelloRefused(4, 2, "slots: 2");
        assertHelloRefused(4, 70_000, "slots: 70000");
        assertHelloRefused(28, 3, "most slots: 3");
        assertHelloRefused(28, 70_000, "most slots: 70000");
        assertHelloRefused(8, 63, "slot size: 63");
        assertHelloRefused(8, 2 << 20, "slot size: 2097152");
        assertHelloRefused(12, 100, "largest ring: 100");
        assertHelloRefused(12, -1, "largest ring: -1");
    }

    @Test
    void aHelloThatOpensARingIsRefused() {
        assertHelloRefused(20, 0x1000, "reserved bytes 16..27");
        assertHelloRefused(24, 7, "reserved bytes 16..27");
    }

    @Test
    void shortOrMistypedHelloIsRefused() {
        ByteBuf buf = hello();
        assertThrows(RdmaProtocolException.class, () -> HelloMessage.decode(buf, 0, 31));
        buf.setByte(0, RdmaProtocol.TYPE_DATA);
        RdmaProtocolException e = assertThrows(RdmaProtocolException.class, () -> HelloMessage.decode(buf, 0, 32));
        assertTrue(e.getMessage().contains("first message is DATA"), e.getMessage());
        buf.setByte(0, RdmaProtocol.TYPE_HELLO);
        buf.setShort(2, 1);
        assertThrows(RdmaProtocolException.class, () -> HelloMessage.decode(buf, 0, 32));
        buf.release();
    }

    @Test
    void aHelloThisSideWouldRefuseCannotBeMade() {
        assertThrows(IllegalArgumentException.class, () -> HelloMessage.of(2, 8192, 0));
    }

    @Test
    void headerRoundTrips() throws Exception {
        ByteBuf buf = Unpooled.buffer();
        MessageHeader.encode(buf, RdmaProtocol.TYPE_DATA, 3, 4096, 100);
        buf.writeZero(100);
        MessageHeader header = new MessageHeader();
        header.decode(buf, 0, buf.readableBytes());
        assertEquals(RdmaProtocol.TYPE_DATA, header.type());
        assertEquals(3, header.returnedSlots());
        assertEquals(4096, header.returnedRingBytes());
        assertEquals(100, header.payloadLength());
        buf.release();
    }

    @Test
    void badHeadersAreRefusedWithTheReason() {
        assertHeaderRefused(b -> { }, 15, "too short");
        assertHeaderRefused(b -> b.setByte(0, 77), 16, "unknown message type 77");
        assertHeaderRefused(b -> b.setByte(0, RdmaProtocol.TYPE_HELLO), 16, "second HELLO");
        assertHeaderRefused(b -> b.setByte(1, 1), 16, "flags");
        assertHeaderRefused(b -> b.setInt(4, -1), 16, "returned credits");
        assertHeaderRefused(b -> b.setInt(12, 5), 16, "payload length 5 in a message of 16 bytes");
        assertHeaderRefused(b -> {
            b.setByte(0, RdmaProtocol.TYPE_CREDIT);
            b.setInt(12, 4);
        }, 20, "CREDIT with a payload");
        assertHeaderRefused(b -> {
            b.setByte(0, RdmaProtocol.TYPE_RING);
            b.setInt(12, 4);
        }, 20, "RING with a payload of 4 bytes (expected: 20)");
        assertHeaderRefused(b -> {
            b.setByte(0, RdmaProtocol.TYPE_RING_RELEASED);
            b.setInt(12, 0);
        }, 16, "RING_RELEASED with a payload of 0 bytes (expected: 4)");
    }

    @Test
    void ringMessagesRoundTrip() throws Exception {
        ByteBuf buf = Unpooled.buffer();
        MessageHeader.encode(buf, RdmaProtocol.TYPE_RING, 1, 0, RingMessage.RING_SIZE);
        RingMessage.encodeRing(buf, 3, 1 << 18, 0x7f00_1234_5000L, 0xabcd);
        MessageHeader header = new MessageHeader();
        header.decode(buf, 0, buf.readableBytes());
        assertEquals(RdmaProtocol.TYPE_RING, header.type());
        RingMessage ring = new RingMessage();
        ring.decodeRing(buf, RdmaProtocol.HEADER_SIZE);
        assertEquals(3, ring.generation());
        assertEquals(1 << 18, ring.size());
        assertEquals(0x7f00_1234_5000L, ring.address());
        assertEquals(0xabcd, ring.key());

        buf.clear();
        MessageHeader.encode(buf, RdmaProtocol.TYPE_RING_REQUEST, 0, 0, RingMessage.GENERATION_SIZE);
        RingMessage.encodeGeneration(buf, 2);
        header.decode(buf, 0, buf.readableBytes());
        assertEquals(RdmaProtocol.TYPE_RING_REQUEST, header.type());
        assertEquals(2, RingMessage.decodeGeneration(buf, RdmaProtocol.HEADER_SIZE));
        buf.release();
    }

    @Test
    void badRingFieldsAreRefusedWithTheReason() {
        assertRingRefused(0, 1 << 18, 0x1000, 1, "RING generation 0");
        assertRingRefused(1, 100, 0x1000, 1, "RING size: 100");
        assertRingRefused(1, 1 << 18, 0, 1, "RING address: 0");
        assertRingRefused(1, 0, 0x1000, 0, "RING closing generation 1 with address");
        ByteBuf buf = Unpooled.buffer().writeInt(-1);
        RdmaProtocolException e = assertThrows(RdmaProtocolException.class, () -> RingMessage.decodeGeneration(buf, 0));
        assertTrue(e.getMessage().contains("ring generation -1"), e.getMessage());
        buf.release();
    }

    private static void assertRingRefused(int generation, int size, long address, int key, String expected) {
        ByteBuf buf = Unpooled.buffer();
        RingMessage.encodeRing(buf, generation, size, address, key);
        RdmaProtocolException e = assertThrows(RdmaProtocolException.class, () -> new RingMessage().decodeRing(buf, 0));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        buf.release();
    }

    private static ByteBuf hello() {
        ByteBuf buf = Unpooled.buffer();
        HelloMessage.of(64, 8192, 1 << 20).encode(buf);
        return buf;
    }

    private static void assertHelloRefused(int offset, int value, String expected) {
        ByteBuf buf = hello();
        buf.setInt(offset, value);
        RdmaProtocolException e = assertThrows(RdmaProtocolException.class, () -> HelloMessage.decode(buf, 0, 32));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        buf.release();
    }

    private static void assertHeaderRefused(java.util.function.Consumer<ByteBuf> corrupt, int byteLength,
                                            String expected) {
        ByteBuf buf = Unpooled.buffer();
        MessageHeader.encode(buf, RdmaProtocol.TYPE_DATA, 0, 0, 0);
        buf.writeZero(16);
        corrupt.accept(buf);
        RdmaProtocolException e = assertThrows(RdmaProtocolException.class,
                () -> new MessageHeader().decode(buf, 0, byteLength));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        buf.release();
    }
}
