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
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.nettyrdma.channel.rdma.RdmaProtocolException;

/**
 * Two endpoints that follow the flow-control rules of docs/protocol.md exchange data both ways over a
 * modelled RC queue pair, with the network, the pipelines and the senders interleaved at random. The
 * run must deliver every byte in order without a protocol violation, and must never reach a state
 * where nothing can move while data is left (a deadlock). Credit messages must be bounded by what
 * they return (no endless exchange of them).
 */
class CreditProtocolSimulationTest {

    private static final int HEADER = RdmaProtocol.HEADER_SIZE;

    /** Slots, slot size, ring size (0: none) and the chance a pipeline releases what it holds at a step. */
    static Stream<Arguments> shapes() {
        return Stream.of(
                Arguments.of(3, 64, 0, 0.5),
                Arguments.of(3, 64, 4096, 0.5),
                Arguments.of(4, 256, 4096, 0.1),
                Arguments.of(16, 1024, 65536, 0.3),
                Arguments.of(64, 8192, 1048576, 0.05),
                Arguments.of(3, 128, 8192, 0.01),
                Arguments.of(8, 4096, 16384, 0.9));
    }

    @ParameterizedTest(name = "{0} slots of {1} B, ring {2} B, release chance {3}")
    @MethodSource("shapes")
    void bothDirectionsDeliverEverythingWithoutDeadlock(int slots, int slotSize, int ringSize, double releaseChance)
            throws Exception {
        Random random = new Random(Objects.hash(1, slots, slotSize, ringSize, releaseChance));
        Endpoint a = new Endpoint("A", slots, slotSize, ringSize, 3_000_000);
        Endpoint b = new Endpoint("B", slots, slotSize, ringSize, 2_000_000);
        a.connect(b);
        b.connect(a);

        long steps = 0;
        while (!(a.done() && b.done())) {
            if (++steps > 50_000_000L) {
                fail("no end after " + steps + " steps");
            }
            List<Runnable> moves = new ArrayList<>(6);
            a.addMoves(moves, random, releaseChance);
            b.addMoves(moves, random, releaseChance);
            if (moves.isEmpty()) {
                // A pipeline releases eventually; only when nothing is held either is this a deadlock.
                Endpoint holder = !a.held.isEmpty() ? a : !b.held.isEmpty() ? b : null;
                if (holder == null) {
                    fail("deadlock: " + a + " / " + b);
                }
                moves.add(() -> holder.release(random));
            }
            moves.get(random.nextInt(moves.size())).run();
        }
        assertEquals(a.toSend, b.received);
        assertEquals(b.toSend, a.received);
        for (Endpoint e : new Endpoint[] {a, b}) {
            // A credit message returns at least two slots, or ring space freed by some Write: so they
            // are bounded by what arrived, and credit messages cannot answer each other for ever.
            long bound = e.messagesReceived / 2 + e.writesReceived + 1;
            if (e.creditMessages > bound) {
                fail(e.name + " sent " + e.creditMessages + " credit messages for " + e.messagesReceived
                        + " messages received (" + e.writesReceived + " of them Writes)");
            }
        }
    }

    /**
     * A closes at a random moment, whatever credits it holds then: it stops sending data and stops
     * reading, and its {@code CLOSE} must still reach B, which goes on sending and, in half the runs,
     * stops reading at the same moment. A side whose last slot went to a {@code CREDIT} holds none
     * until the peer returns one, so the peer returns a lone slot then (docs/protocol.md, "Returning
     * credits").
     */
    @ParameterizedTest(name = "{0} slots of {1} B, ring {2} B, release chance {3}")
    @MethodSource("shapes")
    void aCloseReachesThePeerWhateverCreditsTheClosingSideHolds(int slots, int slotSize, int ringSize,
                                                               double releaseChance) {
        for (int run = 0; run < 200; run++) {
            Random random = new Random(Objects.hash(2, run, slots, slotSize, ringSize, releaseChance));
            Endpoint a = Endpoint.endless("A", slots, slotSize, ringSize);
            Endpoint b = Endpoint.endless("B", slots, slotSize, ringSize);
            a.connect(b);
            b.connect(a);
            long closeAt = 1 + random.nextInt(20_000);
            boolean pausePeer = random.nextBoolean();
            long steps = 0;
            while (!b.closeReceived) {
                if (++steps > 1_000_000L) {
                    fail("run " + run + ": the CLOSE did not arrive after " + steps + " steps: " + a + " / " + b);
                }
                if (steps == closeAt) {
                    a.closing = true;
                    // In half the runs B's pipeline reads nothing more either: the CLOSE must get
                    // through on the credits that come back without a read.
                    b.paused = pausePeer;
                }
                List<Runnable> moves = new ArrayList<>(6);
                a.addMoves(moves, random, releaseChance);
                b.addMoves(moves, random, releaseChance);
                if (moves.isEmpty()) {
                    // A pipeline releases eventually, but A's no more once it closed, nor B's once paused.
                    Endpoint holder = !a.closing && !a.held.isEmpty() ? a : !b.paused && !b.held.isEmpty() ? b : null;
                    if (holder == null) {
                        fail("run " + run + ": deadlock before the CLOSE arrived: " + a + " / " + b);
                    }
                    moves.add(() -> holder.release(random));
                }
                moves.get(random.nextInt(moves.size())).run();
            }
        }
    }

    /**
     * Both pipelines stop reading at a random moment (a proxy that paused both sides): once what is
     * in flight has arrived, nothing may move: credit messages that answer each other would.
     */
    @ParameterizedTest(name = "{0} slots of {1} B, ring {2} B, release chance {3}")
    @MethodSource("shapes")
    void creditMessagesStopWhenBothPipelinesStopReading(int slots, int slotSize, int ringSize, double releaseChance) {
        for (int run = 0; run < 100; run++) {
            Random random = new Random(Objects.hash(3, run, slots, slotSize, ringSize, releaseChance));
            Endpoint a = Endpoint.endless("A", slots, slotSize, ringSize);
            Endpoint b = Endpoint.endless("B", slots, slotSize, ringSize);
            a.connect(b);
            b.connect(a);
            long pauseAt = 1 + random.nextInt(20_000);
            boolean quiet = false;
            for (long step = 1; step <= pauseAt + 100_000 && !quiet; step++) {
                if (step == pauseAt) {
                    a.paused = true;
                    b.paused = true;
                }
                List<Runnable> moves = new ArrayList<>(6);
                a.addMoves(moves, random, releaseChance);
                b.addMoves(moves, random, releaseChance);
                if (!moves.isEmpty()) {
                    moves.get(random.nextInt(moves.size())).run();
                } else if (step >= pauseAt) {
                    quiet = true;
                } else {
                    Endpoint holder = !a.held.isEmpty() ? a : !b.held.isEmpty() ? b : null;
                    if (holder == null) {
                        fail("run " + run + ": deadlock: " + a + " / " + b);
                    }
                    holder.release(random);
                }
            }
            if (!quiet) {
                fail("run " + run + ": messages still moving 100,000 steps after both pipelines stopped reading: "
                        + a + " / " + b);
            }
        }
    }

    /** One side: its books and the model of its pipeline. */
    private static final class Endpoint {
        final String name;
        final int slotSize;
        final long toSend;
        final ReceiveRing ring;
        final CreditReturn owed;
        SendCredits credits;
        Endpoint peer;
        final ArrayDeque<long[]> inbound = new ArrayDeque<>(); // {kind, a, b, c}
        final List<long[]> held = new ArrayList<>();           // {kind, token}
        long sent;
        long received;
        long expectedStreamByte;
        int creditMessages;
        /** Closed: sends no data and reads nothing more, and its CLOSE goes out once a slot allows. */
        boolean closing;
        /** Its pipeline reads nothing more, but it goes on sending while credits allow. */
        boolean paused;
        boolean closeSent;
        boolean closeReceived;
        long messagesReceived;
        long writesReceived;

        Endpoint(String name, int slots, int slotSize, int ringSize, long toSend) {
            this.name = name;
            this.slotSize = slotSize;
            this.toSend = toSend;
            this.ring = ringSize == 0 ? null : new ReceiveRing(ringSize);
            this.owed = new CreditReturn(slots, ring);
        }

        /** An endpoint that always has more data to send. */
        static Endpoint endless(String name, int slots, int slotSize, int ringSize) {
            return new Endpoint(name, slots, slotSize, ringSize, Long.MAX_VALUE);
        }

        void connect(Endpoint other) {
            peer = other;
            // Both HELLOs are already sent: each used one of the other's slots, which the other
            // reposted and owes back.
            credits = new SendCredits(other.owed.grantedSlots(), other.owed.grantedSlots(),
                    other.ring == null ? 0 : other.ring.size());
            credits.consumeSlot();
            peerUsedSlot();
            owed.slotsReposted(1);
        }

        /** A sender that keeps to its credit never uses a slot it was not granted. */
        private void peerUsedSlot() {
            try {
                owed.onPeerUsedSlot();
            } catch (RdmaProtocolException e) {
                throw new AssertionError(name + ": " + e.getMessage(), e);
            }
        }

        boolean done() {
            return sent == toSend && received == peer.toSend && inbound.isEmpty() && held.isEmpty();
        }

        void addMoves(List<Runnable> moves, Random random, double releaseChance) {
            if (!inbound.isEmpty()) {
                moves.add(this::receive);
            }
            if (!closing && !paused && !held.isEmpty() && random.nextDouble() < releaseChance) {
                moves.add(() -> release(random));
            }
            if (closing) {
                // The CLOSE goes first: it carries what is owed, as a CREDIT would.
                if (!closeSent && credits.canSendControl(true)) {
                    moves.add(this::sendClose);
                } else if (closeSent && owed.creditMessageDue() && credits.canSendControl(owed.owedSlots() > 0)) {
                    moves.add(this::sendCredit);
                }
            } else if (sent < toSend && credits.canSendData()) {
                moves.add(() -> sendData(random));
            } else if (owed.creditMessageDue() && credits.canSendControl(owed.owedSlots() > 0)) {
                moves.add(this::sendCredit);
            }
        }

        void sendData(Random random) {
            int maxChunk = peer.ring == null ? slotSize - HEADER : Math.max(1, peer.ring.size() / 4);
            int length = (int) Math.min(toSend - sent, 1 + random.nextInt(maxChunk));
            if (peer.ring != null && length > slotSize - HEADER) {
                long offset = credits.reserveRing(length);
                if (offset != SendCredits.NO_ROOM) {
                    credits.consumeSlot();
                    peer.inbound.add(new long[] {1, offset, length, sent});
                    sent += length;
                    return;
                }
            }
            // Small, or no room in the ring: a Send into a slot.
            length = Math.min(length, slotSize - HEADER);
            credits.consumeSlot();
            peer.inbound.add(new long[] {0, owed.takeSlots(), owed.takeRingBytes(), length, sent});
            sent += length;
        }

        void sendCredit() {
            credits.consumeSlot();
            peer.inbound.add(new long[] {2, owed.takeSlots(), owed.takeRingBytes()});
            creditMessages++;
        }

        void sendClose() {
            credits.consumeSlot();
            peer.inbound.add(new long[] {3, owed.takeSlots(), owed.takeRingBytes()});
            closeSent = true;
        }

        void receive() {
            long[] m = inbound.poll();
            peerUsedSlot();
            messagesReceived++;
            try {
                switch ((int) m[0]) {
                    case 0: // DATA over Send
                        credits.onReturned((int) m[1], (int) m[2]);
                        checkStream(m[4], m[3]);
                        held.add(new long[] {0, 0});
                        break;
                    case 1: // Write with immediate: the slot is reposted at once
                        writesReceived++;
                        long token = ring.accept((int) m[1], (int) m[2]);
                        checkStream(m[3], m[2]);
                        owed.slotsReposted(1);
                        held.add(new long[] {1, token});
                        break;
                    case 2: // CREDIT
                        credits.onReturned((int) m[1], (int) m[2]);
                        owed.slotsReposted(1);
                        break;
                    default: // CLOSE: its slot comes back when the pipeline reads it
                        credits.onReturned((int) m[1], (int) m[2]);
                        closeReceived = true;
                        held.add(new long[] {0, 0});
                        break;
                }
            } catch (Exception e) {
                throw new AssertionError(name + ": " + e.getMessage(), e);
            }
        }

        private void checkStream(long streamOffset, long length) {
            assertEquals(expectedStreamByte, streamOffset, "bytes out of order");
            expectedStreamByte += length;
            received += length;
        }

        void release(Random random) {
            long[] h = held.remove(random.nextInt(held.size()));
            if (h[0] == 0) {
                owed.slotsReposted(1);
            } else {
                owed.ringFreed(ring.release(h[1]));
            }
        }

        @Override
        public String toString() {
            return name + "(sent " + sent + "/" + toSend + ", slots " + credits.slots() + ", ring free "
                    + credits.ringFree() + ", owes " + owed.owedSlots() + " slots " + owed.owedRingBytes()
                    + " bytes, holds " + held.size() + ", inbound " + inbound.size() + (closing ? ", closing" : "")
                    + (closeSent ? ", CLOSE sent" : "") + ')';
        }
    }
}
