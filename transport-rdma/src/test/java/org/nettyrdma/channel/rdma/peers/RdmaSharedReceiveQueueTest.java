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

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nettyrdma.channel.rdma.RdmaChannelMetrics;
import org.nettyrdma.channel.rdma.RdmaChannelOption;
import org.nettyrdma.channel.rdma.RdmaMemoryMetrics;
import org.nettyrdma.channel.rdma.RdmaProtocolException;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.channel.rdma.protocol.MessageHeader;
import org.nettyrdma.channel.rdma.protocol.RdmaProtocol;
import org.nettyrdma.channel.rdma.verbs.RawRdmaClient;
import org.nettyrdma.testkit.RdmaTransportFixture;
import org.nettyrdma.testkit.RnrCounters;
import org.nettyrdma.testkit.TestSeed;

/**
 * Hostile peers against the receives of an event loop (docs/security.md): each connection's own
 * receive queue by default, the loop's shared one with {@code SHARED_RECEIVE_QUEUE}. Each runs beside
 * a well-behaved checksummed stream on the same loop ({@link HostilePeerServer}, one loop for server,
 * client and children), whose devices retry no Send that meets no receive, and must cost only its own
 * connection: the stream arrives whole, and at rest the loop's queues have every receive back: none
 * held, as many posted as the open connections' reservations and the margin, no reservation left
 * behind. The device's RNR counts are printed: they are the offenders', whose Sends beyond their
 * queue's receives meet RNR; the stream shows that no other Send did.
 */
class RdmaSharedReceiveQueueTest {

    /** What the well-behaved pair may hold reserved at most: each side's largest share for the other. */
    private static final int HONEST_RESERVED = 2 * 64;
    /** The receives a connection's own queue holds at most: its largest share, 64, and no margin. */
    private static final int OWN_QUEUE_RECEIVES = 64;
    /** The slots the raw peers grant the server: it only answers their HELLO. */
    private static final int GRANTED_SLOTS = RawRdmaClient.RECEIVES - 2;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(1);

    /**
     * A peer that connects, posts four RDMA Writes with immediate of no bytes (which need no key)
     * before any {@code HELLO}, and disconnects, hundreds of times: each Write takes a receive of the
     * shared queue. The first is a violation; its slot goes back, and the queue pair is in the error
     * state before the others are looked at, whose slots go back too.
     */
    @ParameterizedTest(name = "shared receive queue: {0}")
    @ValueSource(booleans = {false, true})
    void writesBeforeTheHelloInAReconnectLoopGiveEveryReceiveBack(boolean shared, TestInfo test) throws Exception {
        int rounds = 200;
        Map<String, Long> rnrBefore = RnrCounters.read();
        try (HostilePeerServer server = HostilePeerServer.start(rdma, TestSeed.of(test), receiveQueue(shared))) {
            long started = System.nanoTime();
            for (int round = 0; round < rounds; round++) {
                try (RawRdmaClient raw = RawRdmaClient.connect(server.address())) {
                    HostilePeerServer.RawChild hostile = server.nextRawChild();
                    raw.postEmptyWritesWithImmediate(4);
                    hostile.assertClosedWith(RdmaProtocolException.class, RdmaHostilePeerTest.BEFORE_HELLO);
                }
            }
            System.out.println(rounds + " rounds of Writes before the HELLO took "
                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) + " ms");
            server.assertStreamIntact();
            server.awaitReceivesWhole(HONEST_RESERVED);
        }
        printRnr(rnrBefore);
    }

    /**
     * A peer that sends a Send with Invalidate, a verb the protocol never uses, before its
     * {@code HELLO} and, on another connection, after it: on rxe the receive fails, elsewhere it
     * completes with the invalidation done; either way the connection closes and the slot goes back.
     */
    @ParameterizedTest(name = "shared receive queue: {0}")
    @ValueSource(booleans = {false, true})
    void sendsWithInvalidateBeforeAndAfterTheHelloGiveTheirReceiveBack(boolean shared, TestInfo test)
            throws Exception {
        Map<String, Long> rnrBefore = RnrCounters.read();
        try (HostilePeerServer server = HostilePeerServer.start(rdma, TestSeed.of(test), receiveQueue(shared))) {
            for (boolean afterHello : new boolean[] {false, true}) {
                for (int round = 0; round < 5; round++) {
                    try (RawRdmaClient raw = RawRdmaClient.connect(server.address())) {
                        HostilePeerServer.RawChild hostile = server.nextRawChild();
                        if (afterHello) {
                            raw.exchangeHellos(RawRdmaClient.hello(GRANTED_SLOTS));
                        }
                        // A key of this client's own: what the server's device makes of it does not matter here.
                        raw.sendWithInvalidate(RawRdmaClient.hello(GRANTED_SLOTS), raw.rkey());
                        hostile.assertClosedWith(RdmaProtocolException.class, "Send with Invalidate");
                    }
                }
            }
            server.assertStreamIntact();
            server.awaitReceivesWhole(HONEST_RESERVED);
        }
        printRnr(rnrBefore);
    }

    /**
     * Several peers that each say a valid {@code HELLO} and then flood {@code CREDIT}s far beyond
     * their credit, all at once, each with a send queue of 128 in flight, into receive queues of their
     * own (the default). An offender's Sends take only its own queue's receives: those it was
     * credited, and those reposted but not yet credited, which the server refuses at the first and
     * then stops its queue pair (at most the queue's 64 in all after the violation); beyond them its
     * Sends meet RNR at its own queue. Its connection fails on its side or on the server's (by the
     * protocol check, or by the transport error its broken queue pair causes). The receives it took come back, and the
     * well-behaved stream, which retries no Send, arrives whole. Prints what each offender got in.
     */
    @Test
    void creditFloodersAtOnceStarveNobody(TestInfo test) throws Exception {
        int flooders = 6;
        int flood = 1000;
        Map<String, Long> rnrBefore = RnrCounters.read();
        ExecutorService threads = Executors.newFixedThreadPool(flooders);
        List<RawRdmaClient> raws = new ArrayList<>();
        try (HostilePeerServer server = HostilePeerServer.start(rdma, TestSeed.of(test), bootstrap -> { })) {
            List<HostilePeerServer.RawChild> children = connectFlooders(server, flooders, raws);
            byte[] credit = credit();
            List<Future<String>> results = new ArrayList<>();
            for (RawRdmaClient raw : raws) {
                results.add(threads.submit(() -> {
                    long started = System.nanoTime();
                    List<RawRdmaClient.Completion> completions = raw.floodSends(credit, flood);
                    long accepted = completions.stream().filter(RawRdmaClient.Completion::succeeded).count();
                    return accepted + " of " + completions.size() + " Sends accepted, the last "
                            + TimeUnit.NANOSECONDS.toMillis(raw.lastAcceptedNanos() - started) + " ms after the first post";
                }));
            }
            for (Future<String> result : results) {
                System.out.println("a flooder: " + result.get(120, TimeUnit.SECONDS));
            }
            for (HostilePeerServer.RawChild child : children) {
                child.assertClosedWith(IOException.class, "");
            }
            for (HostilePeerServer.RawChild child : children) {
                RdmaChannelMetrics metrics = ((RdmaSocketChannel) child.channel).metrics();
                System.out.println("an offender's connection: " + metrics.refusedReceives()
                        + " receives taken after its violation and given back");
                assertTrue(metrics.refusedReceives() <= OWN_QUEUE_RECEIVES, () -> "an offender took "
                        + metrics.refusedReceives() + " receives after its violation, more than the "
                        + OWN_QUEUE_RECEIVES + " its own queue holds");
            }
            server.assertStreamIntact();
            server.awaitReceivesWhole(HONEST_RESERVED);
        } finally {
            threads.shutdownNow();
            for (RawRdmaClient raw : raws) {
                raw.close();
            }
        }
        printRnr(rnrBefore);
    }

    /**
     * On the loop's shared queue (the opt-in for trusted peers), flooders sending beyond their credit
     * take receives that others' credits stand for: the device reports the queue low
     * ({@code IBV_EVENT_SRQ_LIMIT_REACHED}), the loop posts the slots it had parked, and once the
     * offenders are gone the queue holds every receive again. The well-behaved stream, on a queue of
     * its own, arrives whole.
     */
    @Test
    void aFloodOnTheSharedQueueRaisesItsLimitEventAndItIsRefilled(TestInfo test) throws Exception {
        int flooders = 3;
        int flood = 1000;
        long eventsBefore = RdmaMemoryMetrics.snapshot().sharedReceiveLimitEvents();
        ExecutorService threads = Executors.newFixedThreadPool(flooders);
        List<RawRdmaClient> raws = new ArrayList<>();
        try (HostilePeerServer server = HostilePeerServer.start(rdma, TestSeed.of(test), receiveQueue(true))) {
            List<HostilePeerServer.RawChild> children = connectFlooders(server, flooders, raws);
            byte[] credit = credit();
            List<Future<List<RawRdmaClient.Completion>>> floods = new ArrayList<>();
            for (RawRdmaClient raw : raws) {
                floods.add(threads.submit(() -> raw.floodSends(credit, flood)));
            }
            for (Future<List<RawRdmaClient.Completion>> result : floods) {
                result.get(120, TimeUnit.SECONDS);
            }
            for (HostilePeerServer.RawChild child : children) {
                child.assertClosedWith(IOException.class, "");
            }
            long events = RdmaMemoryMetrics.snapshot().sharedReceiveLimitEvents() - eventsBefore;
            System.out.println("limit events of the shared receive queue during the flood: " + events);
            assertTrue(events > 0, "the device reported the shared queue low while flooders emptied it");
            server.assertStreamIntact();
            server.awaitReceivesWhole(HONEST_RESERVED);
        } finally {
            threads.shutdownNow();
            for (RawRdmaClient raw : raws) {
                raw.close();
            }
        }
    }

    /**
     * Connects {@code flooders} raw peers to {@code server}, adding each to {@code raws}, each having
     * exchanged {@code HELLO}s, and returns the server's children for them.
     */
    private static List<HostilePeerServer.RawChild> connectFlooders(HostilePeerServer server, int flooders,
                                                                   List<RawRdmaClient> raws) throws Exception {
        List<HostilePeerServer.RawChild> children = new ArrayList<>();
        for (int i = 0; i < flooders; i++) {
            RawRdmaClient raw = RawRdmaClient.connect(server.address());
            raws.add(raw);
            children.add(server.nextRawChild());
            raw.exchangeHellos(RawRdmaClient.hello(GRANTED_SLOTS));
        }
        return children;
    }

    /**
     * Prints the device's RNR counts: an offender's Sends beyond the receives of its queue meet RNR,
     * whether the queue is its own or a shared one only raw peers use (the well-behaved child always
     * has its own); the stream, which retries none, shows that no other Send did.
     */
    private static void printRnr(Map<String, Long> before) throws Exception {
        System.out.println("RNR NAKs on the device, the offenders': " + before + " before, " + RnrCounters.read()
                + " after");
    }

    /** Gives the server's children the loop's shared receive queue, or (the default) a queue of their own. */
    private static Consumer<ServerBootstrap> receiveQueue(boolean shared) {
        return bootstrap -> bootstrap.childOption(RdmaChannelOption.SHARED_RECEIVE_QUEUE, shared);
    }

    /** A {@code CREDIT} that returns nothing: a message of the protocol, sent beyond the credit. */
    private static byte[] credit() {
        ByteBuf buf = Unpooled.buffer(RdmaProtocol.HEADER_SIZE);
        MessageHeader.encode(buf, RdmaProtocol.TYPE_CREDIT, 0, 0, 0);
        return ByteBufUtil.getBytes(buf);
    }
}
