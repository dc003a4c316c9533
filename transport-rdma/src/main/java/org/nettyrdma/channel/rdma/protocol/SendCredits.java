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
 * What this side may still send: the peer's receive slots it holds, and the free space of the ring
 * the peer opened to it, if one is open, with the position the next Write goes to
 * (docs/protocol.md, "Flow control"). A ring the peer opens starts empty, and one it closes takes its
 * unreturned bytes with it.
 *
 * <p>Data needs two slots and a credit message one: the last slot is kept so that credits can always
 * be returned. Not thread-safe: used on the channel's event loop only.
 */
public final class SendCredits {

    /** Returned by {@link #reserveRing(int)} when the ring has no room. */
    public static final long NO_ROOM = -1;

    /** The most slots the peer may let this side hold: its {@code HELLO}'s maximum share. */
    private final int maxSlots;
    private int ringSize;
    private int slots;
    private int ringFree;
    private int ringPosition;

    /**
     * Creates the credits of {@code grantedSlots} slots, at most {@code maxSlots}, with a ring of
     * {@code ringSize} bytes open (0: none).
     */
    public SendCredits(int grantedSlots, int maxSlots, int ringSize) {
        this(grantedSlots, maxSlots);
        openRing(ringSize);
    }

    /**
     * Creates the credits granted by the peer's {@code HELLO}, which may grow up to {@code maxSlots}
     * as the peer grants more; no ring is open. The caller then accounts for its own {@code HELLO},
     * which used one of these slots, with {@link #consumeSlot()}.
     */
    public SendCredits(int grantedSlots, int maxSlots) {
        this.maxSlots = maxSlots;
        this.slots = grantedSlots;
    }

    /** Takes a ring of {@code size} bytes the peer opened (0: none): all of it free, written from its start. */
    public void openRing(int size) {
        ringSize = size;
        ringFree = size;
        ringPosition = 0;
    }

    /** Forgets the ring the peer closed: no Write goes into it any more, and its unreturned bytes are gone. */
    public void closeRing() {
        openRing(0);
    }

    /** Returns the size of the ring the peer has open to this side; 0 if none. */
    public int ringSize() {
        return ringSize;
    }

    /** Returns the peer's receive slots this side holds. */
    public int slots() {
        return slots;
    }

    /** Returns the free bytes of the peer's ring. */
    int ringFree() {
        return ringFree;
    }

    /** Returns {@code true} if a data message (Send or Write with immediate) may be posted. */
    public boolean canSendData() {
        return slots >= 2;
    }

    /**
     * Returns {@code true} if a message without payload ({@code CREDIT}, {@code SHUTDOWN_OUTPUT},
     * {@code CLOSE}) may be posted. The last slot goes only to a message that returns slots to the
     * peer, or to the {@code CLOSE} after which this side needs none: a side left without slots can
     * send nothing, so the peer must hold some to give them back.
     */
    public boolean canSendControl(boolean mayTakeLastSlot) {
        return slots >= 2 || slots == 1 && mayTakeLastSlot;
    }

    /** Accounts for one posted Send or Write with immediate. */
    public void consumeSlot() {
        if (slots <= 0) {
            throw new IllegalStateException("no receive slot left at the peer");
        }
        slots--;
    }

    /**
     * Returns {@code true} if {@link #reserveRing(int)} of {@code length} bytes would succeed now; then
     * so would a reservation of fewer bytes.
     */
    public boolean canReserveRing(int length) {
        int skip = ringPosition + length > ringSize ? ringSize - ringPosition : 0;
        return length > 0 && length <= ringSize && skip + length <= ringFree;
    }

    /**
     * Reserves {@code length} bytes of the peer's ring for one Write, skipping the ring's tail if the
     * bytes do not fit before its end.
     *
     * @return the ring offset to write at, or {@link #NO_ROOM}
     */
    public long reserveRing(int length) {
        if (length <= 0 || length > ringSize) {
            throw new IllegalArgumentException("length: " + length + " (expected: 1.." + ringSize + ')');
        }
        int skip = ringPosition + length > ringSize ? ringSize - ringPosition : 0;
        if (skip + length > ringFree) {
            return NO_ROOM;
        }
        int offset = skip == 0 ? ringPosition : 0;
        ringFree -= skip + length;
        ringPosition = offset + length == ringSize ? 0 : offset + length;
        return offset;
    }

    /**
     * Takes back credits the peer returned.
     *
     * @throws RdmaProtocolException if this side would hold more slots than the peer's maximum
     *         share, or more ring bytes than it used
     */
    public void onReturned(int returnedSlots, int returnedRingBytes) throws RdmaProtocolException {
        if (returnedSlots > maxSlots - slots) {
            throw new RdmaProtocolException("peer returned " + returnedSlots + " slots, but only "
                    + (maxSlots - slots) + " of " + maxSlots + " were in use");
        }
        if (returnedRingBytes > ringSize - ringFree) {
            throw new RdmaProtocolException("peer returned " + returnedRingBytes + " ring bytes, but only "
                    + (ringSize - ringFree) + " of " + ringSize + " were in use");
        }
        slots += returnedSlots;
        ringFree += returnedRingBytes;
    }
}
