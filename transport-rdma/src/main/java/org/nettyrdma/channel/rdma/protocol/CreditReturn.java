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

import org.nettyrdma.channel.rdma.RdmaProtocolException;

/**
 * What this side owes the peer: receive slots reposted and ring bytes freed since it last told the
 * peer, and when a {@code CREDIT} message of their own is worth sending (docs/protocol.md).
 *
 * <p>Credits normally ride in the header of outgoing messages ({@link #takeSlots()},
 * {@link #takeRingBytes()}). A credit-only message costs the peer one slot, so it is sent only when it
 * returns more than it costs: at least half of the window is owed, or the peer, as far as this side
 * can tell, is down to its last slot and two or more are owed. A peer with no slot left at all can
 * send nothing, not even its {@code CLOSE}, so it gets one back as soon as one is owed. Both sides
 * following these rules and {@link SendCredits#canSendControl(boolean)}'s can neither deadlock nor
 * trade credit messages without end ({@code CreditProtocolSimulationTest} checks it).
 *
 * <p>Not thread-safe: used on the channel's event loop only.
 */
public final class CreditReturn {

    /** The peer's share of receive slots: what it was granted, grown since. */
    private int grantedSlots;
    /** The size of the ring open to the peer, whose freed bytes are owed to it; 0 if none is. */
    private int ringSize;
    private int owedSlots;
    private int owedRingBytes;
    /** The peer's slots as the peer sees them: granted, minus used, plus returned. */
    private int peerSlots;

    /**
     * Creates the book for a connection that granted the peer these slots and this ring
     * ({@code null} if it granted none); the ring's book says what the peer has written.
     */
    public CreditReturn(int grantedSlots, ReceiveRing ring) {
        this.grantedSlots = grantedSlots;
        this.ringSize = ring != null ? ring.size() : 0;
        this.peerSlots = grantedSlots;
    }

    /** Accounts for a ring of {@code size} bytes opened to the peer: its freed bytes are owed from now on. */
    public void ringOpened(int size) {
        ringSize = size;
        owedRingBytes = 0;
    }

    /**
     * Accounts for the ring closed to the peer: what it freed and was not returned yet is owed no more,
     * since the peer forgets the ring's credits with it.
     */
    public void ringClosed() {
        ringSize = 0;
        owedRingBytes = 0;
    }

    /** Returns the receive slots granted to the peer: in this side's {@code HELLO}, grown since. */
    public int grantedSlots() {
        return grantedSlots;
    }

    /** Returns the peer's slots as the peer sees them: granted, minus used, plus returned. */
    public int peerSlots() {
        return peerSlots;
    }

    /**
     * Raises what the peer was granted to {@code slots}, in this side's {@code HELLO}, which tells it
     * the total: an accepting side lets a peer that has not said {@code HELLO} use only the slot it
     * reserved for that {@code HELLO}, and grants the rest when it answers.
     */
    public void grantInHello(int slots) {
        if (slots < grantedSlots) {
            throw new IllegalArgumentException("slots: " + slots + " (expected: >= " + grantedSlots + ")");
        }
        peerSlots += slots - grantedSlots;
        grantedSlots = slots;
    }

    /** Grants the peer {@code slots} more, posted already: they are owed to it from now on. */
    public void grow(int slots) {
        grantedSlots += slots;
        owedSlots += slots;
    }

    /**
     * Accounts for a message or Write of the peer that used one of its slots.
     *
     * @throws RdmaProtocolException if the peer had no slot left: it used a receive this side had
     *         posted again but not yet credited to it
     */
    public void onPeerUsedSlot() throws RdmaProtocolException {
        if (peerSlots == 0) {
            throw new RdmaProtocolException("peer sent more messages than the " + grantedSlots
                    + " receive slots it was granted");
        }
        peerSlots--;
    }

    /** Accounts for {@code count} receive slots reposted (and posted) for the peer. */
    public void slotsReposted(int count) {
        owedSlots += count;
    }

    /** Accounts for ring bytes freed for the peer. */
    public void ringFreed(int bytes) {
        owedRingBytes += bytes;
    }

    /** Returns the slots owed to the peer. */
    public int owedSlots() {
        return owedSlots;
    }

    /** Returns the ring bytes owed to the peer. */
    int owedRingBytes() {
        return owedRingBytes;
    }

    /** Returns the owed slots for an outgoing header and counts them as returned. */
    public int takeSlots() {
        int slots = owedSlots;
        owedSlots = 0;
        peerSlots += slots;
        return slots;
    }

    /** Returns the owed ring bytes for an outgoing header and counts them as returned. */
    public int takeRingBytes() {
        int bytes = owedRingBytes;
        owedRingBytes = 0;
        return bytes;
    }

    /** Returns {@code true} if a {@code CREDIT} message should go out because nothing else will. */
    public boolean creditMessageDue() {
        if (owedSlots >= 1 && peerSlots == 0) {
            // The peer can send nothing, not even its CLOSE, until a slot comes back.
            return true;
        }
        if (owedSlots >= 2 && (owedSlots >= grantedSlots / 2 || peerSlots <= 1)) {
            return true;
        }
        if (owedRingBytes == 0) {
            return false;
        }
        // A quarter of the ring at a time: a CREDIT costs a Send here and a receive completion at the
        // peer. Less owed never keeps a Write out of the ring by itself: a Write is at most a quarter
        // of it, and with less than a quarter unreturned one fits after the peer's position or at
        // offset 0 (RingCreditTest); more unreturned means the pipeline holds it, and the peer goes on
        // in Sends (docs/decisions.md#ring-credit).
        return owedRingBytes >= ringSize / 4;
    }
}
