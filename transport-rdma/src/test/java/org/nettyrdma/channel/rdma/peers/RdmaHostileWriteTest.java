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

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.nettyrdma.channel.rdma.peers.HostilePeerServer.assertClosed;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.nettyrdma.channel.rdma.RdmaChannelOption;
import org.nettyrdma.channel.rdma.RdmaProtocolException;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.channel.rdma.peers.HostilePeerServer.RawChild;
import org.nettyrdma.channel.rdma.protocol.MessageHeader;
import org.nettyrdma.channel.rdma.protocol.RdmaProtocol;
import org.nettyrdma.channel.rdma.protocol.RingMessage;
import org.nettyrdma.channel.rdma.verbs.RawRdmaClient.Completion;
import org.nettyrdma.channel.rdma.verbs.RawRdmaClient.Target;
import org.nettyrdma.channel.rdma.verbs.RawRdmaClient;
import org.nettyrdma.channel.rdma.verbs.RawWriteMain;
import org.nettyrdma.testkit.Await;
import org.nettyrdma.testkit.ChildJvm;
import org.nettyrdma.testkit.RdmaTransportFixture;
import org.nettyrdma.testkit.RingsOnEveryDevice;
import org.nettyrdma.testkit.TestSeed;

/**
 * A peer that abuses RDMA Writes into the server's ring (docs/protocol.md, "Validation of what the
 * peer writes") costs only its own connection, and can reach no other connection's memory. A raw verbs
 * client ({@link RawRdmaClient}) connects to an {@code RdmaServerSocketChannel}, learns the server's
 * ring from its {@code HELLO}, and writes where and as often as the protocol forbids, ignoring every
 * credit. Where the server's software sees the violation (a Write with immediate), its child must
 * close with an {@link RdmaProtocolException} naming it; where the device refuses the Write (outside
 * the ring, with another connection's rkey), the writer's completion fails and the connection ends.
 * All along, a well-behaved {@code RdmaSocketChannel} streams to the same server and must complete
 * its stream unchanged ({@link HostilePeerServer}). The expected wording is listed once, in
 * {@link RdmaHostilePeerTest}.
 *
 * <p>On rxe a connection opens no ring by default (docs/security.md); the server here opens one all the
 * same ({@link RingsOnEveryDevice}), as it does on a device whose windows confine a peer, so that its
 * checks of what arrives in the ring are tested. No test here sends a Send with Invalidate.
 *
 * <p>The server's children open a ring of {@link #RING_SIZE} bytes when the raw client asks
 * ({@link RawRdmaClient#requestRing()}), {@link #SERVER_SLOTS} receive
 * slots of {@link #SERVER_SLOT_SIZE} bytes and a send buffer of {@link #SEND_BUFFER} bytes; the raw children read only when a test lets
 * them, so the ring regions a raw peer wrote stay in use until then.
 */
@ExtendWith(RingsOnEveryDevice.class)
class RdmaHostileWriteTest {

    private static final int RING_SIZE = 64 * 1024;
    private static final int SERVER_SLOTS = 16;
    /** Small slots, so that much of the well-behaved client's stream goes by Write. */
    private static final int SERVER_SLOT_SIZE = 1024;
    /** The fewest bytes a Write with immediate into the server's ring may carry. */
    private static final int SMALLEST_WRITE = RdmaProtocol.minWriteLength(SERVER_SLOT_SIZE);
    private static final int SEND_BUFFER = 64 * 1024;
    /** The raw client grants the server fewer slots than it posted, and no ring: the server only Sends. */
    private static final int GRANTED_SLOTS = RawRdmaClient.RECEIVES - 2;
    /** One-byte Writes a flood tries: one per byte of the ring, were each accepted. */
    private static final int FLOOD_WRITES = RING_SIZE;
    private static final String REM_ACCESS_ERR = "REM_ACCESS_ERR";
    private static final int THEFT_LENGTH = 4096;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    private HostilePeerServer start(long seed) throws Exception {
        return start(seed, false);
    }

    private HostilePeerServer start(long seed, boolean receiveInPlace) throws Exception {
        // The ring a raw client asked for stays open while it pauses.
        return start(seed, receiveInPlace, 0);
    }

    private HostilePeerServer start(long seed, boolean receiveInPlace, int ringIdleMillis) throws Exception {
        return HostilePeerServer.start(rdma, seed, bootstrap -> bootstrap
                .childOption(ChannelOption.SO_RCVBUF, RING_SIZE)
                .childOption(RdmaChannelOption.RING_IDLE_MILLIS, ringIdleMillis)
                .childOption(ChannelOption.SO_SNDBUF, SEND_BUFFER)
                .childOption(RdmaChannelOption.RECEIVE_SLOTS, SERVER_SLOTS)
                .childOption(RdmaChannelOption.SLOT_SIZE, SERVER_SLOT_SIZE)
                .childOption(RdmaChannelOption.RECEIVE_IN_PLACE, receiveInPlace));
    }

    /**
     * A plain RDMA Write (no completion at the server) over ring bytes the pipeline already holds. By
     * default the pipeline holds a copy, which does not change; with {@code RECEIVE_IN_PLACE} it holds
     * the ring itself, and the peer rewrites it under the handler: the risk that option's Javadoc states.
     */
    @ParameterizedTest(name = "received in place: {0}")
    @ValueSource(booleans = {false, true})
    void aWriteOverBytesThePipelineHolds(boolean inPlace, TestInfo test) throws Exception {
        byte[] first = new byte[THEFT_LENGTH];
        Arrays.fill(first, (byte) 'a');
        byte[] second = new byte[THEFT_LENGTH];
        Arrays.fill(second, (byte) 'b');
        try (HostilePeerServer server = start(TestSeed.of(test), inPlace);
             RawRdmaClient raw = RawRdmaClient.connect(server.address())) {
            RawChild child = server.nextRawChild();
            HeldBuffers held = new HeldBuffers();
            child.channel.pipeline().addFirst(held);
            raw.exchangeHellos(RawRdmaClient.hello(GRANTED_SLOTS));
            raw.requestRing();
            Completion write = raw.writeWithImmediate(raw.ring(0), first, 0);
            assertTrue(write.succeeded(), () -> "the Write with immediate: " + write);
            child.startReading();
            assertArrayEquals(first, child.awaitBytes(THEFT_LENGTH), "what the pipeline read");

            Completion rewrite = raw.write(raw.ring(0), second);
            print("a plain Write over bytes the pipeline holds, in place: " + inPlace, raw, rewrite);
            assertTrue(rewrite.succeeded(), () -> "the window still covers the ring: " + rewrite);
            // The Write completed at the writer: its bytes are in the server's memory by now.
            assertArrayEquals(inPlace ? second : first, held.bytes(), inPlace
                    ? "in place, the peer rewrote what the pipeline holds" : "the pipeline's copy is unchanged");
            held.release();
            raw.close();
            child.assertClosedWithoutException();
            server.assertStreamIntact();
        }
    }

    /** Keeps what it reads, retained, before passing it on: the bytes a handler still holds. */
    private static final class HeldBuffers extends ChannelInboundHandlerAdapter {
        private final List<ByteBuf> buffers = new CopyOnWriteArrayList<>();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            buffers.add(((ByteBuf) msg).retain());
            ctx.fireChannelRead(msg);
        }

        byte[] bytes() {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (ByteBuf buf : buffers) {
                out.writeBytes(ByteBufUtil.getBytes(buf));
            }
            return out.toByteArray();
        }

        void release() {
            buffers.forEach(ByteBuf::release);
        }
    }

    /**
     * A Write with immediate before the peer's {@code HELLO}. The peer has not been told where it may
     * write, so the Write carries no bytes: one of no bytes touches no memory, rxe checks no rkey for it
     * and lets it through with rkey 0, so only the server's software can refuse it.
     */
    @Test
    void aWriteWithImmediateBeforeTheHello(TestInfo test) throws Exception {
        try (HostilePeerServer server = start(TestSeed.of(test));
             RawRdmaClient raw = RawRdmaClient.connect(server.address())) {
            RawChild child = server.nextRawChild();
            Completion write = raw.writeWithImmediate(Target.NOWHERE, new byte[0], 0);
            print("a Write with immediate before the HELLO", raw, write);
            // The device let it through: the server's software names it below. The server stops its
            // queue pair as it reads the violation, which may be before its device acknowledged the
            // Write: then this side's request ends unacknowledged instead of successful.
            assertTrue(write.succeeded() || write.status().equals("RETRY_EXC_ERR"),
                    () -> "the device let it through: " + write);
            assertClosed(child, raw, RdmaProtocolException.class, RdmaHostilePeerTest.BEFORE_HELLO);
            server.assertStreamIntact();
        }
    }

    static Stream<Arguments> badImmediates() {
        return Stream.of(
                // Expected at 0, where nothing was written yet: ahead of the ring's position.
                Arguments.of("ahead of the ring's position", 4096, 4096),
                // The bytes land at the ring's start, but the immediate says they cross its end.
                Arguments.of("crossing the ring's end", 0, RING_SIZE - 16),
                Arguments.of("past the ring's end", 0, RING_SIZE + 4096));
    }

    /**
     * A Write with immediate whose immediate does not name where the peer may write. The bytes land
     * inside the ring, so the device accepts the Write; the server must refuse the immediate.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("badImmediates")
    void aWriteWithImmediateNamingTheWrongRegion(String region, int offset, int immediate, TestInfo test)
            throws Exception {
        try (HostilePeerServer server = start(TestSeed.of(test));
             RawRdmaClient raw = RawRdmaClient.connect(server.address())) {
            RawChild child = server.nextRawChild();
            raw.exchangeHellos(RawRdmaClient.hello(GRANTED_SLOTS));
            raw.requestRing();
            Completion write = raw.writeWithImmediate(raw.ring(offset), new byte[SMALLEST_WRITE], immediate);
            print("a Write with immediate " + region, raw, write);
            assertTrue(write.succeeded(), () -> "the device let it through: " + write);
            assertClosed(child, raw, RdmaProtocolException.class, RdmaHostilePeerTest.WRITE_OFFSET);
            server.assertStreamIntact();
        }
    }

    /**
     * Writes with immediate of a quarter of the ring each, at the right places, while the child holds
     * every region it received: the fifth has no ring credit left.
     */
    @Test
    void writesPastTheRingCredit(TestInfo test) throws Exception {
        try (HostilePeerServer server = start(TestSeed.of(test));
             RawRdmaClient raw = RawRdmaClient.connect(server.address())) {
            RawChild child = server.nextRawChild();
            raw.exchangeHellos(RawRdmaClient.hello(GRANTED_SLOTS));
            raw.requestRing();
            int quarter = RING_SIZE / 4;
            StringBuilder statuses = new StringBuilder();
            for (int i = 0; i < 5; i++) {
                int offset = i * quarter % RING_SIZE;
                Completion write = raw.writeWithImmediate(raw.ring(offset), new byte[quarter], offset);
                statuses.append(write.status()).append(' ');
                if (!write.succeeded()) {
                    break;
                }
            }
            print("five quarters of the ring", raw, statuses);
            assertClosed(child, raw, RdmaProtocolException.class, RdmaHostilePeerTest.RING_BYTES);
            server.assertStreamIntact();
        }
    }

    static Stream<Arguments> smallWrites() {
        return Stream.of(
                Arguments.of("one byte short of the smallest", false, 1),
                Arguments.of("a flood of one byte each, the child not reading", false, FLOOD_WRITES),
                Arguments.of("a flood of one byte each, the child reading", true, FLOOD_WRITES));
    }

    /**
     * Writes with immediate, each where the ring's position is, of fewer bytes than the smallest Write
     * the protocol allows: what a receive slot takes goes by Send. Accepted, each would cost the
     * server a ring region and a record in the child's inbound queue for a byte or so, about as many
     * as the ring has bytes; the first is refused, and the connection ends. A flood goes on posting
     * until the first completion fails.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("smallWrites")
    void writesASlotWouldTakeAreRefused(String how, boolean reading, int count, TestInfo test) throws Exception {
        try (HostilePeerServer server = start(TestSeed.of(test));
             RawRdmaClient raw = RawRdmaClient.connect(server.address())) {
            RawChild child = server.nextRawChild();
            raw.exchangeHellos(RawRdmaClient.hello(GRANTED_SLOTS));
            raw.requestRing();
            if (reading) {
                child.startReading();
            }
            long start = System.nanoTime();
            Object outcome = count == 1 ? raw.writeWithImmediate(raw.ring(0), new byte[SMALLEST_WRITE - 1], 0)
                    : count(raw.flood(0, count));
            print(how + " in " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms", raw, outcome);
            assertClosed(child, raw, RdmaProtocolException.class, RdmaHostilePeerTest.SMALL_WRITE);
            server.assertStreamIntact();
        }
    }

    /**
     * A {@code HELLO} announcing receive slots of 1 MiB to a server whose send buffer is
     * {@link #SEND_BUFFER}: a Send as large as the slot could never be staged. The server must still
     * send, in Sends no larger than it can stage, so the raw client posts receives of that size (it
     * announced more than it posted: a peer may, as long as nothing larger arrives) and must receive
     * what the child writes in whole {@code DATA} messages.
     */
    @Test
    void aSlotLargerThanTheSendBuffer(TestInfo test) throws Exception {
        long seed = TestSeed.of(test);
        int receives = 8;
        try (HostilePeerServer server = start(seed);
             RawRdmaClient raw = RawRdmaClient.connect(server.address(), SEND_BUFFER, receives)) {
            RawChild child = server.nextRawChild();
            raw.exchangeHellos(RawRdmaClient.hello(receives, RdmaProtocol.MAX_SLOT_SIZE));
            Await.until(child.channel::isActive, 10, () -> "the child is up once both HELLOs are out");
            byte[] data = pattern(seed, 16 * 1024);
            ChannelFuture written = child.channel.writeAndFlush(Unpooled.wrappedBuffer(data));
            byte[] received = receiveData(raw, data.length);
            print("a slot of 1 MiB", raw, received.length + " bytes received");
            assertArrayEquals(data, received, "the child's bytes, as the raw client received them");
            assertTrue(written.await(30, TimeUnit.SECONDS) && written.isSuccess(), () -> "the write: " + written);
            assertTrue(child.channel.isActive(), "the connection is still up");
            assertEquals(List.of(), child.errors.exceptions(), "exceptions of the child");
            server.assertStreamIntact();
        }
    }

    static Stream<Arguments> outsideTheRing() {
        return Stream.of(
                Arguments.of("below its start", -4096, false),
                Arguments.of("across its end", RING_SIZE - 32, false),
                Arguments.of("below its start, with immediate", -4096, true),
                Arguments.of("across its end, with immediate", RING_SIZE - 32, true));
    }

    /**
     * A Write with the ring's rkey to memory outside the ring: the registration bounds it, so the
     * server's device refuses it, the writer's completion says so and both queue pairs fail. What the
     * server learns depends on the Write, as rxe implements the responder's access error: a Write with
     * immediate had taken a receive, which completes with the error status, and the child must close
     * with an {@code IOException} naming it; a Write without immediate takes none, and the error state
     * flushes no receive of the loop's shared queue, so the server learns of its queue pair's end only
     * when it next sends (or the peer disconnects): that send is flushed, which looks like a
     * disconnect, and the child closes without an exception.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("outsideTheRing")
    void aWriteOutsideTheRing(String where, int offset, boolean withImmediate, TestInfo test) throws Exception {
        try (HostilePeerServer server = start(TestSeed.of(test));
             RawRdmaClient raw = RawRdmaClient.connect(server.address())) {
            RawChild child = server.nextRawChild();
            raw.exchangeHellos(RawRdmaClient.hello(GRANTED_SLOTS));
            raw.requestRing();
            Completion write = withImmediate ? raw.writeWithImmediate(raw.ring(offset), new byte[64], offset)
                    : raw.write(raw.ring(offset), new byte[64]);
            print("a Write " + where, raw, write);
            assertEquals(REM_ACCESS_ERR, write.status(), "the Write's completion");
            if (withImmediate) {
                child.assertClosedWith(IOException.class, RdmaHostilePeerTest.REMOTE_ACCESS_ERROR);
            } else {
                sendFrom(child);
                child.assertClosedWithoutException();
            }
            raw.awaitDisconnected(30, TimeUnit.SECONDS);
            server.assertStreamIntact();
        }
    }

    /**
     * A ring goes when the peer stopped writing into it: the server closes it ({@code RING} of size 0),
     * the peer releases it ({@code RING_RELEASED}), and the window's key is dead before the memory is
     * deregistered. A Write with the old key after that is refused by the device, and the connection
     * ends.
     */
    @Test
    void aWriteIntoARingAfterItsReleaseIsRefused(TestInfo test) throws Exception {
        byte[] written = new byte[THEFT_LENGTH];
        Arrays.fill(written, (byte) 'r');
        try (HostilePeerServer server = start(TestSeed.of(test), false, 1000);
             RawRdmaClient raw = RawRdmaClient.connect(server.address())) {
            RawChild child = server.nextRawChild();
            raw.exchangeHellos(RawRdmaClient.hello(GRANTED_SLOTS));
            RingMessage ring = raw.requestRing();
            Target old = raw.ring(0);
            Completion write = raw.writeWithImmediate(old, written, 0);
            assertTrue(write.succeeded(), () -> "the Write into the open ring: " + write);
            child.startReading();
            assertArrayEquals(written, child.awaitBytes(THEFT_LENGTH), "what the pipeline read");
            // No Write for a second or two: the server closes the ring.
            RingMessage closed = raw.awaitRing();
            assertEquals(ring.generation(), closed.generation(), "the ring the server closed");
            assertEquals(0, closed.size(), "closed: " + closed.size());
            raw.send(RawRdmaClient.ringReleased(ring.generation()));
            // The release comes after this client's Writes on its queue pair; the server frees the window
            // when it takes it. A Write posted before it could still land.
            RdmaSocketChannel channel = (RdmaSocketChannel) child.channel;
            Await.until(() -> channel.metrics().ringsClosed() == 1, 10,
                    () -> "the server took the release: " + channel.metrics());
            Completion late = raw.writeWithImmediate(old, new byte[SMALLEST_WRITE], THEFT_LENGTH);
            print("a Write with immediate into the released ring", raw, late);
            assertEquals(REM_ACCESS_ERR, late.status(), "the late Write's completion");
            child.assertClosedWith(IOException.class, RdmaHostilePeerTest.REMOTE_ACCESS_ERROR);
            server.assertStreamIntact();
        }
    }

    static Stream<Arguments> ringMessagesOutOfTurn() {
        return Stream.of(
                Arguments.of("a RING_REQUEST naming a ring never opened", RawRdmaClient.ringRequest(5),
                        "RING_REQUEST naming ring 5"),
                Arguments.of("a RING_RELEASED of a ring never closed", RawRdmaClient.ringReleased(1),
                        "RING_RELEASED naming ring 1 (expected: none"));
    }

    /** Ring messages a peer sends out of turn close its connection with the reason, and no other. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("ringMessagesOutOfTurn")
    void ringMessagesOutOfTurnAreRefused(String what, byte[] message, String expected, TestInfo test)
            throws Exception {
        try (HostilePeerServer server = start(TestSeed.of(test));
             RawRdmaClient raw = RawRdmaClient.connect(server.address())) {
            RawChild child = server.nextRawChild();
            raw.exchangeHellos(RawRdmaClient.hello(GRANTED_SLOTS));
            raw.requestRing();
            raw.send(message);
            assertClosed(child, raw, RdmaProtocolException.class, expected);
            server.assertStreamIntact();
        }
    }

    /**
     * The rkey of one connection's ring is worth nothing on another: a second raw client (the thief)
     * writes, without immediate, with the rkey and address the first (the victim) got in its
     * {@code HELLO}. The thief's Write must fail at the device and end its connection, as a Write
     * outside the ring does (the thief's child closes without an exception, see
     * {@link #aWriteOutsideTheRing}); what the victim wrote must reach the server unchanged, and the
     * victim must go on.
     */
    @Test
    void aStolenRingKeyIsRefused(TestInfo test) throws Exception {
        long seed = TestSeed.of(test);
        try (HostilePeerServer server = start(seed); Victim victim = Victim.connect(server, seed)) {
            try (RawRdmaClient thief = RawRdmaClient.connect(server.address())) {
                RawChild thiefChild = server.nextRawChild();
                thief.exchangeHellos(RawRdmaClient.hello(GRANTED_SLOTS));
                Completion theft = thief.write(victim.ring(), stolenBytes());
                print("the thief's Write", thief, theft);
                victim.assertIntact(theft.status());
                assertEquals(REM_ACCESS_ERR, theft.status(), "the thief's Write");
                sendFrom(thiefChild);
                thiefChild.assertClosedWithoutException();
                thief.awaitDisconnected(30, TimeUnit.SECONDS);
            }
            victim.assertGoesOn();
            server.assertStreamIntact();
        }
    }

    /**
     * Makes a raw peer's child send, so that it learns its queue pair failed: a failed Write without
     * immediate leaves it no completion to learn it from ({@link #aWriteOutsideTheRing}).
     */
    private static void sendFrom(RawChild child) {
        child.channel.writeAndFlush(Unpooled.wrappedBuffer(new byte[64]));
    }

    /**
     * The same theft from another process ({@link RawWriteMain} in a {@link ChildJvm}): a protection
     * domain of its own does not make a stolen rkey any better.
     */
    @Test
    void aRingKeyStolenByAnotherProcessIsRefused(TestInfo test) throws Exception {
        long seed = TestSeed.of(test);
        try (HostilePeerServer server = start(seed); Victim victim = Victim.connect(server, seed)) {
            Target target = victim.ring();
            String status;
            try (ChildJvm thief = ChildJvm.start(RawWriteMain.class, server.address().getHostString(),
                    Integer.toString(server.address().getPort()), Long.toString(target.address()),
                    Integer.toString(target.rkey()), Integer.toString(THEFT_LENGTH))) {
                // Under emulation a JVM takes seconds to start.
                status = thief.awaitLine(RawWriteMain.COMPLETION_LINE, 120, TimeUnit.SECONDS);
                assertEquals(0, thief.awaitExit(60, TimeUnit.SECONDS), "the thief's exit status");
            }
            RawChild thiefChild = server.nextRawChild();
            System.out.println("the thief process's Write: " + status);
            victim.assertIntact(status);
            assertEquals(REM_ACCESS_ERR, status, "the thief's Write");
            thiefChild.assertClosedWithoutException();
            victim.assertGoesOn();
            server.assertStreamIntact();
        }
    }

    /**
     * The victim of a theft: a raw client that exchanged {@code HELLO}s, asked for a ring and wrote
     * {@code written} at its start, which its child holds unread until {@link #assertIntact} reads it.
     */
    private record Victim(RawRdmaClient client, RawChild child, byte[] written, long seed) implements AutoCloseable {

        static Victim connect(HostilePeerServer server, long seed) throws Exception {
            RawRdmaClient client = RawRdmaClient.connect(server.address());
            try {
                RawChild child = server.nextRawChild();
                client.exchangeHellos(RawRdmaClient.hello(GRANTED_SLOTS));
                client.requestRing();
                byte[] written = pattern(seed, THEFT_LENGTH);
                Completion write = client.writeWithImmediate(client.ring(0), written, 0);
                assertTrue(write.succeeded(), () -> "the victim's Write: " + write);
                return new Victim(client, child, written, seed);
            } catch (Exception | AssertionError e) {
                client.close();
                throw e;
            }
        }

        /** The victim's ring, as the server's {@code RING} told it: what a thief writes to. */
        Target ring() {
            return client.ring(0);
        }

        /** Lets the child read, and asserts that it reads what the victim wrote. */
        void assertIntact(String theft) throws Exception {
            child.startReading();
            byte[] read = child.awaitBytes(written.length);
            System.out.println("after a theft that completed " + theft + ", the victim's bytes are "
                    + (Arrays.equals(written, read) ? "intact" : "changed"));
            assertArrayEquals(written, read, "the victim's bytes, as the server read them");
        }

        /** The victim writes again, behind its first Write, and the server reads it; nothing failed. */
        void assertGoesOn() throws Exception {
            byte[] next = pattern(seed + 1, THEFT_LENGTH);
            Completion write = client.writeWithImmediate(client.ring(THEFT_LENGTH), next, THEFT_LENGTH);
            assertTrue(write.succeeded(), () -> "the victim's second Write: " + write);
            byte[] read = child.awaitBytes(2 * THEFT_LENGTH);
            assertArrayEquals(next, Arrays.copyOfRange(read, THEFT_LENGTH, read.length), "the victim's second Write");
            assertTrue(child.channel.isActive(), "the victim's connection is still up");
            assertEquals(List.of(), child.errors.exceptions(), "exceptions of the victim's child");
        }

        @Override
        public void close() throws Exception {
            client.close();
        }
    }

    private static byte[] stolenBytes() {
        byte[] bytes = new byte[THEFT_LENGTH];
        Arrays.fill(bytes, RawWriteMain.FILL);
        return bytes;
    }

    private static byte[] pattern(long seed, int length) {
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    /** Receives {@code DATA} messages until {@code length} payload bytes came; each must be whole. */
    private static byte[] receiveData(RawRdmaClient raw, int length) throws Exception {
        ByteArrayOutputStream payload = new ByteArrayOutputStream();
        MessageHeader header = new MessageHeader();
        while (payload.size() < length) {
            byte[] message = raw.awaitMessage();
            // Checks the header, and that its payload length is the message's.
            header.decode(Unpooled.wrappedBuffer(message), 0, message.length);
            if (header.type() == RdmaProtocol.TYPE_DATA) {
                payload.write(message, RdmaProtocol.HEADER_SIZE, header.payloadLength());
            } else {
                assertEquals(RdmaProtocol.TYPE_CREDIT, header.type(), "a message before the data");
            }
        }
        return payload.toByteArray();
    }

    /** Counts completions by status, in the order of the statuses' names. */
    private static Map<String, Integer> count(List<Completion> completions) {
        Map<String, Integer> counts = new TreeMap<>();
        for (Completion completion : completions) {
            counts.merge(completion.status(), 1, Integer::sum);
        }
        return counts;
    }

    /** Prints what the raw client saw, so that a failed run says what happened at the device. */
    private static void print(String what, RawRdmaClient raw, Object writes) throws Exception {
        System.out.println(what + ": the raw client's work completions " + writes + ", its queue pair "
                + (raw.queuePairInError() ? "in the error state" : "not in error") + ", "
                + raw.flushedReceives() + " receives flushed");
    }
}
