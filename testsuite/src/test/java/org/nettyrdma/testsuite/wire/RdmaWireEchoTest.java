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
package org.nettyrdma.testsuite.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.channels.ClosedChannelException;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Echo across the wire: one message of each size to the peer host's echo server (the examples'
 * {@code EchoServer}, another kernel and another rxe device), and the bytes that come back must be
 * the bytes sent, compared by CRC32 and byte for byte.
 */
@Order(1) // with ClassOrderer.OrderAnnotation, as scripts/two-hosts runs them; see RdmaWirePeerPowerOffTest
class RdmaWireEchoTest {

    @RegisterExtension
    final WireFixture wire = new WireFixture();

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {1, 4 << 10, 64 << 10, 1 << 20, 4 << 20})
    void echoesAcrossTheWire(int size) throws Exception {
        byte[] sent = new byte[size];
        new SplittableRandom(size).nextBytes(sent);
        Echoed echoed = new Echoed();
        Channel channel = wire.client().handler(echoed).connect(TwoHosts.peer(TwoHosts.ECHO_PORT)).sync().channel();
        // One byte there and back first, untimed: on its first connection the peer's JVM loads and
        // compiles its echo path, which under emulation takes seconds.
        CompletableFuture<byte[]> warmUp = echoed.expect(1);
        channel.writeAndFlush(channel.alloc().buffer(1).writeByte(0));
        warmUp.get(60, TimeUnit.SECONDS);

        CompletableFuture<byte[]> echo = echoed.expect(size);
        long start = System.nanoTime();
        channel.writeAndFlush(channel.alloc().buffer(size).writeBytes(sent));
        byte[] back = echo.get(60, TimeUnit.SECONDS);
        long nanos = System.nanoTime() - start;
        channel.close().sync();

        assertEquals(crc32(sent), crc32(back), "CRC32 of what was sent and of what came back");
        assertArrayEquals(sent, back, "the bytes that came back");
        // Printed, not asserted: under emulation the figure says little but that data moved.
        System.out.printf("wire: echo of %d bytes across the wire: %.1f ms, %.2f MB/s each way, crc32 %08x%n",
                size, nanos / 1e6, size * 1e3 / nanos, crc32(sent));
    }

    static long crc32(byte[] bytes) {
        CRC32 crc = new CRC32();
        crc.update(bytes);
        return crc.getValue();
    }

    /**
     * Collects an echo, which may come in pieces, until as many bytes came back as were sent. The test
     * thread calls {@link #expect} before it writes the message; the loop reads the fields after the
     * write reached it.
     */
    private static final class Echoed extends SimpleChannelInboundHandler<ByteBuf> {
        private volatile CompletableFuture<byte[]> bytes = new CompletableFuture<>();
        private volatile byte[] back = new byte[0];
        private int received;

        /** Returns the future of the next message's echo, {@code size} bytes. */
        CompletableFuture<byte[]> expect(int size) {
            received = 0;
            back = new byte[size];
            bytes = new CompletableFuture<>();
            return bytes;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
            int readable = msg.readableBytes();
            if (readable > back.length - received) {
                bytes.completeExceptionally(new IllegalStateException(
                        "more bytes came back than were sent: " + (received + readable) + " > " + back.length));
                ctx.close();
                return;
            }
            msg.readBytes(back, received, readable);
            received += readable;
            if (received == back.length) {
                bytes.complete(back);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            // Harmless once every byte came back.
            bytes.completeExceptionally(new ClosedChannelException());
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            bytes.completeExceptionally(cause);
            ctx.close();
        }
    }
}
