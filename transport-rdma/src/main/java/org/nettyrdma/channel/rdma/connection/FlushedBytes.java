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

import java.io.IOException;
import java.nio.ByteBuffer;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelOutboundBuffer;
import org.nettyrdma.channel.rdma.memory.RdmaDevice;
import org.nettyrdma.channel.rdma.memory.RegionByteBuf;
import org.nettyrdma.channel.rdma.memory.RegisteredSlab;

/**
 * The flushed messages of a channel's outbound buffer that are not staged yet: writes stay in the
 * {@link ChannelOutboundBuffer} until the device completes the work requests that carry them, so a
 * flush walks the buffer past what is already in flight. Reused for every flush; holds references
 * only during one.
 *
 * <p>Progress is counted in units: a {@link ByteBuf}'s unit is a byte, a {@link TrackedFileRegion}'s
 * is its own {@code transferred()} unit. Units staged and posted are in flight until the work request
 * that carries them completes; then {@link #delivered} takes them out of the outbound buffer.
 *
 * <p>Not thread-safe: used on the channel's event loop only.
 */
final class FlushedBytes implements ChannelOutboundBuffer.MessageProcessor {

    private static final int MAX_SEGMENTS = 256;

    private final Object[] messages = new Object[MAX_SEGMENTS];
    private final int[] indexes = new int[MAX_SEGMENTS];
    private final int[] lengths = new int[MAX_SEGMENTS];
    private final ByteBufTarget target = new ByteBufTarget();
    private int count;
    private int current;
    private long skip;
    private long stagedUnits;
    private long currentAddress;
    /** Units staged and posted whose work requests have not completed. */
    private long inFlightUnits;
    /** Units whose work requests completed: taken out of the outbound buffer. */
    private long deliveredUnits;
    /** Set while delivered units are being taken out of the outbound buffer. */
    private boolean removing;

    /** Collects the flushed messages of {@code in}, skipping the units already in flight. */
    void load(ChannelOutboundBuffer in) throws Exception {
        count = 0;
        current = 0;
        skip = inFlightUnits;
        in.forEachFlushedMessage(this);
    }

    /** Returns {@code true} if staged units wait for their work requests. */
    boolean hasInFlight() {
        return inFlightUnits != 0;
    }

    /**
     * Returns {@code true} while delivered messages are being taken out of the outbound buffer: their
     * promises' listeners may flush, and until the removal is done the buffer and the in-flight count
     * disagree, so a flush then would send bytes twice or skip some.
     */
    boolean isRemoving() {
        return removing;
    }

    /** Returns the units delivered once every request posted so far completed: a send request's mark. */
    long mark() {
        return deliveredUnits + inFlightUnits;
    }

    /**
     * Accounts for the completion of the request whose {@link #mark()} was {@code mark}: its units are
     * delivered, and leave {@code in} ({@code null} if the channel has none any more).
     */
    void delivered(ChannelOutboundBuffer in, long mark) {
        long units = mark - deliveredUnits;
        if (units <= 0) {
            return;
        }
        try {
            if (in != null) {
                removeSent(in, units);
            }
        } finally {
            deliveredUnits += units;
            inFlightUnits -= units;
        }
    }

    /** Takes the messages whose {@code units} completed out of {@code in}; listeners may not flush meanwhile. */
    void removeSent(ChannelOutboundBuffer in, long units) {
        removing = true;
        try {
            removeCompleted(in, units);
        } finally {
            removing = false;
        }
    }

    @Override
    public boolean processMessage(Object msg) {
        // filterOutboundMessage lets nothing else in
        if (msg instanceof ByteBuf) {
            ByteBuf buf = (ByteBuf) msg;
            int readable = buf.readableBytes();
            if (skip >= readable) {
                skip -= readable;
                return true;
            }
            indexes[count] = buf.readerIndex() + (int) skip;
            lengths[count] = readable - (int) skip;
        } else {
            TrackedFileRegion region = (TrackedFileRegion) msg;
            long uncompleted = region.uncompleted();
            if (skip >= uncompleted) {
                skip -= uncompleted;
                return true;
            }
            // What is in flight of a region is its staged part; the rest is staged from transferred().
        }
        skip = 0;
        messages[count] = msg;
        return ++count < MAX_SEGMENTS;
    }

    /** Returns {@code true} if unstaged messages are left. */
    boolean hasRemaining() {
        return current < count;
    }

    /** Returns {@code true} if the unstaged messages hold at most {@code bytes} bytes together. */
    boolean remainingAtMost(int bytes) {
        long left = bytes;
        for (int i = current; i < count && left >= 0; i++) {
            Object msg = messages[i];
            left -= msg instanceof ByteBuf ? lengths[i] : ((TrackedFileRegion) msg).unstaged();
        }
        return left >= 0;
    }

    /** Returns the unstaged units of the current message: for a file region, at most its bytes. */
    int currentLength() {
        Object msg = messages[current];
        if (msg instanceof ByteBuf) {
            return lengths[current];
        }
        return (int) Math.min(Integer.MAX_VALUE, ((TrackedFileRegion) msg).unstaged());
    }

    /**
     * Returns the local key under which {@code device} reads the next {@code length} bytes of the
     * current message where they are, or -1 if they must be copied: they are not in registered memory
     * (a heap buffer, a buffer of another allocator, a file region), or the registration failed.
     * {@link #currentAddress()} then says where they are.
     */
    long currentLkey(RdmaDevice device, int length) {
        Object msg = messages[current];
        if (!(msg instanceof ByteBuf)) {
            return -1;
        }
        long address = addressOf((ByteBuf) msg, indexes[current]);
        RegisteredSlab slab = address != 0 ? RegisteredSlab.find(address, length) : null;
        if (slab == null) {
            return -1;
        }
        try {
            currentAddress = address;
            return slab.lkey(device) & 0xFFFFFFFFL;
        } catch (IOException e) {
            return -1;
        }
    }

    /** Returns the address found by the last {@link #currentLkey} that returned a key. */
    long currentAddress() {
        return currentAddress;
    }

    /** Returns the current message. */
    Object current() {
        return messages[current];
    }

    /** Returns {@code true} if the current message is {@code message}. */
    boolean currentIs(Object message) {
        return message != null && messages[current] == message;
    }

    /** Returns the current buffer, retained: the caller releases it when the device has read it. */
    ByteBuf retainCurrent() {
        return ((ByteBuf) messages[current]).retain();
    }

    /** Moves past {@code length} bytes of the current buffer that are sent from where they are. */
    void skipCurrent(int length) {
        indexes[current] += length;
        lengths[current] -= length;
        stagedUnits += length;
        if (lengths[current] == 0) {
            messages[current] = null;
            current++;
        }
    }

    /**
     * Returns the address of byte {@code index} of {@code buf} if it is one of the transport's own
     * buffers (or a view of one), the only ones that lie in registered slabs, else 0. Other buffers
     * are not asked: without {@code Unsafe} (Java 25) Netty finds a wrapped {@link ByteBuffer}'s
     * address through a {@code MemorySegment} made per call.
     */
    private static long addressOf(ByteBuf buf, int index) {
        return RegionByteBuf.isRegion(buf) && buf.hasMemoryAddress() ? buf.memoryAddress() + index : 0;
    }

    /**
     * Copies at most {@code length} bytes of the current message to {@code dst} and moves on when it is
     * staged. The units staged accumulate until {@link #takeStagedUnits()}.
     *
     * @return the bytes copied, at least 1 and at most {@code length}
     * @throws IOException if a file region fails or makes no progress
     */
    int copyCurrent(ByteBuf dst, int dstIndex, int length) throws IOException {
        Object msg = messages[current];
        if (msg instanceof ByteBuf) {
            ((ByteBuf) msg).getBytes(indexes[current], dst, dstIndex, length);
            skipCurrent(length);
            return length;
        }
        TrackedFileRegion region = (TrackedFileRegion) msg;
        stagedUnits += region.stage(target.reset(dst, dstIndex, length));
        if (region.isStaged()) {
            messages[current] = null;
            current++;
        }
        return target.written();
    }

    /** Puts the units staged since the last call in flight: the request that carries them is added. */
    void posted() {
        inFlightUnits += stagedUnits;
        stagedUnits = 0;
    }

    /** Drops the references to the outbound buffer's messages. */
    void clear() {
        for (int i = current; i < count; i++) {
            messages[i] = null;
        }
        count = 0;
        current = 0;
        target.close();
    }

    /**
     * Takes the messages whose {@code units} completed out of {@code in}, with their progress, and
     * then every empty message at its head (an empty write has nothing to wait for).
     */
    private static void removeCompleted(ChannelOutboundBuffer in, long units) {
        for (;;) {
            Object msg = in.current();
            if (msg instanceof ByteBuf) {
                ByteBuf buf = (ByteBuf) msg;
                int readable = buf.readableBytes();
                if (readable > units) {
                    if (units > 0) {
                        buf.readerIndex(buf.readerIndex() + (int) units);
                        in.progress(units);
                    }
                    return;
                }
                if (readable > 0) {
                    in.progress(readable);
                }
                units -= readable;
                in.remove();
            } else if (msg instanceof TrackedFileRegion) {
                TrackedFileRegion region = (TrackedFileRegion) msg;
                long uncompleted = region.uncompleted();
                if (uncompleted > units || !region.isStaged()) {
                    if (units > 0) {
                        region.complete(units);
                        in.progress(units);
                    }
                    return;
                }
                if (uncompleted > 0) {
                    region.complete(uncompleted);
                    in.progress(uncompleted);
                }
                units -= uncompleted;
                in.remove();
            } else {
                return;
            }
        }
    }
}
