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
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaByteBufAllocator;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;

/**
 * Large writes of buffers from the channel's allocator travel by RDMA Write from where the pipeline
 * wrote them (the channel copies nothing), buffers of other allocators are copied once and counted,
 * an empty write completes, and the receiver gets every byte in order either way.
 */
class ZeroCopySendTest {

    private static final int WRITE = 64 * 1024;
    /**
     * Half the peer's ring (SO_RCVBUF, 1 MiB): a write that finds the ring full goes on as Sends,
     * which copy, so that a receiver holding ring regions cannot stall the sender.
     */
    private static final int WRITES = 8;
    private static final long SEED = 11;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    @Test
    void registeredBuffersAreSentWithoutACopyAndOthersWithOne() throws Exception {
        TestStream stream = new TestStream(SEED);
        StreamReader reader = new StreamReader(SEED);
        Channel server = rdma.bind(rdma.server().childHandler(RdmaTransportFixture.pipeline(reader)));
        RdmaSocketChannel client = (RdmaSocketChannel) rdma.client().handler(new ChannelInboundHandlerAdapter())
                .connect(server.localAddress()).sync().channel();
        assertSame(RdmaByteBufAllocator.DEFAULT, client.alloc(), "the channel's default allocator");

        for (int i = 0; i < WRITES; i++) {
            ByteBuf buf = client.alloc().directBuffer(WRITE);
            stream.write(buf, (long) i * WRITE, WRITE);
            client.write(buf);
        }
        client.flush();
        client.writeAndFlush(Unpooled.EMPTY_BUFFER).sync();
        assertEquals(0, client.copiedBytes(), "bytes copied of registered buffers");
        assertTrue(RdmaByteBufAllocator.registeredBytes() > 0, "allocator memory registered with the device");

        ByteBuf heap = Unpooled.buffer(WRITE);
        stream.write(heap, (long) WRITES * WRITE, WRITE);
        client.writeAndFlush(heap).sync();
        assertEquals(WRITE, client.copiedBytes(), "bytes copied of a heap buffer");

        long total = (WRITES + 1L) * WRITE;
        assertEquals(total, reader.digestAt(total).get(60, TimeUnit.SECONDS).length());
        client.close().sync();
        server.close().sync();
    }
}
