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

/**
 * How many slots of the shared receive queue one connection holds for its peer (its share: the
 * peer's credits, the slots its messages wait in, and the credits owed to it), and when the share
 * should grow (docs/decisions.md#shared-receive-queue).
 *
 * <p>The share grows fourfold, up to its maximum, when data arrives (a {@code DATA} Send or a Write)
 * and leaves the peer half of it or less: the peer has half its share in flight or unreturned,
 * which a peer that waits for each answer never has. A control message never grows it: every
 * connection that closes sends one, and would register memory just before its share goes back.
 * The maximum plays the part of a TCP receive buffer, which fills whether or not
 * the application reads, and a stream reaches it in two steps (4, 16, 64 slots by default), each
 * announced by a {@code CREDIT} when nothing else goes back. A share does not shrink: it goes back
 * to the queue when its connection closes.
 *
 * <p>Not thread-safe: used on the channel's event loop only.
 */
public final class SlotShare {

    private final int maximum;
    private int share;

    /** Creates a share of {@code initial} slots, which may grow up to {@code maximum}. */
    public SlotShare(int initial, int maximum) {
        if (initial < 1 || maximum < initial) {
            throw new IllegalArgumentException("share " + initial + " of at most " + maximum);
        }
        this.maximum = maximum;
        this.share = initial;
    }

    /** Returns the slots of the share now. */
    public int share() {
        return share;
    }

    /** Returns the most slots the share may grow to. */
    public int maximum() {
        return maximum;
    }

    /**
     * Decides whether the share should grow now that data of the peer arrived, leaving it
     * {@code peerSlots} credits as this side counts them.
     *
     * @return the number of slots by which the share should grow (then, if the queue grants them,
     *         call {@link #grew}), or 0
     */
    public int onArrival(int peerSlots) {
        if (peerSlots <= share / 2 && share < maximum) {
            return Math.min(3 * share, maximum - share);
        }
        return 0;
    }

    /** Accounts for {@code slots} the share grew by. */
    public void grew(int slots) {
        share += slots;
    }
}
