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

import java.nio.ByteBuffer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.channel.rdma.internal.WorkRequests;
import org.nettyrdma.channel.rdma.memory.SendBlocks;
import org.nettyrdma.channel.rdma.memory.StagingBlock;

/**
 * Where the bytes of one connection's send requests wait for the device: an unregistered inline
 * buffer that the device copies from when the chain is posted, or the registered staging blocks
 * ({@link SendBlocks}) that the connection holds only while it sends
 * (docs/decisions.md#send-staging-blocks).
 *
 * <p>{@link #place} takes room for one request and this class keeps that placement (the memory and
 * offset to write, the address and key to post) until the next {@code place}: a value object per
 * request would be garbage on every Send, and the steady state allocates nothing per message
 * (docs/decisions.md#recycled-buffers).
 *
 * <p>Not thread-safe: used on the channel's event loop only.
 */
final class SendStaging {

    /** The largest Send posted inline: what the user asked for, as far as the device granted it. */
    private final int maxInline;
    /**
     * The largest {@code HELLO} or control message posted inline: every one of them where the device
     * granted {@link org.nettyrdma.channel.rdma.protocol.RdmaProtocol#MAX_CONTROL_SIZE}, whatever the
     * user asked for, so that a close takes no staging block, whose pool might register one.
     */
    private final int controlInline;
    private final SendBlocks blocks;
    /**
     * The inline requests of the chain being built: room for a full chain of them, reused once it is
     * posted, since the device copies inline data when the request is posted. Not registered; null
     * where the queue pair takes no inline data.
     */
    private final ByteBuf inline;
    /**
     * {@link #inline} as requests are copied and encoded into it: a view of the same memory that the
     * leak detector does not trace, since a traced buffer records a stack at each access (Netty's
     * paranoid level) and a copy without {@code Unsafe} reads it through its NIO buffer.
     */
    private final ByteBuf inlineMemory;
    private final long inlineAddress;
    private int inlineUsed;
    private ByteBuf placedMemory;
    private int placedOffset;
    private long placedAddress;
    private int placedLkey;
    /** The last placement failed for want of a block the pool did not have; a retry is the caller's. */
    private boolean waitingForBlock;

    /**
     * Creates the staging of a chain of {@code chainLength} requests, holding at most
     * {@code sendBufferSize} bytes of blocks from {@code source}.
     */
    SendStaging(int maxInline, int controlInline, int chainLength, SendBlocks.Source source, int sendBufferSize) {
        this.maxInline = maxInline;
        this.controlInline = controlInline;
        // SO_SNDBUF bounds the staging blocks held, and so the bytes copied and in flight.
        blocks = new SendBlocks(source, sendBufferSize);
        int inlineBytes = chainLength * Math.max(maxInline, controlInline);
        inline = inlineBytes > 0 ? ByteBufAllocator.DEFAULT.directBuffer(inlineBytes, inlineBytes) : null;
        ByteBuffer inlineBuffer = inline != null ? inline.nioBuffer(0, inline.capacity()) : null;
        inlineMemory = inline != null ? Unpooled.wrappedBuffer(inlineBuffer) : null;
        inlineAddress = inline != null ? RdmaNative.directBufferAddress(inlineBuffer) : 0;
    }

    /** Returns the largest data Send posted inline. */
    int maxInline() {
        return maxInline;
    }

    /** Returns the largest {@code HELLO} or control message posted inline. */
    int controlInline() {
        return controlInline;
    }

    /**
     * Returns the address of the inline buffer: where a request of no bytes points, which the device
     * copies nothing from.
     */
    long emptyInlineAddress() {
        return inlineAddress;
    }

    /** Returns the largest region a request may stage: what one RDMA Write carries at most. */
    int largestRegion() {
        return blocks.largestRegion();
    }

    /**
     * Takes room for the {@code length} bytes of a request: in the inline buffer if they are at most
     * {@code inlineLimit}, else in a staging block. The placement holds until the next call.
     *
     * @return {@code false} if no staging block has room now
     */
    boolean place(int length, int inlineLimit) {
        if (length <= inlineLimit) {
            waitingForBlock = false;
            placedMemory = inlineMemory;
            placedOffset = inlineUsed;
            placedAddress = inlineAddress + inlineUsed;
            placedLkey = 0; // inline data is copied at the post, never read under a key
            inlineUsed += length;
            return true;
        }
        int offset = blocks.take(length);
        if (offset < 0) {
            waitingForBlock = blocks.starved();
            return false;
        }
        waitingForBlock = false;
        StagingBlock block = blocks.current();
        placedMemory = block.memory();
        placedOffset = offset;
        placedAddress = block.address() + offset;
        placedLkey = block.lkey();
        return true;
    }

    /** Returns the memory of the last placement, to write the request's bytes into. */
    ByteBuf placedMemory() {
        return placedMemory;
    }

    /** Returns the offset in {@link #placedMemory()} where the last placement starts. */
    int placedOffset() {
        return placedOffset;
    }

    /** Returns the address the device reads the last placement at. */
    long placedAddress() {
        return placedAddress;
    }

    /** Returns the key the device reads the last placement under: 0 for inline data. */
    int placedLkey() {
        return placedLkey;
    }

    /** Returns {@link #placedMemory()} with its writer index {@code skip} bytes into the last placement. */
    ByteBuf placedWriter(int skip) {
        return placedMemory.writerIndex(placedOffset + skip);
    }

    /** Gives back the last {@code unused} bytes of the room the last {@link #place} took. */
    void giveBack(int unused) {
        if (placedMemory == inlineMemory) {
            inlineUsed -= unused;
        } else {
            blocks.giveBack(unused);
        }
    }

    /**
     * Returns the flags for a request of {@code length} bytes at the last placement: inline if they
     * are in the inline buffer, or at most what the user asked for. Bytes staged in a block stay
     * reserved until the request completes all the same; only the device's read of them is saved.
     */
    int inlineFlag(int length) {
        return placedMemory == inlineMemory || length <= maxInline ? WorkRequests.FLAG_INLINE : 0;
    }

    /** Accounts for the chain posted or failed: the device has copied its inline data, or never will. */
    void chainPosted() {
        inlineUsed = 0;
    }

    /** Returns where the staging blocks stand after the request just placed: a send request's mark. */
    long mark() {
        return blocks.mark();
    }

    /** Frees the staging up to {@code mark}: the request that recorded it completed. */
    void returnTo(long mark) {
        blocks.returnTo(mark);
    }

    /** Forgets that the last placement found no block: a flush starts over. */
    void clearWaitingForBlock() {
        waitingForBlock = false;
    }

    /**
     * Returns {@code true} if the last placement found the pool without a free block: only a
     * completion of this connection's sends or a retry later gets one then, since other connections'
     * blocks come back without a word to this one.
     */
    boolean waitingForBlock() {
        return waitingForBlock;
    }

    /**
     * Returns the bytes of staging blocks held now: the registered memory of this side's sends in
     * flight, and the spare blocks for its next ones until {@link #trimIfUnused()} gives them back.
     */
    int heldBytes() {
        return blocks.heldBytes();
    }

    /** Returns {@code true} if spare staging blocks are kept with nothing in flight. */
    boolean holdsOnlySpares() {
        return blocks.holdsOnlySpares();
    }

    /**
     * Gives the spare staging blocks back if nothing was placed in a block since the last call.
     *
     * @return {@code true} if no staging memory is held any more
     */
    boolean trimIfUnused() {
        return blocks.trimIfUnused();
    }

    /** Gives the staging blocks back and releases the inline buffer: the device reads neither any more. */
    void close() {
        blocks.close();
        if (inline != null) {
            inline.release();
        }
    }
}
