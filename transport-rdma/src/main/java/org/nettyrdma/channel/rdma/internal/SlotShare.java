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

/**
 * How many slots of the shared receive queue one connection holds for its peer (its share: the
 * peer's credits, the slots its messages wait in, and the credits owed to it), and when the share
 * should change (docs/decisions.md#shared-receive-queue).
 *
 * <ul>
 *   <li>The share grows fourfold, up to its maximum, when a message arrives and leaves the peer
 *       half of it or less: the peer has half its share in flight or unreturned, which a peer that
 *       waits for each answer never has. The maximum plays the part of a TCP receive buffer, which
 *       fills whether or not the application reads, and a stream reaches it in two steps (4, 16, 64
 *       slots by default), each announced by a {@code CREDIT} when nothing else goes back.</li>
 *   <li>It halves, down to its minimum, when over a whole share's worth of reads the peer never had
 *       more than half of it in use: the slot just read is then kept back instead of credited, one
 *       per read, until the share is down to the new size.</li>
 * </ul>
 * Not thread-safe: used on the channel's event loop only.
 */
public final class SlotShare {

    /** {@link #onRead} result: credit the slot to the peer again. */
    public static final int KEEP = 0;
    /** {@link #onRead} result: keep the slot back; the share is one smaller. */
    public static final int SHRINK = -1;

    private final int minimum;
    private final int maximum;
    private int share;
    /** Slots still to keep back before the share is down to the size decided. */
    private int toShrink;
    private int readsThisRound;
    /** The most slots the peer had in use during this round of {@link #share} reads. */
    private int mostInUse;

    /** Creates a share of {@code initial} slots, between {@code minimum} and {@code maximum}. */
    public SlotShare(int initial, int minimum, int maximum) {
        if (minimum < 1 || initial < minimum || maximum < initial) {
            throw new IllegalArgumentException("share " + initial + " of " + minimum + ".." + maximum);
        }
        this.minimum = minimum;
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
     * Decides whether the share should grow now that a message of the peer arrived, leaving it
     * {@code peerSlots} credits as this side counts them.
     *
     * @return the number of slots by which the share should grow (then, if the queue grants them,
     *         call {@link #grew}), or 0
     */
    public int onArrival(int peerSlots) {
        int inUse = share - peerSlots;
        if (inUse > mostInUse) {
            mostInUse = inUse;
        }
        if (peerSlots <= share / 2 && share < maximum) {
            return Math.min(3 * share, maximum - share);
        }
        return 0;
    }

    /**
     * Decides what happens to a slot the pipeline has read: credited to the peer again, or kept back.
     *
     * @return {@link #KEEP} or {@link #SHRINK}
     */
    public int onRead() {
        if (toShrink > 0) {
            toShrink--;
            share--;
            return SHRINK;
        }
        if (++readsThisRound >= share) {
            if (mostInUse <= share / 2 && share > minimum) {
                toShrink = share - Math.max(minimum, share / 2);
            }
            startRound();
        }
        return KEEP;
    }

    /** Accounts for {@code slots} the share grew by: a new round of reads begins. */
    public void grew(int slots) {
        share += slots;
        toShrink = 0;
        startRound();
    }

    private void startRound() {
        readsThisRound = 0;
        mostInUse = 0;
    }
}
