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
package org.nettyrdma.channel.rdma.memory;

import java.util.ArrayDeque;

/**
 * The book of the registered memory one connection stages outgoing bytes in (the header and payload
 * of a Send, the payload of a copied RDMA Write) until the device reports the work request complete:
 * blocks taken from a shared pool while sends are in flight, and given back once they are not.
 *
 * <p>A region is taken at the end of the newest block; one that does not fit there goes into a new
 * block of {@link #BLOCK_SIZE} bytes, or of its own size rounded up to a power of two if it is larger.
 * The send queue completes in order, so a completion returns everything before the {@linkplain #mark()
 * mark} taken after its request, and a block is emptied once the mark passes the last region in it.
 * Every emptied block of the usual size stays as a spare, so a connection whose sends need N blocks
 * at a time takes N from the pool once, not again per block a stream fills, nor per message of a
 * request/response exchange whose messages span two blocks. The spares go back when
 * {@link #trimIfUnused()} finds no region taken since its last call: a connection that stopped sending
 * holds none (docs/decisions.md#send-staging-blocks). A larger block, or one of the connection's own,
 * serves as a spare only while regions are in flight, and goes back once nothing staged is.
 *
 * <p>The blocks held, spares included, never pass the limit ({@code SO_SNDBUF}): that bounds the bytes
 * a connection has in flight as the one send buffer of that size did, and the write water marks
 * follow it. Spares too small for a region go back until it has room, so a connection with nothing
 * in flight always has room for one block. When the limit refuses a block, {@link #take}
 * answers -1 and the caller waits for a completion. When the pool has none, a connection with regions
 * in flight waits the same way; one with none, and so no completion to wait for, gives its spares
 * back and registers a block of its own ({@link Source#takeOwn}), and only if that is refused too,
 * {@link #starved()} says that nothing of this connection will bring one.
 *
 * <p>Marks are monotonic {@code long}s, so there is no wrap-around case. Not thread-safe.
 */
public final class SendBlocks {

    /**
     * The usual block: large enough that a stream of full Sends (8 KiB slots by default) fills several
     * per block taken, small enough that a connection with a little in flight holds little.
     */
    public static final int BLOCK_SIZE = 64 * 1024;

    /** Where blocks come from and go back to. */
    public interface Source {
        /** Returns an empty block of exactly {@code size} bytes, a power of two, or {@code null} if none is free. */
        StagingBlock take(int size);

        /**
         * Returns a block of {@code size} bytes registered for this connection alone, or {@code null}
         * if that is refused too: asked only by a connection that holds no block and found none in
         * the pool, so that it has something to send from rather than nothing to wait for.
         */
        StagingBlock takeOwn(int size);

        /** Takes back a block {@link #take} returned; no work request reads it any more. */
        void give(StagingBlock block);

        /**
         * Returns {@code true} if {@link #take} registers every block for the connection alone
         * ({@link RegisteredBlocks}): its emptied blocks of the usual size are then kept as spares
         * like the pool's, since giving each one back would register a block per message for a
         * connection that sends, reads or adds one at a time.
         */
        default boolean registersEachBlock() {
            return false;
        }
    }

    /** The smallest limit: one block of the pool's smallest size. */
    private static final int MIN_LIMIT = RegisteredMemoryPool.MIN_BLOCK;

    private final Source source;
    private final int limit;
    private final int blockSize;
    /** The blocks with regions in flight, oldest first; the last one takes new regions. */
    private final ArrayDeque<StagingBlock> blocks = new ArrayDeque<>();
    /**
     * Emptied blocks of the usual size from the source's {@link Source#take}, the last emptied first:
     * kept until {@link #trimIfUnused()}, so a steady pattern of sends takes nothing from the source.
     */
    private final ArrayDeque<StagingBlock> spares = new ArrayDeque<>();
    /**
     * An emptied larger block, or one the connection registered because the pool had none
     * ({@link Source#takeOwn}): kept only while regions are in flight,
     * so a stream of large regions or one from a short pool reuses it rather than take it again.
     */
    private StagingBlock oddSpare;
    private int heldBytes;
    /** Bytes taken of the newest block. */
    private int used;
    private long taken;
    private long returned;
    private boolean starved;
    private boolean closed;
    /** A region was taken since the last {@link #trimIfUnused()}. */
    private boolean takenSinceLook;

    /** Creates the book of a connection that holds at most {@code limit} bytes of blocks from {@code source}. */
    public SendBlocks(Source source, int limit) {
        if (limit < MIN_LIMIT) {
            throw new IllegalArgumentException("limit: " + limit + " (expected: >= " + MIN_LIMIT + ")");
        }
        this.source = source;
        this.limit = limit;
        // A block never passes the limit, so a connection with nothing in flight always has room for one.
        blockSize = Math.min(BLOCK_SIZE, Integer.highestOneBit(limit));
    }

    /**
     * Returns the largest region to take: a quarter of the limit, so that regions of others in flight
     * leave room for it, and no larger than the pool's largest block.
     */
    public int largestRegion() {
        return Math.min(limit / 4, RegisteredMemoryPool.MAX_BLOCK);
    }

    /**
     * Takes {@code length} contiguous bytes in {@link #current()}.
     *
     * @return the offset in the current block, or -1 if they do not fit now: the limit is reached
     *         until regions in flight complete, or the pool has no block ({@link #starved()})
     * @throws IllegalArgumentException if a block of {@code length} bytes would pass the limit on its own
     */
    public int take(int length) {
        if (closed) {
            return -1;
        }
        StagingBlock newest = blocks.peekLast();
        if (newest == null || used + length > newest.capacity()) {
            if (nextBlock(length) == null) {
                return -1;
            }
        }
        int offset = used;
        used += length;
        taken += length;
        takenSinceLook = true;
        return offset;
    }

    /** Returns the block {@link #take} took the last region in; {@code null} before the first. */
    public StagingBlock current() {
        return blocks.peekLast();
    }

    /** Gives back the last {@code unused} bytes of the region taken last. */
    public void giveBack(int unused) {
        taken -= unused;
        used -= unused;
    }

    /** Returns the position to record with a work request: its completion returns everything before it. */
    public long mark() {
        return taken;
    }

    /**
     * Returns every byte before {@code mark}, when the work request it was taken for has completed:
     * blocks whose regions all completed become spares. Those of the usual size stay until
     * {@link #trimIfUnused} finds them unused, so that a connection sending one message at a time
     * takes no block from the pool, and makes no garbage (a {@link StagingBlock} per block taken), per
     * message, however many blocks the message spans; a larger one, or one the connection registered
     * because the pool had none, goes back once nothing staged is in flight.
     */
    public void returnTo(long mark) {
        if (mark <= returned) {
            return;
        }
        returned = mark;
        while (!blocks.isEmpty() && blocks.peekFirst().end <= returned) {
            retire(blocks.pollFirst());
        }
        if (returned == taken) {
            while (!blocks.isEmpty()) {
                retire(blocks.pollFirst());
            }
            used = 0;
            if (oddSpare != null) {
                give(oddSpare);
                oddSpare = null;
            }
        }
    }

    /** Returns {@code true} if nothing staged is in flight and spares are all that is held. */
    public boolean holdsOnlySpares() {
        return !spares.isEmpty() && blocks.isEmpty();
    }

    /**
     * Gives every spare back if no region was taken since the last call: a connection that stopped
     * sending holds no staging memory, however long it stays idle. Called every so often while
     * {@link #heldBytes()} is not 0.
     *
     * @return {@code true} if nothing is held any more, so that no later call is needed
     */
    public boolean trimIfUnused() {
        if (!takenSinceLook) {
            giveSpares();
        }
        takenSinceLook = false;
        return heldBytes == 0;
    }

    /** Returns {@code true} if the last {@link #take} that failed found no free block in the pool. */
    public boolean starved() {
        return starved;
    }

    /** Returns the bytes of blocks held now, spares included. */
    public int heldBytes() {
        return heldBytes;
    }

    /**
     * Gives every block back and takes no more. Only once the device can no longer read them: the
     * queue pair is destroyed.
     */
    public void close() {
        closed = true;
        giveAll();
    }

    /** Closes the newest block to new regions and makes a block of room for {@code length} the newest. */
    private StagingBlock nextBlock(int length) {
        int size = Math.max(blockSize, Integer.highestOneBit(length - 1) << 1);
        if (size > limit || size > RegisteredMemoryPool.MAX_BLOCK) {
            throw new IllegalArgumentException("length: " + length + " (expected: <= " + largestRegion() + ")");
        }
        StagingBlock newest = blocks.peekLast();
        if (newest != null && newest.end == Long.MAX_VALUE) {
            if (used == 0) {
                // Empty, only too small for this region.
                retire(blocks.pollLast());
            } else {
                // Its regions complete by this mark; nothing more goes in, even what would still fit.
                newest.end = taken;
                used = newest.capacity();
            }
        }
        StagingBlock block = takeSpare(size);
        if (block == null) {
            if (heldBytes - spareBytes() + size > limit) {
                // Regions in flight fill the limit; the spares stay for regions of the usual size.
                starved = false;
                return null;
            }
            // The spares are too small for this region: as many go back as it needs room.
            while (heldBytes + size > limit) {
                giveOneSpare();
            }
            block = source.take(size);
            if (block == null && blocks.isEmpty()) {
                // Nothing in flight will bring a block back, and spares too small are no use to it.
                giveSpares();
                block = source.takeOwn(size);
            }
            starved = block == null;
            if (block == null) {
                return null;
            }
            heldBytes += block.capacity();
        }
        block.end = Long.MAX_VALUE;
        blocks.addLast(block);
        used = 0;
        return block;
    }

    /** Returns a spare of at least {@code size} bytes, the last emptied of the usual size first, or {@code null}. */
    private StagingBlock takeSpare(int size) {
        if (size <= blockSize && !spares.isEmpty()) {
            return spares.pollFirst();
        }
        StagingBlock block = oddSpare;
        if (block != null && block.capacity() >= size) {
            oddSpare = null;
            return block;
        }
        return null;
    }

    /** Returns the bytes of the spares, which are held but carry nothing. */
    private int spareBytes() {
        return spares.size() * blockSize + (oddSpare != null ? oddSpare.capacity() : 0);
    }

    /** Gives back the odd spare if there is one, else the spare emptied longest ago. */
    private void giveOneSpare() {
        if (oddSpare != null) {
            give(oddSpare);
            oddSpare = null;
        } else {
            give(spares.pollLast());
        }
    }

    /**
     * Keeps a block whose regions all completed as a spare: every one of the usual size that
     * {@link Source#take} gave, one other (the first) while regions are in flight; any further other
     * one goes back now.
     */
    private void retire(StagingBlock block) {
        if (block.capacity() == blockSize && (block.registration() == null || source.registersEachBlock())) {
            spares.addFirst(block);
        } else if (oddSpare == null) {
            oddSpare = block;
        } else {
            give(block);
        }
    }

    /** Gives every spare back. */
    private void giveSpares() {
        while (!spares.isEmpty()) {
            give(spares.pollFirst());
        }
        if (oddSpare != null) {
            give(oddSpare);
            oddSpare = null;
        }
    }

    private void giveAll() {
        while (!blocks.isEmpty()) {
            give(blocks.pollFirst());
        }
        giveSpares();
        used = 0;
    }

    private void give(StagingBlock block) {
        heldBytes -= block.capacity();
        source.give(block);
    }
}
