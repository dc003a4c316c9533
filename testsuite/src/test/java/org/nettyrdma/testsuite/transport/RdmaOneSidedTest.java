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

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.ExposedRegion;
import org.nettyrdma.channel.rdma.OneSidedOperations;
import org.nettyrdma.channel.rdma.RdmaChannelOption;
import org.nettyrdma.channel.rdma.RdmaMemoryMetrics;
import org.nettyrdma.channel.rdma.RdmaRemoteAccessException;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.channel.rdma.RemoteAccess;
import org.nettyrdma.channel.rdma.RemoteRegion;
import org.nettyrdma.testkit.DeviceUnderTest;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * One-sided operations on rxe: a server exposes a table on each accepted connection, in the
 * connection's own protection domain, and sends its descriptor; the client reads, writes and updates
 * it without the server's CPU. What the device must refuse, it refuses, and the table is unchanged:
 * the descriptor used on another connection, bounds past the exposed bytes, an access not granted, a
 * revoked key.
 */
class RdmaOneSidedTest {

    static final int TABLE = 4096;
    /** The exposed table sits between guard bytes that no request may reach. */
    static final int GUARD = 256;
    private static final long TIMEOUT_SECONDS = 30;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    /**
     * The server side: exposes the same slice of its memory on each connection and sends the
     * descriptor; {@link #exposed} is the first connection's exposure.
     */
    @ChannelHandler.Sharable
    static final class Exposer extends ChannelInboundHandlerAdapter {
        final ByteBuf memory = OneSidedOperations.allocateExposable(GUARD + TABLE + GUARD);
        final CompletableFuture<ExposedRegion> exposed = new CompletableFuture<>();
        /** The first connection's channel on the server, which exposed {@link #exposed}. */
        final CompletableFuture<RdmaSocketChannel> child = new CompletableFuture<>();
        private final RemoteAccess[] access;

        Exposer(RemoteAccess... access) {
            this.access = access;
            for (int i = 0; i < memory.capacity(); i++) {
                memory.writeByte(i < GUARD || i >= GUARD + TABLE ? 0xEE : i);
            }
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            RdmaSocketChannel channel = (RdmaSocketChannel) ctx.channel();
            child.complete(channel);
            ByteBuf table = memory.retainedSlice(GUARD, TABLE);
            Future<ExposedRegion> future = channel.oneSided().expose(table, access[0], rest(access));
            table.release();
            future.addListener(f -> {
                if (!f.isSuccess()) {
                    exposed.completeExceptionally(f.cause());
                    return;
                }
                ExposedRegion region = (ExposedRegion) f.getNow();
                exposed.complete(region);
                ctx.writeAndFlush(region.descriptor().writeTo(ctx.alloc().buffer(RemoteRegion.ENCODED_LENGTH)));
            });
        }

        private static RemoteAccess[] rest(RemoteAccess[] access) {
            RemoteAccess[] rest = new RemoteAccess[access.length - 1];
            System.arraycopy(access, 1, rest, 0, rest.length);
            return rest;
        }

        byte[] snapshot() {
            return ByteBufUtil.getBytes(memory, 0, memory.capacity());
        }
    }

    /** The client side: takes the descriptor the server sends. */
    static final class DescriptorReader extends ChannelInboundHandlerAdapter {
        final CompletableFuture<RemoteRegion> descriptor = new CompletableFuture<>();
        private final ByteBuf received = Unpooled.buffer();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            received.writeBytes((ByteBuf) msg);
            ReferenceCountUtil.release(msg);
            if (received.readableBytes() >= RemoteRegion.ENCODED_LENGTH) {
                descriptor.complete(RemoteRegion.readFrom(received));
            }
        }
    }

    /** A server exposing a table with {@code access} on each connection, and a client that has the descriptor. */
    record Session(Exposer exposer, Channel server, RdmaSocketChannel client, RemoteRegion remote) {
        void close() throws InterruptedException {
            client.close().sync();
            server.close().sync();
            exposer.memory.release();
        }
    }

    private Session open(RemoteAccess... access) throws Exception {
        return open(rdma, access);
    }

    /** Opens a server of {@code rdma} exposing its table with {@code access}, and a client with the descriptor. */
    static Session open(RdmaTransportFixture rdma, RemoteAccess... access) throws Exception {
        Exposer exposer = new Exposer(access);
        Channel server = rdma.bind(rdma.server().childOption(RdmaChannelOption.EXPOSE_MEMORY, true)
                .childHandler(exposer));
        DescriptorReader reader = new DescriptorReader();
        RdmaSocketChannel client = client(rdma, server, reader);
        return new Session(exposer, server, client, reader.descriptor.get(TIMEOUT_SECONDS, TimeUnit.SECONDS));
    }

    private RdmaSocketChannel client(Channel server, DescriptorReader reader) throws InterruptedException {
        return client(rdma, server, reader);
    }

    private static RdmaSocketChannel client(RdmaTransportFixture rdma, Channel server, DescriptorReader reader)
            throws InterruptedException {
        return (RdmaSocketChannel) rdma.client().handler(reader).connect(server.localAddress()).sync().channel();
    }

    private static <T> T await(Future<T> future) throws Exception {
        assertTrue(future.await(TIMEOUT_SECONDS, TimeUnit.SECONDS), "completed in time");
        if (!future.isSuccess()) {
            throw new AssertionError("failed: " + future.cause(), future.cause());
        }
        return future.getNow();
    }

    private static Throwable failure(Future<?> future) throws InterruptedException {
        assertTrue(future.await(TIMEOUT_SECONDS, TimeUnit.SECONDS), "completed in time");
        assertFalse(future.isSuccess(), "refused");
        return future.cause();
    }

    /** Returns the 8-byte word at {@code index} of {@code memory}, in the host's byte order as atomics see it. */
    static long word(ByteBuf memory, int index) {
        return ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? memory.getLongLE(index) : memory.getLong(index);
    }

    @Test
    void aClientReadsAndWritesTheTableWithoutTheServersCpu() throws Exception {
        Session session = open(RemoteAccess.READ, RemoteAccess.WRITE);
        Exposer exposer = session.exposer();
        RdmaSocketChannel client = session.client();
        RemoteRegion remote = session.remote();
        assertEquals(TABLE, remote.length());
        assertEquals(EnumSet.of(RemoteAccess.READ, RemoteAccess.WRITE), remote.access());

        ByteBuf read = await(client.oneSided().read(remote, 0, TABLE));
        assertArrayEquals(ByteBufUtil.getBytes(exposer.memory, GUARD, TABLE), ByteBufUtil.getBytes(read));
        read.release();

        byte[] written = new byte[300];
        Arrays.fill(written, (byte) 0x5A);
        await(client.oneSided().write(remote, 1000, Unpooled.wrappedBuffer(written)));
        assertArrayEquals(written, ByteBufUtil.getBytes(exposer.memory, GUARD + 1000, written.length),
                "the Write's future completed once its bytes were in the peer's memory");

        // A read larger than one request is split; the stream still works beside it.
        ByteBuf again = await(client.oneSided().read(remote, 0, TABLE));
        assertArrayEquals(ByteBufUtil.getBytes(exposer.memory, GUARD, TABLE), ByteBufUtil.getBytes(again));
        again.release();
        assertTrue(client.isActive());
        session.close();
    }

    @Test
    void aClientUpdatesTheTableAtomically() throws Exception {
        DeviceUnderTest.assumeAtomics();
        Session session = open(RemoteAccess.READ, RemoteAccess.WRITE, RemoteAccess.ATOMIC);
        Exposer exposer = session.exposer();
        RdmaSocketChannel client = session.client();
        RemoteRegion remote = session.remote();
        assertEquals(EnumSet.allOf(RemoteAccess.class), remote.access());

        long before = word(exposer.memory, GUARD + 64);
        assertEquals(before, await(client.oneSided().fetchAndAdd(remote, 64, 5)));
        assertEquals(before + 5, word(exposer.memory, GUARD + 64));
        assertEquals(before + 5, await(client.oneSided().compareAndSwap(remote, 64, before + 5, 42)));
        assertEquals(42, word(exposer.memory, GUARD + 64));
        assertEquals(42, await(client.oneSided().compareAndSwap(remote, 64, 7, 9)), "no swap: the old value");
        assertEquals(42, word(exposer.memory, GUARD + 64));
        assertTrue(client.isActive());
        session.close();
    }

    /**
     * On a device without atomics (siw) an atomic fails at once, naming the device and what it lacks,
     * with nothing posted and the channel open; exposing memory for atomics is refused the same way.
     */
    @Test
    void anAtomicFailsAtOnceWhereTheDeviceHasNone() throws Exception {
        assumeFalse(DeviceUnderTest.verbs().atomics(), "the device has atomics");
        String device = DeviceUnderTest.capabilities().name();
        Session session = open(RemoteAccess.READ, RemoteAccess.WRITE);
        RdmaSocketChannel client = session.client();
        RemoteRegion forged = new RemoteRegion(session.remote().address(), TABLE, session.remote().rkey(),
                EnumSet.allOf(RemoteAccess.class));
        byte[] before = session.exposer().snapshot();
        for (Future<Long> atomic : List.of(client.oneSided().fetchAndAdd(forged, 0, 1),
                client.oneSided().compareAndSwap(forged, 0, 0, 1))) {
            Throwable refused = failure(atomic);
            assertInstanceOf(UnsupportedOperationException.class, refused, () -> "refused: " + refused);
            assertTrue(refused.getMessage().contains(device) && refused.getMessage().contains("atomics"),
                    refused::getMessage);
        }
        assertArrayEquals(before, session.exposer().snapshot(), "the table is unchanged");
        assertTrue(client.isActive(), "the channel stays open");

        RdmaSocketChannel child = session.exposer().child.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        ByteBuf table = OneSidedOperations.allocateExposable(64).writeZero(64);
        Throwable exposing = failure(child.oneSided().expose(table, RemoteAccess.ATOMIC));
        assertInstanceOf(UnsupportedOperationException.class, exposing, () -> "refused: " + exposing);
        assertTrue(exposing.getMessage().contains(device), exposing::getMessage);
        assertEquals(1, table.refCnt(), "the buffer is the caller's still");
        table.release();
        ByteBuf read = await(client.oneSided().read(session.remote(), 0, 64));
        read.release();
        session.close();
    }

    @Test
    void operationsInARowRegisterNoMemoryOfTheirOwn() throws Exception {
        // Where the device has atomics, they take landing memory as Reads do.
        boolean atomics = DeviceUnderTest.verbs().atomics();
        Session session = atomics ? open(RemoteAccess.READ, RemoteAccess.ATOMIC) : open(RemoteAccess.READ);
        RdmaSocketChannel client = session.client();
        RemoteRegion remote = session.remote();
        // The first of each takes the landing block the rest reuse.
        await(client.oneSided().read(remote, 0, 64)).release();
        if (atomics) {
            await(client.oneSided().fetchAndAdd(remote, 0, 1));
        }
        long before = RdmaMemoryMetrics.snapshot().registrationsMade();
        int operations = 100;
        for (int i = 0; i < operations; i++) {
            await(client.oneSided().read(remote, 0, 64)).release();
            if (atomics) {
                await(client.oneSided().fetchAndAdd(remote, 0, 1));
            } else {
                await(client.oneSided().read(remote, 64, 8)).release();
            }
        }
        long made = RdmaMemoryMetrics.snapshot().registrationsMade() - before;
        // The landing block stays a spare between operations; registering one each time would make
        // 200, each a system call that pins pages. Slack for an idle look that gave the spare back.
        assertTrue(made < 5, made + " registrations during " + 2 * operations + " one-sided operations");
        session.close();
    }

    /**
     * A buffer whose memory moves when it grows (unpooled, pooled, the transport's own) is refused:
     * the peer would keep reaching the memory it left. The exposed one cannot grow, stays where it is,
     * and the peer's Writes land in its bytes and nowhere else.
     */
    @Test
    void aBufferThatCanMoveIsRefusedAndTheExposedOneCannotGrow() throws Exception {
        Session session = open(RemoteAccess.READ, RemoteAccess.WRITE);
        Exposer exposer = session.exposer();
        RdmaSocketChannel child = exposer.child.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        ByteBuf[] movable = {
            Unpooled.directBuffer(64).writeZero(64),
            Unpooled.directBuffer(64, 64).writeZero(64),
            PooledByteBufAllocator.DEFAULT.directBuffer(64).writeZero(64),
            child.alloc().directBuffer(64).writeZero(64),
        };
        for (ByteBuf buf : movable) {
            Throwable refused = failure(child.oneSided().expose(buf, RemoteAccess.READ, RemoteAccess.WRITE));
            assertInstanceOf(IllegalArgumentException.class, refused, () -> buf + ": " + refused);
            assertTrue(refused.getMessage().contains("allocateExposable"), refused::getMessage);
            assertEquals(1, buf.refCnt(), "the buffer is the caller's still");
            buf.release();
        }

        ByteBuf memory = exposer.memory;
        long address = memory.memoryAddress();
        int capacity = memory.capacity();
        assertThrows(IllegalArgumentException.class, () -> memory.capacity(capacity + 1));
        assertThrows(IndexOutOfBoundsException.class, () -> memory.writeByte(0), "a write past it does not grow it");
        assertEquals(address, memory.memoryAddress(), "the exposed memory did not move");
        assertEquals(capacity, memory.capacity());

        byte[] expected = exposer.snapshot();
        byte[] written = new byte[TABLE];
        Arrays.fill(written, (byte) 0x3C);
        System.arraycopy(written, 0, expected, GUARD, TABLE);
        await(session.client().oneSided().write(session.remote(), 0, Unpooled.wrappedBuffer(written)));
        assertArrayEquals(expected, exposer.snapshot(), "the table was written, the guard bytes around it were not");
        ByteBuf read = await(session.client().oneSided().read(session.remote(), 0, TABLE));
        assertArrayEquals(written, ByteBufUtil.getBytes(read));
        read.release();
        session.close();
    }

    @Test
    void anotherConnectionWithTheDescriptorIsRefusedByTheDevice() throws Exception {
        Session session = open(RemoteAccess.READ, RemoteAccess.WRITE);
        Exposer exposer = session.exposer();
        RdmaSocketChannel client = session.client();
        RemoteRegion remote = session.remote();
        byte[] before = exposer.snapshot();

        RdmaSocketChannel third = client(session.server(), new DescriptorReader());
        Throwable refused = failure(third.oneSided().write(remote, 0, Unpooled.wrappedBuffer(new byte[64])));
        assertInstanceOf(RdmaRemoteAccessException.class, refused, () -> "refused: " + refused);
        assertArrayEquals(before, exposer.snapshot(), "the table is unchanged");
        third.closeFuture().await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertFalse(third.isActive(), "the device put the third connection in the error state: it closed");

        ByteBuf read = await(client.oneSided().read(remote, 0, 64));
        read.release();
        assertTrue(client.isActive(), "the connection the table was exposed on goes on");
        session.close();
    }

    @Test
    void theDeviceRefusesBytesPastTheExposedOnes() throws Exception {
        Session session = open(RemoteAccess.READ, RemoteAccess.WRITE);
        Exposer exposer = session.exposer();
        RdmaSocketChannel client = session.client();
        RemoteRegion remote = session.remote();
        byte[] before = exposer.snapshot();
        // The peer's word: a descriptor that claims the guard bytes after the table too.
        RemoteRegion larger = new RemoteRegion(remote.address(), TABLE + GUARD, remote.rkey(), remote.access());
        Throwable refused = failure(client.oneSided().write(larger, TABLE - 8, Unpooled.wrappedBuffer(new byte[16])));
        assertInstanceOf(RdmaRemoteAccessException.class, refused, () -> "refused: " + refused);
        assertArrayEquals(before, exposer.snapshot(), "neither the table nor the guard bytes changed");
        session.close();
    }

    @Test
    void theDeviceRefusesAnAccessNotGranted() throws Exception {
        Session session = open(RemoteAccess.READ);
        Exposer exposer = session.exposer();
        RdmaSocketChannel client = session.client();
        RemoteRegion remote = session.remote();
        assertEquals(EnumSet.of(RemoteAccess.READ), remote.access());
        byte[] before = exposer.snapshot();

        Throwable local = failure(client.oneSided().write(remote, 0, Unpooled.wrappedBuffer(new byte[8])));
        assertInstanceOf(IllegalArgumentException.class, local, "refused before posting: the region grants no WRITE");
        RemoteRegion forged = new RemoteRegion(remote.address(), remote.length(), remote.rkey(),
                EnumSet.allOf(RemoteAccess.class));
        // The forged descriptor gets past the local check; the device refuses what the key does not grant.
        Throwable refused = failure(DeviceUnderTest.verbs().atomics() ? client.oneSided().fetchAndAdd(forged, 0, 1)
                : client.oneSided().write(forged, 0, Unpooled.wrappedBuffer(new byte[8])));
        assertInstanceOf(RdmaRemoteAccessException.class, refused, () -> "refused: " + refused);
        assertArrayEquals(before, exposer.snapshot(), "the table is unchanged");
        session.close();
    }

    @Test
    void aRevokedKeyIsRefusedAndTheBufferReleased() throws Exception {
        Session session = open(RemoteAccess.READ, RemoteAccess.WRITE);
        Exposer exposer = session.exposer();
        RdmaSocketChannel client = session.client();
        RemoteRegion remote = session.remote();
        ExposedRegion exposed = exposer.exposed.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        ByteBuf read = await(client.oneSided().read(remote, 0, 8));
        read.release();

        int refCnt = exposer.memory.refCnt();
        await(exposed.revoke());
        assertTrue(exposed.isRevoked());
        assertEquals(refCnt - 1, exposer.memory.refCnt(), "the exposure's hold on the buffer is released");
        byte[] before = exposer.snapshot();
        Throwable refused = failure(client.oneSided().write(remote, 0, Unpooled.wrappedBuffer(new byte[8])));
        assertInstanceOf(RdmaRemoteAccessException.class, refused, () -> "refused: " + refused);
        assertArrayEquals(before, exposer.snapshot(), "the table is unchanged");
        Throwable closed = failure(client.oneSided().read(remote, 0, 8));
        assertInstanceOf(ClosedChannelException.class, closed, () -> "after the refusal the channel closed: " + closed);
        session.close();
    }

    @Test
    void aChannelInTheSharedDomainExposesNothing() throws Exception {
        Channel server = rdma.bind(rdma.server().childHandler(new ChannelInboundHandlerAdapter()));
        RdmaSocketChannel client = client(server, new DescriptorReader());
        ByteBuf table = OneSidedOperations.allocateExposable(64).writeZero(64);
        Throwable refused = failure(client.oneSided().expose(table, RemoteAccess.READ));
        assertInstanceOf(IllegalStateException.class, refused);
        assertTrue(refused.getMessage().contains("EXPOSE_MEMORY"), refused::getMessage);
        assertEquals(1, table.refCnt(), "the buffer is the caller's still");
        table.release();
        client.close().sync();
        server.close().sync();
    }
}
