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
package org.nettyrdma.channel.rdma.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
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

    @ParameterizedTest(name = "seed {0}: {1} slots of {2} B, ring {3} B, release chance {4}")
    @CsvSource({
        "1, 3, 64, 0, 0.5",
        "2, 3, 64, 4096, 0.5",
        "3, 4, 256, 4096, 0.1",
        "4, 16, 1024, 65536, 0.3",
        "5, 64, 8192, 1048576, 0.05",
        "6, 3, 128, 8192, 0.01",
        "7, 8, 4096, 16384, 0.9",
    })
    void bothDirectionsDeliverEverythingWithoutDeadlock(long seed, int slots, int slotSize, int ringSize,
                                                        double releaseChance) throws Exception {
        Random random = new Random(seed);
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
        long messagesReceived;
        long writesReceived;

        Endpoint(String name, int slots, int slotSize, int ringSize, long toSend) {
            this.name = name;
            this.slotSize = slotSize;
            this.toSend = toSend;
            this.ring = ringSize == 0 ? null : new ReceiveRing(ringSize);
            this.owed = new CreditReturn(slots, ring);
        }

        void connect(Endpoint other) {
            peer = other;
            // Both HELLOs are already sent: each used one of the other's slots, which the other
            // reposted and owes back.
            credits = new SendCredits(other.owed.grantedSlots(), other.ring == null ? 0 : other.ring.size());
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
            if (!held.isEmpty() && random.nextDouble() < releaseChance) {
                moves.add(() -> release(random));
            }
            if (sent < toSend && credits.canSendData()) {
                moves.add(() -> sendData(random));
            } else if (owed.creditMessageDue() && credits.canSendControl()) {
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
                    default: // CREDIT
                        credits.onReturned((int) m[1], (int) m[2]);
                        owed.slotsReposted(1);
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
                    + " bytes, holds " + held.size() + ", inbound " + inbound.size() + ')';
        }
    }
}
