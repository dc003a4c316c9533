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
import io.netty.util.concurrent.ImmediateEventExecutor;
import io.netty.util.concurrent.Promise;
import org.nettyrdma.channel.rdma.RdmaRemoteAccessException;
import org.nettyrdma.channel.rdma.RemoteRegion;
import org.nettyrdma.channel.rdma.internal.WorkCompletionStatus;
import org.nettyrdma.channel.rdma.internal.WorkRequests;
import org.nettyrdma.channel.rdma.memory.SendBlocks;
import org.nettyrdma.channel.rdma.memory.StagingBlock;

/**
 * The one-sided requests of one connection ({@code OneSidedOperations}): each operation becomes one
 * or more work requests on the connection's send queue, posted in the order asked, after what the
 * channel flushed before, and waiting for send queue room or landing memory rather than failing.
 * RDMA Read data and atomic results land in blocks registered with local write access for this
 * connection ({@link #landing}), since the shared pool's are the device's to read only; Write data is
 * staged like a Send's. Every request is signaled: its completion completes its operation's part.
 *
 * <p>Used on the channel's event loop only.
 */
public final class OneSidedRequests {

    /** The names of the operations in error messages. */
    public static final String READ_VERB = "an RDMA Read";
    public static final String WRITE_VERB = "an RDMA Write";

    private static final int READ = 0;
    private static final int WRITE = 1;
    private static final int ATOMIC = 2;
    /** A zero-length Read after a Write, answered once the Write is placed (iWARP only). */
    private static final int CONFIRMATION = 3;
    /** A zero-length Read that only makes the peer's device read what came before it ({@link HelloNudge}). */
    private static final int NUDGE = 4;
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    /** One operation the application asked for: its promise, and what its requests fill or send. */
    public static final class Operation {
        final Promise<Object> promise;
        /** The buffer a Read fills, or the bytes a Write sends; {@code null} for an atomic. */
        final ByteBuf buffer;
        /** A Read's buffer goes to the application; a Write's bytes are the operation's to release. */
        final boolean handsBufferUp;
        /** What the operation is, kept in parts: the message is made only if the operation fails. */
        private final String verb;
        private final RemoteRegion remote;
        private final long offset;
        private final int length;
        int partsLeft;
        long value;
        boolean failed;

        public Operation(Promise<Object> promise, ByteBuf buffer, boolean handsBufferUp, String verb, RemoteRegion remote,
                         long offset, int length) {
            this.promise = promise;
            this.buffer = buffer;
            this.handsBufferUp = handsBufferUp;
            this.verb = verb;
            this.remote = remote;
            this.offset = offset;
            this.length = length;
        }

        /** Returns the bytes the operation moves. */
        public int length() {
            return length;
        }

        /** Returns the address of the operation's first byte in the peer's memory. */
        public long remoteAddress() {
            return remote.address() + offset;
        }

        /** Returns the key the peer granted the region with. */
        public int rkey() {
            return remote.rkey();
        }

        /** Says what the operation is, for the message of its failure. */
        String what() {
            return describe(verb, remote, offset, length);
        }
    }

    /** One work request of an operation. */
    private static final class Part {
        final Operation operation;
        final int kind;
        final int opcode;
        final int offset;
        final int length;
        final long remoteAddress;
        final int rkey;
        final long compareAdd;
        final long swap;
        long sequence;
        StagingBlock landed;
        int landedOffset;
        long landingMark;

        Part(Operation operation, int kind, int opcode, int offset, int length, long remoteAddress, int rkey,
             long compareAdd, long swap) {
            this.operation = operation;
            this.kind = kind;
            this.opcode = opcode;
            this.offset = offset;
            this.length = length;
            this.remoteAddress = remoteAddress;
            this.rkey = rkey;
            this.compareAdd = compareAdd;
            this.swap = swap;
        }
    }

    private final RdmaSender sender;
    private final SendBlocks landing;
    /** Whether a Write is followed by a {@link #CONFIRMATION}: its own completion does not say it was placed. */
    private final boolean confirmsWrites;
    private final ArrayDeque<Part> waiting = new ArrayDeque<>();
    private final ArrayDeque<Part> posted = new ArrayDeque<>();
    private boolean closed;

    OneSidedRequests(RdmaSender sender, SendBlocks landing, boolean confirmsWrites) {
        this.sender = sender;
        this.landing = landing;
        this.confirmsWrites = confirmsWrites;
    }

    /** Returns the largest request: a Read lands in one region of a landing block, a Write is staged in one. */
    public int largestRequest() {
        return Math.min(landing.largestRegion(), sender.largestStagedRegion());
    }

    /** Adds a Read of {@code length} bytes at {@code remoteAddress} into {@code operation}'s buffer at {@code offset}. */
    public void read(Operation operation, int offset, int length, long remoteAddress, int rkey) {
        add(new Part(operation, READ, WorkRequests.OPCODE_RDMA_READ, offset, length, remoteAddress, rkey, 0, 0));
    }

    /** Adds a Write of {@code length} bytes of {@code operation}'s buffer from {@code offset} to {@code remoteAddress}. */
    public void write(Operation operation, int offset, int length, long remoteAddress, int rkey) {
        add(new Part(operation, WRITE, WorkRequests.OPCODE_RDMA_WRITE, offset, length, remoteAddress, rkey, 0, 0));
    }

    /**
     * Ends a Write's requests: where a Write's completion does not say that the peer's device placed it
     * (iWARP, {@link org.nettyrdma.channel.rdma.memory.DeviceVerbs#writeCompletionsConfirmPlacement()}),
     * adds a zero-length RDMA Read after them, which the peer's device answers only once it placed the
     * Writes before it; a key it refused ends the connection instead, and the operation fails.
     */
    public void endWrite(Operation operation) {
        if (confirmsWrites) {
            add(new Part(operation, CONFIRMATION, WorkRequests.OPCODE_RDMA_READ, 0, 0, operation.remoteAddress(),
                    operation.rkey(), 0, 0));
        }
    }

    /**
     * Adds a zero-length RDMA Read of nothing, which needs no key and no landing memory: the peer's
     * device answers it after reading whatever came before it ({@link HelloNudge}).
     */
    void nudge() {
        Operation operation = new Operation(ImmediateEventExecutor.INSTANCE.newPromise(), null, false,
                "a zero-length RDMA Read that nudges the peer's device", null, 0, 0);
        add(new Part(operation, NUDGE, WorkRequests.OPCODE_RDMA_READ, 0, 0, 0, 0, 0, 0));
    }

    /** Adds an atomic ({@code opcode}) on the word at {@code remoteAddress}. */
    public void atomic(Operation operation, int opcode, long remoteAddress, int rkey, long compareAdd, long swap) {
        add(new Part(operation, ATOMIC, opcode, 0, Long.BYTES, remoteAddress, rkey, compareAdd, swap));
    }

    private void add(Part part) {
        part.operation.partsLeft++;
        waiting.add(part);
    }

    /** Posts the requests that wait, in order, as far as the send queue and the landing memory allow. */
    void postWaiting() throws IOException {
        while (!closed && !waiting.isEmpty()) {
            Part part = waiting.peek();
            if (part.operation.failed) {
                waiting.poll();
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
            ByteBuf source = part.operation.buffer;
            part.sequence = sender.postWrite(source, source.readerIndex() + part.offset, part.length,
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
            Operation operation = part.operation;
            if (part.landed != null) {
                ByteBuf memory = part.landed.memory();
                if (part.kind == READ) {
                    operation.buffer.setBytes(part.offset, memory, part.landedOffset, part.length);
                } else if (part.kind == ATOMIC) {
                    operation.value = LITTLE_ENDIAN ? memory.getLongLE(part.landedOffset)
                            : memory.getLong(part.landedOffset);
                }
                landing.returnTo(part.landingMark);
            }
            if (--operation.partsLeft == 0 && !operation.failed) {
                succeed(operation);
            }
        }
    }

    private static void succeed(Operation operation) {
        if (operation.buffer == null) {
            operation.promise.trySuccess(operation.value);
        } else if (operation.handsBufferUp) {
            if (!operation.promise.trySuccess(operation.buffer)) {
                // Cancelled meanwhile: nobody takes the bytes.
                operation.buffer.release();
            }
        } else {
            operation.buffer.release();
            operation.promise.trySuccess(null);
        }
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
            fail(part.operation, unconfirmed ? unconfirmed(part.operation) : failure(part.operation, status));
        }
    }

    /**
     * The failure of a Write whose confirmation did not come back: on iWARP the peer's device ends the
     * connection when it refuses a key, and nothing else says which key or why.
     */
    private static Throwable unconfirmed(Operation operation) {
        return new RdmaRemoteAccessException(operation.what() + " was not confirmed placed: the connection ended "
                + "first, as an iWARP device ends it when it refuses a Write (a revoked key, a key exposed on another "
                + "connection, bytes past the region or no write access), and as it ends when the peer goes away or "
                + "this channel closes; the connection is closed");
    }

    private static Throwable failure(Operation operation, int status) {
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

    private static void fail(Operation operation, Throwable cause) {
        if (operation.failed) {
            return;
        }
        operation.failed = true;
        operation.promise.tryFailure(cause);
        if (operation.buffer != null) {
            operation.buffer.release();
        }
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
            if (part.kind == CONFIRMATION) {
                fail(part.operation, unconfirmed(part.operation));
            }
        }
        ClosedChannelException cause = new ClosedChannelException();
        for (Part part : posted) {
            fail(part.operation, cause);
        }
        for (Part part : waiting) {
            fail(part.operation, cause);
        }
        posted.clear();
        waiting.clear();
        landing.close();
    }

    /** Describes {@code verb} of {@code length} bytes at {@code offset} of {@code remote}, for an error message. */
    public static String describe(String verb, RemoteRegion remote, long offset, int length) {
        return verb + " of " + length + " bytes at offset " + offset + " of " + remote;
    }

    /** Fails {@code operation} before any of its requests was posted: the channel is not connected, say. */
    static void refuse(Operation operation, Throwable cause) {
        fail(operation, cause);
    }
}
