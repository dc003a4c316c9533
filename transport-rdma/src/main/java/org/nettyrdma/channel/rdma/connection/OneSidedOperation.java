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

import io.netty.buffer.ByteBuf;
import org.nettyrdma.channel.rdma.OneSidedCompletion;
import org.nettyrdma.channel.rdma.RemoteRegion;

/**
 * One operation an application asked for on a channel's {@code OneSidedOperations}: what it is, the
 * completion to tell, and what its work requests ({@link OneSidedRequests}) fill or send. Taken from
 * the channel's {@link OneSidedOperationPool} where the call is made and given back once its last
 * request is done, so that a steady run of operations leaves no garbage; called from another thread
 * than the loop's, the operation is itself the task that carries it there, as Netty's own write tasks
 * are.
 *
 * <p>Filled on the calling thread; from {@link #run()} on, used on the channel's event loop only.
 */
public final class OneSidedOperation implements Runnable {

    /** What an operation is. */
    enum Kind {
        /** An RDMA Read into the caller's buffer from its index. */
        READ,
        /** An RDMA Write of the caller's buffer, which the operation releases. */
        WRITE,
        /** An atomic on one 8-byte word, whose old value is the result. */
        ATOMIC,
        /** A zero-length RDMA Read of the transport's own ({@link HelloNudge}), told to nobody. */
        NUDGE
    }

    /** The names of the operations in error messages. */
    public static final String READ_VERB = "an RDMA Read";
    public static final String WRITE_VERB = "an RDMA Write";

    private static final OneSidedCompletion NOBODY = (result, cause) -> { };

    /** Where it goes back to, and what posts it on the loop; {@code null} for the transport's own. */
    private final OneSidedOperationPool pool;
    private OneSidedCompletion completion;
    Kind kind;
    /** The buffer a Read fills from {@link #index}, or the bytes a Write sends; {@code null} otherwise. */
    ByteBuf buffer;
    int index;
    /** What the operation is, kept in parts: the message is made only if the operation fails. */
    private String verb;
    private RemoteRegion remote;
    private long offset;
    private int length;
    int opcode;
    long compareAdd;
    long swap;
    /** The requests added for it whose completion has not come: it is given back when none is left. */
    int partsLeft;
    long value;
    /** Its completion was told of a failure; its requests still in flight only end. */
    boolean failed;

    OneSidedOperation(OneSidedOperationPool pool) {
        this.pool = pool;
    }

    /** Fills a record fresh from its pool; what only some kinds use is set by the caller. */
    OneSidedOperation fill(Kind kind, String verb, RemoteRegion remote, long offset, int length,
                           OneSidedCompletion completion) {
        this.kind = kind;
        this.verb = verb;
        this.remote = remote;
        this.offset = offset;
        this.length = length;
        this.completion = completion;
        partsLeft = 0;
        value = 0;
        failed = false;
        return this;
    }

    /** Returns the transport's zero-length Read that makes the peer's device read what came before it. */
    static OneSidedOperation nudge() {
        return new OneSidedOperation(null).fill(Kind.NUDGE, "a zero-length RDMA Read that nudges the peer's device",
                null, 0, 0, NOBODY);
    }

    /** Returns {@code true} for an atomic, which needs a device with atomics. */
    public boolean isAtomic() {
        return kind == Kind.ATOMIC;
    }

    /** Returns what the operation is called in error messages. */
    public String verb() {
        return verb;
    }

    /** Returns the bytes the operation moves. */
    int length() {
        return length;
    }

    /** Returns the address of the operation's first byte in the peer's memory. */
    long remoteAddress() {
        return remote.address() + offset;
    }

    /** Returns the key the peer granted the region with. */
    int rkey() {
        return remote.rkey();
    }

    /** Says what the operation is, for the message of its failure. */
    String what() {
        return OneSidedRequests.describe(verb, remote, offset, length);
    }

    /** Carried to the event loop: posts the operation there. */
    @Override
    public void run() {
        pool.post(this);
    }

    /** Its last request is done and it did not fail: the result is whole. */
    void succeed() {
        OneSidedCompletion told = completion;
        long result = kind == Kind.ATOMIC ? value : length;
        if (kind == Kind.READ) {
            buffer.writerIndex(index + length);
        } else if (kind == Kind.WRITE) {
            buffer.release();
        }
        // Given back before the completion runs: an operation it starts takes this one again.
        recycle();
        told.operationComplete(result, null);
    }

    /**
     * Fails the operation with {@code cause}, unless it failed already: a Write's bytes are released
     * and the completion told now, and the operation is given back once none of its requests is left.
     */
    public void fail(Throwable cause) {
        if (failed) {
            return;
        }
        failed = true;
        OneSidedCompletion told = completion;
        if (kind == Kind.WRITE) {
            buffer.release();
        }
        if (partsLeft == 0) {
            recycle();
        }
        told.operationComplete(0, cause);
    }

    /**
     * One of its requests is done; after the last, a successful operation succeeds and a failed one,
     * told already, is given back.
     */
    void partDone() {
        if (--partsLeft == 0) {
            if (failed) {
                recycle();
            } else {
                succeed();
            }
        }
    }

    private void recycle() {
        // Nothing of the caller's stays reachable from the pool.
        completion = null;
        buffer = null;
        remote = null;
        verb = null;
        if (pool != null) {
            pool.giveBack(this);
        }
    }
}
