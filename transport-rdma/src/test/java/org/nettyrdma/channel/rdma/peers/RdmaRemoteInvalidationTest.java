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

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaProtocolException;
import org.nettyrdma.channel.rdma.peers.HostilePeerServer.RawChild;
import org.nettyrdma.channel.rdma.protocol.HelloMessage;
import org.nettyrdma.channel.rdma.protocol.MessageHeader;
import org.nettyrdma.channel.rdma.protocol.RdmaProtocol;
import org.nettyrdma.channel.rdma.verbs.RawRdmaClient.Completion;
import org.nettyrdma.channel.rdma.verbs.RawRdmaClient;
import org.nettyrdma.testkit.RdmaTransportFixture;
import org.nettyrdma.testkit.TestSeed;

/**
 * A peer that sends Send with Invalidate (docs/rxe-remote-invalidation.md), a verb the protocol never
 * uses, harms neither the kernel nor another connection. On rxe a remote invalidation is checked
 * against neither the queue pair nor the protection domain, and a memory window invalidated twice
 * panics the kernel; so on rxe a server offers no ring, opens none when asked and holds no window
 * (docs/security.md), and a remote invalidation can only name a memory region, which rxe refuses to
 * invalidate remotely.
 *
 * <p>A raw verbs client connects to an {@code RdmaServerSocketChannel} and, after the {@code HELLO}s,
 * sends a {@code CREDIT} as a Send with Invalidate naming a key: key 0, which a ring's key field
 * reads where none is announced, the same key again on a second connection, keys guessed around its own memory region's index (where
 * the server's regions sit), and the keys of another raw client's region. Each time, the offender's
 * child must close with an {@link RdmaProtocolException} that names the verb, the other raw client
 * must still send with its key, and the well-behaved stream beside them must finish intact
 * ({@link HostilePeerServer}). That the guest kernel survived is shown by every test that runs after.
 */
class RdmaRemoteInvalidationTest {

    /** What the offender's child must say: the exception names the verb. */
    static final String SEND_WITH_INVALIDATE = "Send with Invalidate";
    /** The raw clients grant the server fewer slots than they posted, and no ring. */
    private static final int GRANTED_SLOTS = RawRdmaClient.RECEIVES - 2;
    /** Keys guessed around the offender's own region: this many indices on each side of its own. */
    private static final int NEIGHBOURS = 3;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    @Test
    void theServerOnRxeOffersNoRingAndOpensNoneWhenAsked(TestInfo test) throws Exception {
        try (HostilePeerServer server = HostilePeerServer.start(rdma, TestSeed.of(test), bootstrap -> { });
             RawRdmaClient raw = RawRdmaClient.connect(server.address())) {
            RawChild child = server.nextRawChild();
            HelloMessage hello = raw.exchangeHellos(RawRdmaClient.hello(GRANTED_SLOTS));
            assertEquals(0, hello.maxRingSize(), "the largest ring the server offers on rxe: " + hello);
            // Asked all the same, it opens none (no window, no key): the request breaks the protocol.
            raw.send(RawRdmaClient.ringRequest(0));
            child.assertClosedWith(RdmaProtocolException.class, "RING_REQUEST, but this side's HELLO offered no ring");
            server.assertStreamIntact();
        }
    }

    @Test
    void keyZeroOnceAndTwiceClosesOnlyTheOffender(TestInfo test) throws Exception {
        try (HostilePeerServer server = HostilePeerServer.start(rdma, TestSeed.of(test), bootstrap -> { })) {
            for (int attempt = 0; attempt < 2; attempt++) {
                try (RawRdmaClient raw = RawRdmaClient.connect(server.address())) {
                    RawChild child = server.nextRawChild();
                    raw.exchangeHellos(RawRdmaClient.hello(GRANTED_SLOTS));
                    // No key is announced on rxe; 0 is what a ring's key bytes would read.
                    invalidate(child, raw, 0);
                }
            }
            server.assertStreamIntact();
        }
    }

    @Test
    void guessedAndStolenKeysCloseOnlyTheOffender(TestInfo test) throws Exception {
        long seed = TestSeed.of(test);
        Random random = new Random(seed);
        try (HostilePeerServer server = HostilePeerServer.start(rdma, seed, bootstrap -> { });
             RawRdmaClient victim = RawRdmaClient.connect(server.address())) {
            RawChild victimChild = server.nextRawChild();
            victim.exchangeHellos(RawRdmaClient.hello(GRANTED_SLOTS));
            victimChild.startReading();
            // The victim's keys, read in this process, as a peer on another connection would have to guess them.
            List<Integer> keys = new ArrayList<>(List.of(victim.lkey(), victim.rkey()));
            int attempts = keys.size() + 2 * NEIGHBOURS;
            for (int attempt = 0; attempt < attempts; attempt++) {
                try (RawRdmaClient raw = RawRdmaClient.connect(server.address())) {
                    RawChild child = server.nextRawChild();
                    raw.exchangeHellos(RawRdmaClient.hello(GRANTED_SLOTS));
                    int key;
                    if (attempt < 2) {
                        key = keys.get(attempt);
                    } else {
                        // An index next to the offender's own region's, where the server's regions sit,
                        // with a key byte of chance: rxe's key is the index and 8 random bits.
                        int step = attempt - 2;
                        int offset = step < NEIGHBOURS ? -(step + 1) : step - NEIGHBOURS + 1;
                        key = (((raw.lkey() >>> 8) + offset) << 8) | random.nextInt(256);
                    }
                    invalidate(child, raw, key);
                }
                // The victim's region still works with the keys named: its Send goes out from it.
                victim.send(credit());
            }
            server.assertStreamIntact();
        }
    }

    /**
     * Sends a {@code CREDIT} as a Send with Invalidate of {@code key} and asserts that it cost only the
     * sender's connection: its child closed naming the verb, and it was disconnected. The offender's own
     * completion is only printed: rxe may acknowledge the Send before its responder fails the receive.
     */
    private static void invalidate(RawChild child, RawRdmaClient raw, int key) throws Exception {
        Completion completion = raw.sendWithInvalidate(credit(), key);
        System.out.println("Send with Invalidate of rkey 0x" + Integer.toHexString(key) + ": at the offender "
                + completion);
        HostilePeerServer.assertClosed(child, raw, RdmaProtocolException.class, SEND_WITH_INVALIDATE);
    }

    /** A {@code CREDIT} that returns nothing: valid, so only the verb that carries it is wrong. */
    private static byte[] credit() {
        ByteBuf buf = Unpooled.buffer(RdmaProtocol.HEADER_SIZE);
        MessageHeader.encode(buf, RdmaProtocol.TYPE_CREDIT, 0, 0, 0);
        return ByteBufUtil.getBytes(buf);
    }
}
