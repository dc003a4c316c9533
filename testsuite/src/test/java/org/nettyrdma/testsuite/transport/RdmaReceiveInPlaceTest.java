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
import java.util.function.UnaryOperator;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.FixedRecvByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nettyrdma.channel.rdma.RdmaChannelMetrics;
import org.nettyrdma.channel.rdma.RdmaChannelOption;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.testkit.Await;
import org.nettyrdma.testkit.RdmaTransportFixture;
import org.nettyrdma.testkit.SendsOnly;
import org.nettyrdma.testkit.StreamReader;
import org.nettyrdma.testkit.TestStream;

/**
 * On the Sends path, a received Send's payload goes up the pipeline in its receive slot, consecutive
 * slots of one read as one composite buffer, and the slot is posted again when the pipeline releases
 * it: a stream of registered buffers is copied at neither end. A pipeline that keeps what it reads
 * holds at most half the peer's share in place; beyond that the reader copies, so the peer goes on
 * sending. What the pipeline holds never changes while the peer sends on, and stays readable after the
 * connection closed.
 */
@ExtendWith(SendsOnly.class)
class RdmaReceiveInPlaceTest {

    private static final int WRITE = 64 * 1024;
    private static final long SEED = 29;
    /** The peer's share of slots in the holding tests: at most half of it is held in place. */
    private static final int SLOTS = 16;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);
    private final TestStream stream = new TestStream(SEED);

    @Test
    void registeredBuffersAreCopiedAtNeitherEnd() throws Exception {
        StreamReader reader = new StreamReader(SEED);
        StreamPair pair = StreamPair.connect(rdma, reader, server -> server);
        RdmaSocketChannel client = pair.client();
        int writes = 32;
        for (int i = 0; i < writes; i++) {
            client.write(registered(client, (long) i * WRITE, WRITE));
        }
        client.writeAndFlush(Unpooled.EMPTY_BUFFER).sync();
        long total = (long) writes * WRITE;
        assertEquals(total, reader.digestAt(total).get(60, TimeUnit.SECONDS).length());
        RdmaChannelMetrics received = pair.child().metrics();
        assertEquals(total, received.receivedBytes(), () -> "bytes received: " + received);
        assertEquals(0, received.receiveCopiedBytes(), () -> "bytes copied out of the slots: " + received);
        assertEquals(0, client.metrics().copiedBytes(), () -> "bytes copied into staging: " + client.metrics());
        pair.close();
    }

    @Test
    void slotsOfOneReadGoUpAsOneCompositeBuffer() throws Exception {
        Holder holder = new Holder();
        // The child reads only when told, so that both Sends wait for the same read, which takes up
        // to 64 KiB.
        PairWithHolder pair = connect(holder, server -> server.childOption(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(WRITE)));
        RdmaSocketChannel client = pair.client;
        // Two slots' worth: the share (four slots at first) lends two.
        int length = 2 * (client.config().getSlotSize() - 16);
        client.writeAndFlush(registered(client, 0, length)).sync();
        RdmaSocketChannel child = pair.child();
        Await.until(() -> child.metrics().receivedBytes() == length, 10, () -> child.metrics().toString());
        child.read();
        holder.awaitBytes(length);
        List<ByteBuf> pieces = holder.pieces();
        assertEquals(1, pieces.size(), () -> "pieces handed up: " + pieces);
        assertTrue(pieces.get(0) instanceof CompositeByteBuf, () -> "a composite of the slots: " + pieces);
        assertEquals(2, ((CompositeByteBuf) pieces.get(0)).numComponents(), () -> "its slots: " + pieces);
        holder.checkAndRelease(stream);
        assertEquals(0, pair.child().metrics().receiveCopiedBytes(), () -> "copied: " + pair.child().metrics());
        pair.close();
    }

    @Test
    void aReaderThatKeepsEverythingHoldsHalfTheShareInPlaceAndTheRestIsCopied() throws Exception {
        Holder holder = new Holder();
        PairWithHolder pair = connect(holder, server -> server);
        RdmaSocketChannel client = pair.client;
        int writes = 16;
        for (int i = 0; i < writes; i++) {
            client.write(registered(client, (long) i * WRITE, WRITE));
        }
        client.flush();
        long total = (long) writes * WRITE;
        // The peer is never stopped for good: every byte arrives although nothing was released.
        holder.awaitBytes(total);
        RdmaSocketChannel child = pair.child();
        RdmaChannelMetrics received = child.metrics();
        int payload = child.config().getSlotSize() - 16;
        long inPlaceAtMost = (long) (SLOTS / 2) * payload;
        assertTrue(received.receiveCopiedBytes() >= total - inPlaceAtMost,
                () -> "held in place beyond half the share of " + SLOTS + " slots: " + received);
        assertTrue(received.receiveCopiedBytes() < total, () -> "nothing went up in place: " + received);
        // The bytes held in their slots did not change while the peer sent on through the rest.
        holder.checkAndRelease(stream);

        // The slots come back on the child's loop, in the tasks the releases queued before this one.
        child.eventLoop().submit(() -> { }).sync();
        // The connection goes on, in place again.
        RdmaChannelMetrics before = child.metrics();
        holder.releaseAsItArrives();
        client.writeAndFlush(registered(client, total, WRITE)).sync();
        holder.awaitBytes(total + WRITE);
        Await.until(() -> child.metrics().receivedBytes() == total + WRITE, 10, () -> child.metrics().toString());
        assertEquals(before.receiveCopiedBytes(), child.metrics().receiveCopiedBytes(),
                () -> "copied after the slots came back: " + child.metrics());
        pair.close();
    }

    @ParameterizedTest(name = "SHARED_RECEIVE_QUEUE {0}")
    @ValueSource(booleans = {false, true})
    void whatThePipelineHoldsStaysReadableAfterTheClose(boolean shared) throws Exception {
        Holder holder = new Holder();
        // A queue of the connection's own goes with its queue pair; the loop's shared one stays.
        PairWithHolder pair = connect(holder, server -> server.childOption(RdmaChannelOption.SHARED_RECEIVE_QUEUE,
                shared));
        RdmaSocketChannel client = pair.client;
        client.writeAndFlush(registered(client, 0, WRITE)).sync();
        holder.awaitBytes(WRITE);
        RdmaSocketChannel child = pair.child();
        client.close().sync();
        child.closeFuture().sync();
        pair.server.close().sync();
        // The receive queue and its registrations may be gone: the memory stays until released.
        holder.checkAndRelease(stream);
    }

    /** Binds a server with {@code options} whose children hand what they read to {@code holder}, and connects a client. */
    private PairWithHolder connect(Holder holder, UnaryOperator<ServerBootstrap> options) throws InterruptedException {
        List<RdmaSocketChannel> children = new ArrayList<>();
        Channel server = rdma.bind(options.apply(rdma.server()).childOption(RdmaChannelOption.RECEIVE_SLOTS, SLOTS)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        synchronized (children) {
                            children.add((RdmaSocketChannel) ch);
                        }
                        ch.pipeline().addLast(holder);
                    }
                }));
        RdmaSocketChannel client = (RdmaSocketChannel) rdma.client().handler(new ChannelInboundHandlerAdapter())
                .connect(server.localAddress()).sync().channel();
        return new PairWithHolder(server, client, children);
    }

    /** Returns a buffer of the channel's allocator holding the stream's {@code length} bytes at {@code position}. */
    private ByteBuf registered(RdmaSocketChannel client, long position, int length) {
        ByteBuf buf = client.alloc().directBuffer(length);
        stream.write(buf, position, length);
        return buf;
    }

    private record PairWithHolder(Channel server, RdmaSocketChannel client, List<RdmaSocketChannel> children) {
        RdmaSocketChannel child() {
            synchronized (children) {
                assertEquals(1, children.size(), "children accepted");
                return children.get(0);
            }
        }

        void close() throws InterruptedException {
            client.close().sync();
            server.close().sync();
        }
    }

    /** Keeps every buffer the pipeline reads, in order, until the test checks and releases them. */
    @Sharable
    private static final class Holder extends ChannelInboundHandlerAdapter {
        private final List<ByteBuf> pieces = new ArrayList<>();
        private volatile boolean release;
        private volatile long bytes;
        /** Where the held pieces start in the stream. */
        private long position;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf buf = (ByteBuf) msg;
            bytes += buf.readableBytes();
            synchronized (pieces) {
                if (release) {
                    position += buf.readableBytes();
                    buf.release();
                } else {
                    pieces.add(buf);
                }
            }
        }

        void awaitBytes(long length) throws InterruptedException {
            Await.until(() -> bytes >= length, 60, () -> bytes + " of " + length + " bytes read");
            assertEquals(length, bytes, "bytes read");
        }

        List<ByteBuf> pieces() {
            synchronized (pieces) {
                return new ArrayList<>(pieces);
            }
        }

        void releaseAsItArrives() {
            release = true;
        }

        /** Checks each held piece against the stream, and releases it. */
        void checkAndRelease(TestStream stream) {
            synchronized (pieces) {
                for (ByteBuf piece : pieces) {
                    int length = piece.readableBytes();
                    ByteBuf expected = Unpooled.buffer(length);
                    stream.write(expected, position, length);
                    assertEquals(expected, piece, "the bytes at " + position);
                    expected.release();
                    position += length;
                    piece.release();
                }
                pieces.clear();
            }
        }
    }
}
