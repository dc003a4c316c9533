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

import java.util.Queue;
import java.util.function.Consumer;

import io.netty.buffer.ByteBuf;
import io.netty.util.internal.PlatformDependent;
import org.nettyrdma.channel.rdma.OneSidedCompletion;
import org.nettyrdma.channel.rdma.RemoteRegion;

/**
 * The {@link OneSidedOperation} records of one channel, given back once done and taken again by the
 * next call, whichever thread makes it. Netty's {@code Recycler} pools only on Netty's own threads
 * (4.2 makes a new object each time elsewhere), and an application's thread calling a one-sided
 * operation would leave a record per call; a bounded queue the channel owns serves every thread.
 * It keeps at most {@link #CAPACITY} records: as many operations in flight at once reuse theirs,
 * more are made and dropped. The queue is made on first use, as most channels make no one-sided call.
 *
 * <p>Thread-safe: records are taken on the calling threads and given back on the event loop.
 */
public final class OneSidedOperationPool {

    /** The records kept; a channel rarely has more operations in flight. */
    static final int CAPACITY = 64;

    private final Consumer<OneSidedOperation> poster;
    private volatile Queue<OneSidedOperation> spares;

    /** Creates the pool of a channel whose operations {@code poster} posts on its event loop. */
    public OneSidedOperationPool(Consumer<OneSidedOperation> poster) {
        this.poster = poster;
    }

    /**
     * Returns a Read of {@code length} bytes at {@code offset} of {@code remote} into
     * {@code destination} from {@code index}.
     */
    public OneSidedOperation read(RemoteRegion remote, long offset, int length, ByteBuf destination, int index,
                                  OneSidedCompletion completion) {
        OneSidedOperation operation = take().fill(OneSidedOperation.Kind.READ, OneSidedOperation.READ_VERB, remote,
                offset, length, completion);
        operation.buffer = destination;
        operation.index = index;
        return operation;
    }

    /** Returns a Write of the readable bytes of {@code source}, which it releases once sent or failed. */
    public OneSidedOperation write(RemoteRegion remote, long offset, ByteBuf source, OneSidedCompletion completion) {
        OneSidedOperation operation = take().fill(OneSidedOperation.Kind.WRITE, OneSidedOperation.WRITE_VERB, remote,
                offset, source.readableBytes(), completion);
        operation.buffer = source;
        operation.index = source.readerIndex();
        return operation;
    }

    /**
     * Returns an atomic ({@code opcode}, named {@code verb} in errors) on the word at {@code offset}
     * of {@code remote}.
     */
    public OneSidedOperation atomic(RemoteRegion remote, long offset, int opcode, long compareAdd, long swap,
                                    String verb, OneSidedCompletion completion) {
        OneSidedOperation operation = take().fill(OneSidedOperation.Kind.ATOMIC, verb, remote, offset, Long.BYTES,
                completion);
        operation.opcode = opcode;
        operation.compareAdd = compareAdd;
        operation.swap = swap;
        return operation;
    }

    private OneSidedOperation take() {
        OneSidedOperation operation = spares().poll();
        return operation != null ? operation : new OneSidedOperation(this);
    }

    /** Takes back {@code operation}, done; dropped if the pool is full. */
    void giveBack(OneSidedOperation operation) {
        spares().offer(operation);
    }

    /** Posts {@code operation}, carried to the event loop. */
    void post(OneSidedOperation operation) {
        poster.accept(operation);
    }

    private Queue<OneSidedOperation> spares() {
        Queue<OneSidedOperation> queue = spares;
        if (queue == null) {
            synchronized (this) {
                queue = spares;
                if (queue == null) {
                    queue = PlatformDependent.newFixedMpmcQueue(CAPACITY);
                    spares = queue;
                }
            }
        }
        return queue;
    }
}
