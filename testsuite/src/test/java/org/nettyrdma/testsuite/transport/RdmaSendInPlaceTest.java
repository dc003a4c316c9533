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
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaChannelMetrics;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.testkit.Await;
import org.nettyrdma.testkit.RdmaTransportFixture;
import org.nettyrdma.testkit.SendsOnly;
import org.nettyrdma.testkit.StreamReader;
import org.nettyrdma.testkit.TestStream;

/**
 * On the Sends path (no ring: rxe and siw by default, and here on every device), a buffer of the
 * channel's allocator goes out as Sends that read it where it lies, a slot at a time, with nothing
 * copied; small writes are still copied into one Send together, and buffers of other allocators are
 * copied. A buffer sent in place goes whole, the tail a slot leaves included, however short. The
 * transport holds a buffer it sends in place until the device has read it: its promise
 * completes only then, and a close in the middle lets it go all the same.
 */
@ExtendWith(SendsOnly.class)
class RdmaSendInPlaceTest {

    private static final int WRITE = 64 * 1024;
    private static final int WRITES = 8;
    private static final long SEED = 23;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);
    /** The bytes the client writes, and the server's reader that checks them: a new pair per test. */
    private final TestStream stream = new TestStream(SEED);
    private final StreamReader reader = new StreamReader(SEED);

    @Test
    void registeredBuffersAreSentInPlaceAndOthersCopied() throws Exception {
        StreamPair pair = StreamPair.connect(rdma, reader, server -> server);
        RdmaSocketChannel client = pair.client();
        RdmaChannelMetrics before = client.metrics();

        for (int i = 0; i < WRITES; i++) {
            client.write(registered(client, (long) i * WRITE));
        }
        client.writeAndFlush(Unpooled.EMPTY_BUFFER).sync();
        long total = (long) WRITES * WRITE;
        RdmaChannelMetrics sent = client.metrics();
        assertEquals(0, sent.copiedBytes() - before.copiedBytes(), () -> "bytes copied of registered buffers: " + sent);
        assertEquals(0, sent.rdmaWrites(), () -> "no ring, no RDMA Write: " + sent);
        assertEquals(total, sent.sendBytes() - before.sendBytes(), () -> "bytes sent: " + sent);
        // A slot (8 KiB by default) takes a 16-byte header and the rest of the slot from a buffer.
        int payload = client.config().getSlotSize() - 16;
        assertTrue(sent.sends() - before.sends() >= total / payload, () -> "a slot's payload per Send at most: " + sent);

        // Small writes share a Send, copied; a heap buffer is copied too.
        RdmaChannelMetrics small = client.metrics();
        long position = total;
        for (int i = 0; i < 10; i++) {
            ByteBuf buf = client.alloc().directBuffer(100);
            stream.write(buf, position, 100);
            position += 100;
            client.write(buf);
        }
        ByteBuf heap = Unpooled.buffer(WRITE);
        stream.write(heap, position, WRITE);
        position += WRITE;
        client.writeAndFlush(heap).sync();
        RdmaChannelMetrics copied = client.metrics();
        assertEquals(1000 + WRITE, copied.copiedBytes() - small.copiedBytes(), () -> "copied: " + copied);

        assertEquals(position, reader.digestAt(position).get(60, TimeUnit.SECONDS).length());
        assertEquals(position, pair.child().metrics().receivedBytes(), "bytes received");
        pair.close();
    }

    @Test
    void aBufferSentInPlaceIsHeldUntilTheDeviceReadIt() throws Exception {
        StreamPair pair = StreamPair.connect(rdma, reader, server -> server);
        RdmaSocketChannel client = pair.client();
        ByteBuf buf = registered(client, 0).retain(); // this test's reference, to look at the count after
        int held;
        try {
            client.writeAndFlush(buf).sync();
            held = buf.refCnt();
        } finally {
            buf.release();
        }
        assertEquals(1, held, "the transport let go of the buffer once its Sends completed");
        assertEquals(0, client.metrics().copiedBytes(), () -> "sent in place, its tail too: " + client.metrics());
        assertEquals(WRITE, reader.digestAt(WRITE).get(60, TimeUnit.SECONDS).length());
        pair.close();
    }

    @Test
    void aCloseWithSendsInPlaceOutstandingLetsTheirBuffersGo() throws Exception {
        StreamPair pair = StreamPair.connect(rdma, reader, server -> server);
        RdmaSocketChannel client = pair.client();
        List<ByteBuf> buffers = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            ByteBuf buf = registered(client, (long) i * WRITE);
            buffers.add(buf.retain());
            client.write(buf);
        }
        client.flush();
        client.close().sync();
        Await.until(() -> buffers.stream().allMatch(b -> b.refCnt() == 1), 30,
                () -> "buffers the transport still holds after close: "
                        + buffers.stream().filter(b -> b.refCnt() != 1).count());
        buffers.forEach(ByteBuf::release);
        pair.server().close().sync();
    }

    /** Returns a buffer of the channel's allocator (registered memory) holding the stream's bytes at {@code position}. */
    private ByteBuf registered(RdmaSocketChannel client, long position) {
        ByteBuf buf = client.alloc().directBuffer(WRITE);
        stream.write(buf, position, WRITE);
        return buf;
    }
}
