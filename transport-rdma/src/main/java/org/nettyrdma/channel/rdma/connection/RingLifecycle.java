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
package org.nettyrdma.channel.rdma.connection;

import org.nettyrdma.channel.rdma.RdmaProtocolException;

/**
 * The receiving side's decisions about the rings it opens to its peer (docs/protocol.md, "Rings"):
 * none until the peer asks ({@code RING_REQUEST}), then one at a time. A ring closes when the peer's
 * Writes stopped for a while, or to make way for a larger one when the peer asks for more while it
 * is open; it takes Writes until the peer says it released it ({@code RING_RELEASED}), and only then
 * may its window be revoked and another ring open. So at most one ring takes Writes at any time,
 * and the Writes that arrive belong to it. Nor does another ring open while regions of the released
 * one still wait to be read or are held by the pipeline: a reader that stopped reading would
 * otherwise hold one ring's memory after another, where it holds one ring and its receive slots.
 *
 * <p>The first ring is {@link #INITIAL_SIZE} bytes (or the largest, if that is smaller). A ring grows,
 * twice as large each time up to the largest, once the peer has written it through
 * {@link #GROWTH_TURNS} times, or when the peer asks because it found the ring full. This class
 * decides; the connection registers, binds, revokes and sends.
 *
 * <p>Not thread-safe: used on the channel's event loop only.
 */
final class RingLifecycle {

    /** The size of the first ring a peer gets: large enough for Writes of 64 KiB, a quarter of it. */
    static final int INITIAL_SIZE = 256 * 1024;

    /** {@link #onRequest} result: nothing to do now. */
    static final int KEEP = 0;
    /** {@link #onRequest} result: a ring is wanted, to open when {@link #openDue()}. */
    public static final int OPEN = 1;
    /** {@link #onRequest} result: close the open ring; a larger one opens when the peer released it. */
    static final int GROW = 2;
    /**
     * How many times over a peer writes its ring before it gets a larger one: a stream, not a burst.
     * A small ring returns its space by the quarter, a {@code CREDIT} per Write of a quarter of it.
     */
    static final int GROWTH_TURNS = 4;

    private final int maxSize;
    /** The generation of the newest ring opened; 0 before the first. */
    private int generation;
    /** The ring open to the peer: it takes the peer's Writes and its freed bytes are credited. */
    private OfferedRing open;
    /** The ring closed to the peer, until the peer released it: it still takes the Writes posted before. */
    private OfferedRing closing;
    /** The ring released whose regions still wait to be read or are held: no other opens before they are. */
    private OfferedRing draining;
    /** The size of the ring wanted, to open once none takes Writes and none drains; 0 for none. */
    private int wantedSize;
    /** Whether a Write arrived since the last {@link #idleSinceLastLook()}. */
    private boolean written;
    /** The bytes written into the open ring since it opened. */
    private long writtenBytes;

    /** Creates the lifecycle of a connection that opens rings of at most {@code maxSize} bytes; 0 for none. */
    RingLifecycle(int maxSize) {
        if (maxSize < 0) {
            throw new IllegalArgumentException("maxSize: " + maxSize + " (expected: >= 0)");
        }
        this.maxSize = maxSize;
    }

    /** Returns the largest ring this side opens, which its {@code HELLO} announces; 0 if it opens none. */
    public int maxSize() {
        return maxSize;
    }

    /** Returns the generation of the newest ring opened; 0 before the first. */
    public int generation() {
        return generation;
    }

    /**
     * Takes the peer's {@code RING_REQUEST} naming the newest ring it knows of.
     *
     * @return {@link #OPEN}, {@link #GROW} or {@link #KEEP}
     * @throws RdmaProtocolException if this side opens no ring, or the request names a ring never opened
     */
    int onRequest(int knownGeneration) throws RdmaProtocolException {
        if (maxSize == 0) {
            throw new RdmaProtocolException("RING_REQUEST, but this side's HELLO offered no ring");
        }
        if (knownGeneration > generation) {
            throw new RdmaProtocolException("RING_REQUEST naming ring " + knownGeneration + ", but the newest ring "
                    + "opened is " + generation);
        }
        if (open != null) {
            if (knownGeneration == open.generation() && growsTo() > 0) {
                // The peer writes into this ring and found it full: a larger one serves it better.
                wantedSize = growsTo();
                return GROW;
            }
            // The peer asked before it learnt of this ring, or it is as large as it gets.
            return KEEP;
        }
        if (closing != null) {
            // It asked before it saw the close: it gets a ring once the old one is released.
            wantedSize = Math.max(wantedSize, closing.size());
            return KEEP;
        }
        wantedSize = Math.max(wantedSize, Math.min(maxSize, INITIAL_SIZE));
        return OPEN;
    }

    /** Returns the size of the ring to open when {@link #openDue()}. */
    int nextSize() {
        return wantedSize;
    }

    /**
     * Returns {@code true} if a ring is wanted and may open now: none takes Writes, and every region
     * of the last one released was read and let go of.
     */
    boolean openDue() {
        if (draining != null && draining.book().outstandingRegions() == 0) {
            draining = null;
        }
        return wantedSize > 0 && open == null && closing == null && draining == null;
    }

    /** Forgets the ring wanted, which cannot be served: the peer asks again. */
    public void declined() {
        wantedSize = 0;
    }

    /** Returns the generation the next ring gets, counting it as opened: the caller opens it or fails. */
    int nextGeneration() {
        return ++generation;
    }

    /** Takes {@code ring} into use: it is open to the peer from now on. */
    public void opened(OfferedRing ring) {
        if (open != null || closing != null) {
            throw new IllegalStateException("opening " + ring + " while " + (open != null ? open : closing)
                    + " takes Writes");
        }
        open = ring;
        wantedSize = 0;
        written = true;
        writtenBytes = 0;
    }

    /** Returns the size the open ring grows to, or 0 if it is as large as it gets. */
    private int growsTo() {
        return open.size() < maxSize ? (int) Math.min(maxSize, 2L * open.size()) : 0;
    }

    /**
     * Closes the open ring to the peer: it takes the Writes posted before the peer learns of it, until
     * the peer releases it.
     *
     * @return the ring closed
     */
    public OfferedRing close() {
        if (open == null) {
            throw new IllegalStateException("no ring open");
        }
        closing = open;
        open = null;
        return closing;
    }

    /**
     * Takes the peer's {@code RING_RELEASED}: no Write into that ring follows.
     *
     * @return the ring released, whose window and registration can go now
     * @throws RdmaProtocolException if that ring was not closed to the peer
     */
    OfferedRing onReleased(int releasedGeneration) throws RdmaProtocolException {
        if (closing == null || closing.generation() != releasedGeneration) {
            throw new RdmaProtocolException("RING_RELEASED naming ring " + releasedGeneration + " (expected: "
                    + (closing != null ? "ring " + closing.generation() : "none, no ring was closed") + ')');
        }
        OfferedRing released = closing;
        closing = null;
        draining = released;
        return released;
    }

    /** Returns the ring the peer's Writes go into now: the closing one until released, else the open one. */
    public OfferedRing writable() {
        return closing != null ? closing : open;
    }

    /** Returns the ring open to the peer, whose freed bytes are credited to it; {@code null} if none. */
    public OfferedRing open() {
        return open;
    }

    /** Returns the ring closed to the peer and not released yet; {@code null} if none. */
    public OfferedRing closing() {
        return closing;
    }

    /**
     * Accounts for a Write of {@code length} bytes into {@link #writable()}.
     *
     * @return {@link #GROW} if the open ring was written through {@link #GROWTH_TURNS} times and can
     *         grow: the caller closes it, and a larger one opens once the peer released it; else
     *         {@link #KEEP}
     */
    public int wrote(int length) {
        written = true;
        if (open == null) {
            return KEEP;
        }
        writtenBytes += length;
        if (writtenBytes < (long) GROWTH_TURNS * open.size() || growsTo() == 0) {
            return KEEP;
        }
        wantedSize = growsTo();
        return GROW;
    }

    /**
     * Returns {@code true} if no Write arrived since the last call (or since the ring opened) and a
     * ring is open: then it is worth closing.
     */
    boolean idleSinceLastLook() {
        boolean idle = open != null && !written;
        written = false;
        return idle;
    }
}
