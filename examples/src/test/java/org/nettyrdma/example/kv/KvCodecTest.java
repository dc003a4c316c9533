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
package org.nettyrdma.example.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.concurrent.atomic.LongAdder;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.CorruptedFrameException;
import org.junit.jupiter.api.Test;
import org.nettyrdma.channel.rdma.RemoteAccess;
import org.nettyrdma.channel.rdma.RemoteRegion;

class KvCodecTest {

    /** Writes {@code message} through one pipeline and reads what its bytes become through another. */
    private static KvMessage roundTrip(KvMessage message) {
        EmbeddedChannel sender = new EmbeddedChannel();
        KvCodec.addTo(sender.pipeline());
        EmbeddedChannel receiver = new EmbeddedChannel();
        KvCodec.addTo(receiver.pipeline());
        assertTrue(sender.writeOutbound(message));
        for (ByteBuf bytes; (bytes = sender.readOutbound()) != null; ) {
            // A byte at a time: the framing, not the transport, finds where a message ends.
            while (bytes.isReadable()) {
                receiver.writeInbound(bytes.readRetainedSlice(1));
            }
            bytes.release();
        }
        KvMessage received = receiver.readInbound();
        assertNull(receiver.readInbound(), "one message");
        sender.finishAndReleaseAll();
        receiver.finishAndReleaseAll();
        return received;
    }

    @Test
    void aHelloCarriesTheDescriptorAndTheLayout() {
        RemoteRegion table = new RemoteRegion(0x7f00_1234_5000L, 104_000, 0x1234, EnumSet.of(RemoteAccess.READ));
        KvMessage.Hello hello = new KvMessage.Hello(table, new SlotLayout(100, 1024));
        assertEquals(hello, roundTrip(hello));
    }

    @Test
    void aPutCarriesTheSlotAndTheValue() {
        byte[] value = {1, 2, 3, 4, 5};
        KvMessage.Put put = (KvMessage.Put) roundTrip(new KvMessage.Put(7, value));
        assertEquals(7, put.slot());
        assertArrayEquals(value, put.value());
        assertArrayEquals(new byte[0], ((KvMessage.Put) roundTrip(new KvMessage.Put(0, new byte[0]))).value());
    }

    @Test
    void aResultCarriesTheStatus() {
        for (KvMessage.Status status : KvMessage.Status.values()) {
            assertEquals(new KvMessage.Result(status), roundTrip(new KvMessage.Result(status)));
        }
    }

    @Test
    void framesOfNoMessageAreRefused() {
        assertCorrupted(9);
        assertCorrupted(KvCodec.RESULT, 3);
        assertCorrupted(KvCodec.RESULT, 0, 0);
        assertCorrupted(KvCodec.PUT, 0, 0);
        assertCorrupted(KvCodec.HELLO, 0, 0, 0, 0);
    }

    private static void assertCorrupted(int... bytes) {
        ByteBuf frame = Unpooled.buffer();
        for (int b : bytes) {
            frame.writeByte(b);
        }
        assertThrows(CorruptedFrameException.class, () -> KvCodec.decode(frame));
        frame.release();
    }

    @Test
    void theServersHandlerWritesTheSlotAnswersAndCountsEveryPut() {
        SlotTable table = new SlotTable(new SlotLayout(2, 4));
        LongAdder handled = new LongAdder();
        EmbeddedChannel channel = new EmbeddedChannel(new KvServer.RequestHandler(table, handled));
        channel.writeInbound(new KvMessage.Put(1, new byte[] {4, 5}));
        channel.writeInbound(new KvMessage.Put(2, new byte[] {6}));
        channel.writeInbound(new KvMessage.Put(0, new byte[5]));
        assertEquals(new KvMessage.Result(KvMessage.Status.OK), channel.readOutbound());
        assertEquals(new KvMessage.Result(KvMessage.Status.NO_SUCH_SLOT), channel.readOutbound());
        assertEquals(new KvMessage.Result(KvMessage.Status.TOO_LONG), channel.readOutbound());
        assertArrayEquals(new byte[] {4, 5}, table.value(1));
        assertEquals(0, table.version(0), "a refused PUT writes nothing");
        assertEquals(3, handled.sum());
        channel.finishAndReleaseAll();
        table.release();
    }
}
