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
import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;

import io.netty.buffer.ByteBuf;
import org.nettyrdma.channel.rdma.RdmaRemoteAccessException;
import org.nettyrdma.channel.rdma.RemoteRegion;
import org.nettyrdma.channel.rdma.internal.WorkCompletionStatus;
import org.nettyrdma.channel.rdma.internal.WorkRequests;
import org.nettyrdma.channel.rdma.memory.BufferCopy;
import org.nettyrdma.channel.rdma.memory.SendBlocks;
import org.nettyrdma.channel.rdma.memory.StagingBlock;

/**
 * The one-sided requests of one connection ({@code OneSidedOperations}): each {@link OneSidedOperation}
 * becomes one or more work requests on the connection's send queue, posted in the order asked, after
 * what the channel flushed before, and waiting for send queue room or landing memory rather than
 * failing. RDMA Read data and atomic results land in blocks registered with local write access for
 * this connection ({@link #landing}), since the shared pool's are the device's to read only; Write data
 * is staged like a Send's. Every request is signaled: its completion completes its operation's part.
 * The parts are kept for reuse once done, so that a steady run of operations allocates nothing.
 *
 * <p>Used on the channel's event loop only.
 */
public final class OneSidedRequests {

    private static final int READ = 0;
    private static final int WRITE = 1;
    private static final int ATOMIC = 2;
    /** A zero-length Read after a Write, answered once the Write is placed (iWARP only). */
    private static final int CONFIRMATION = 3;
    /** A zero-length Read that only makes the peer's device read what came before it ({@link HelloNudge}). */
    private static final int NUDGE = 4;
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    /** One work request of an operation; kept in {@link #spareParts} once done. */
    private static final class Part {
        OneSidedOperation operation;
        int kind;
        int opcode;
        int offset;
        int length;
        long remoteAddress;
        int rkey;
        long compareAdd;
        long swap;
        long sequence;
        StagingBlock landed;
        int landedOffset;
        long landingMark;
        /** The next spare part while this one is spare. */
        Part nextSpare;
    }

    private final RdmaSender sender;
    private final SendBlocks landing;
    /** Whether a Write is followed by a {@link #CONFIRMATION}: its own completion does not say it was placed. */
    private final boolean confirmsWrites;
    /**
     * The most parts kept spare: as many as the send queue holds requests, the most that are in
     * flight at once; a burst that waited beyond them leaves no more behind.
     */
    private final int maxSpareParts;
    private final ArrayDeque<Part> waiting = new ArrayDeque<>();
    private final ArrayDeque<Part> posted = new ArrayDeque<>();
    private Part spareParts;
    private int spareCount;
    private boolean closed;

    OneSidedRequests(RdmaSender sender, SendBlocks landing, boolean confirmsWrites, int sendDepth) {
        this.sender = sender;
        this.landing = landing;
        this.confirmsWrites = confirmsWrites;
        this.maxSpareParts = sendDepth;
    }

    /** Returns the largest request: a Read lands in one region of a landing block, a Write is staged in one. */
    private int largestRequest() {
        return Math.min(landing.largestRegion(), sender.largestStagedRegion());
    }

    /**
     * Adds the requests of {@code operation}: a Read's or a Write's, each at most the largest the
     * connection takes, or an atomic's one. Where a Write's completion does not say that the peer's
     * device placed it (iWARP,
     * {@link org.nettyrdma.channel.rdma.memory.DeviceVerbs#writeCompletionsConfirmPlacement()}),
     * a zero-length RDMA Read follows the Write's requests, which the peer's device answers only once
     * it placed the Writes before it; a key it refused ends the connection instead, and the operation
     * fails. Once the connection closed, fails the operation instead.
     */
    public void add(OneSidedOperation operation) {
        if (closed) {
            operation.fail(new ClosedChannelException());
            return;
        }
        long remoteAddress = operation.remoteAddress();
        int rkey = operation.rkey();
        if (operation.kind == OneSidedOperation.Kind.ATOMIC) {
            add(operation, ATOMIC, operation.opcode, 0, Long.BYTES, remoteAddress, rkey, operation.compareAdd,
                    operation.swap);
            return;
        }
        boolean read = operation.kind == OneSidedOperation.Kind.READ;
        int kind = read ? READ : WRITE;
        int opcode = read ? WorkRequests.OPCODE_RDMA_READ : WorkRequests.OPCODE_RDMA_WRITE;
        int length = operation.length();
        int largest = largestRequest();
        for (int done = 0; done < length; done += largest) {
            add(operation, kind, opcode, done, Math.min(largest, length - done), remoteAddress + done, rkey, 0, 0);
        }
        if (!read && confirmsWrites) {
            add(operation, CONFIRMATION, WorkRequests.OPCODE_RDMA_READ, 0, 0, remoteAddress, rkey, 0, 0);
        }
    }

    /**
     * Adds a zero-length RDMA Read of nothing, which needs no key and no landing memory: the peer's
     * device answers it after reading whatever came before it ({@link HelloNudge}).
     */
    void nudge() {
        if (!closed) {
            add(OneSidedOperation.nudge(), NUDGE, WorkRequests.OPCODE_RDMA_READ, 0, 0, 0, 0, 0, 0);
        }
    }

    private void add(OneSidedOperation operation, int kind, int opcode, int offset, int length, long remoteAddress,
                     int rkey, long compareAdd, long swap) {
        Part part = spareParts;
        if (part != null) {
            spareParts = part.nextSpare;
            part.nextSpare = null;
            spareCount--;
        } else {
            part = new Part();
        }
        part.operation = operation;
        part.kind = kind;
        part.opcode = opcode;
        part.offset = offset;
        part.length = length;
        part.remoteAddress = remoteAddress;
        part.rkey = rkey;
        part.compareAdd = compareAdd;
        part.swap = swap;
        operation.partsLeft++;
        waiting.add(part);
    }

    /** Ends {@code part}: it is kept spare, and its operation told that one of its requests is done. */
    private void done(Part part) {
        OneSidedOperation operation = part.operation;
        part.operation = null;
        part.landed = null;
        if (spareCount < maxSpareParts) {
            part.nextSpare = spareParts;
            spareParts = part;
            spareCount++;
        }
        operation.partDone();
    }

    /** Posts the requests that wait, in order, as far as the send queue and the landing memory allow. */
    void postWaiting() throws IOException {
        while (!closed && !waiting.isEmpty()) {
            Part part = waiting.peek();
            if (part.operation.failed) {
                done(waiting.poll());
                continue;
            }
            if (!post(part)) {
                return;
            }
            waiting.poll();
            posted.add(part);
        }
    }

    private boolean post(Part part) throws IOException {
        if (part.kind == NUDGE) {
            part.sequence = sender.postRead(0, 0, 0, 0, 0);
            return part.sequence >= 0;
        }
        if (part.kind == WRITE) {
            OneSidedOperation operation = part.operation;
            part.sequence = sender.postWrite(operation.buffer, operation.index + part.offset, part.length,
                    part.remoteAddress, part.rkey);
            return part.sequence >= 0;
        }
        int offset = landing.take(part.length);
        if (offset < 0) {
            return false;
        }
        StagingBlock block = landing.current();
        long address = block.address() + offset;
        part.sequence = part.kind != ATOMIC
                ? sender.postRead(address, block.lkey(), part.length, part.remoteAddress, part.rkey)
                : sender.postAtomic(part.opcode, address, block.lkey(), part.remoteAddress, part.rkey,
                        part.compareAdd, part.swap);
        if (part.sequence < 0) {
            landing.giveBack(part.length);
            return false;
        }
        part.landed = block;
        part.landedOffset = offset;
        part.landingMark = landing.mark();
        return true;
    }

    /** Returns {@code true} if a landing block is kept with nothing in flight. */
    boolean holdsIdleLanding() {
        return landing.holdsOnlySpares();
    }

    /**
     * Gives the spare landing block back if nothing landed since the last call.
     *
     * @return {@code true} if no landing memory is held any more
     */
    boolean trimLanding() {
        return landing.trimIfUnused();
    }

    /** Completes the parts whose requests are {@code sequence} or older: they succeeded. */
    void completed(long sequence) {
        while (!posted.isEmpty() && posted.peek().sequence <= sequence) {
            Part part = posted.poll();
            OneSidedOperation operation = part.operation;
            if (part.landed != null) {
                // A failed operation's buffer is no longer the transport's to fill.
                if (!operation.failed) {
                    ByteBuf memory = part.landed.memory();
                    if (part.kind == READ) {
                        land(operation.buffer, operation.index + part.offset, part);
                    } else if (part.kind == ATOMIC) {
                        operation.value = LITTLE_ENDIAN ? memory.getLongLE(part.landedOffset)
                                : memory.getLong(part.landedOffset);
                    }
                }
                landing.returnTo(part.landingMark);
            }
            done(part);
        }
    }

    /** Copies what {@code part} read out of its landing block into {@code destination} at {@code index}. */
    private static void land(ByteBuf destination, int index, Part part) {
        BufferCopy.copy(part.landed.memory(), part.landedOffset, destination, index, part.length);
    }

    /**
     * Fails the part whose request is {@code sequence} with {@code status}, and its operation; a part
     * of another operation in flight fails with its own completion, flushed.
     */
    void failed(long sequence, int status) {
        while (!posted.isEmpty() && posted.peek().sequence <= sequence) {
            Part part = posted.poll();
            if (part.landed != null) {
                landing.returnTo(part.landingMark);
            }
            // Where Writes are confirmed, a Write that failed unflushed may have met the peer's device
            // refusing it: a TERMINATE that arrived while siw was still sending it fails it with
            // IBV_WC_LOC_QP_OP_ERR, before its confirmation is sent.
            boolean unconfirmed = part.kind == CONFIRMATION
                    || part.kind == WRITE && confirmsWrites && status != WorkCompletionStatus.WR_FLUSH_ERR;
            OneSidedOperation operation = part.operation;
            if (!operation.failed) {
                operation.fail(unconfirmed ? unconfirmed(operation) : failure(operation, status));
            }
            done(part);
        }
    }

    /**
     * The failure of a Write whose confirmation did not come back: on iWARP the peer's device ends the
     * connection when it refuses a key, and nothing else says which key or why.
     */
    private static Throwable unconfirmed(OneSidedOperation operation) {
        return new RdmaRemoteAccessException(operation.what() + " was not confirmed placed: the connection ended "
                + "first, as an iWARP device ends it when it refuses a Write (a revoked key, a key exposed on another "
                + "connection, bytes past the region or no write access), and as it ends when the peer goes away or "
                + "this channel closes; the connection is closed");
    }

    private static Throwable failure(OneSidedOperation operation, int status) {
        if (status == WorkCompletionStatus.WR_FLUSH_ERR) {
            ClosedChannelException closed = new ClosedChannelException();
            closed.initCause(new IOException(operation.what() + " was flushed: the connection failed or closed first"));
            return closed;
        }
        if (status == WorkCompletionStatus.REM_ACCESS_ERR) {
            return new RdmaRemoteAccessException(operation.what() + " refused by the peer's device: the key is revoked "
                    + "or was exposed on another connection, or the region does not grant the access or hold the "
                    + "bytes named (" + WorkCompletionStatus.name(status) + "); the connection is closed");
        }
        return new IOException(operation.what() + " failed: " + WorkCompletionStatus.describe(status)
                + "; the connection is closed");
    }

    /**
     * Fails every operation still waiting or in flight and gives the landing blocks back: the queue
     * pair is destroyed, the device writes nothing any more.
     */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        // A Write whose confirmation is in flight was sent whole, and may have been refused: say so
        // before its parts still in flight fail it as merely closed.
        for (Part part : posted) {
            if (part.kind == CONFIRMATION && !part.operation.failed) {
                part.operation.fail(unconfirmed(part.operation));
            }
        }
        // Polled, not iterated: a completion told here may start another operation, which add() fails.
        ClosedChannelException cause = new ClosedChannelException();
        failAll(posted, cause);
        failAll(waiting, cause);
        landing.close();
    }

    private void failAll(ArrayDeque<Part> parts, Throwable cause) {
        for (Part part = parts.poll(); part != null; part = parts.poll()) {
            part.operation.fail(cause);
            done(part);
        }
    }

    /** Describes {@code verb} of {@code length} bytes at {@code offset} of {@code remote}, for an error message. */
    public static String describe(String verb, RemoteRegion remote, long offset, int length) {
        return verb + " of " + length + " bytes at offset " + offset + " of " + remote;
    }
}
