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
package org.nettyrdma.channel.rdma;

import static io.netty.util.internal.ObjectUtil.checkNotNull;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import org.nettyrdma.channel.rdma.connection.ExposedMemory;
import org.nettyrdma.channel.rdma.connection.OneSidedOperation;
import org.nettyrdma.channel.rdma.connection.OneSidedOperationPool;
import org.nettyrdma.channel.rdma.connection.OneSidedRequests;
import org.nettyrdma.channel.rdma.connection.RdmaConnection;
import org.nettyrdma.channel.rdma.internal.WorkRequests;
import org.nettyrdma.channel.rdma.memory.ExposableMemory;
import org.nettyrdma.channel.rdma.memory.MemoryRegion;
import org.nettyrdma.channel.rdma.memory.ProtectionDomain;

/**
 * RDMA's memory semantics on one {@link RdmaSocketChannel} ({@link RdmaSocketChannel#oneSided()}): expose
 * memory to the peer, and read, write and update memory the peer exposed, without the peer's CPU taking part
 * (docs/one-sided.md).
 *
 * <p>Every method may be called from any thread and returns at once; the work runs on the channel's event
 * loop, where the futures complete. Each operation comes in two forms: one returns a {@link Future}; the
 * other takes a {@link OneSidedCompletion}, which the caller keeps and passes to every call, told the result
 * as a {@code long} (and a Read fills a buffer the caller keeps), so that a steady run of operations
 * allocates nothing: no promise, no boxed value, no result buffer, and the transport's own records of the
 * operation are recycled (docs/one-sided.md). An operation is posted on the connection's send queue after the
 * bytes the channel flushed before it, and waits for room there rather than failing. A Read or an atomic sees
 * every Write of this side posted before it. What the peer's application did with the stream meanwhile is not
 * ordered with it: a reader that must see the peer's update waits for the peer's word that it is done, or
 * checks a version, as the examples do.
 *
 * <p>Errors, told to the future or the completion alike: arguments outside the descriptor (bounds, access,
 * alignment) fail the operation with an {@link IllegalArgumentException} before anything is posted (a
 * {@code null} argument throws a {@link NullPointerException} instead); a channel not connected, or closed,
 * with a {@link ClosedChannelException}; an operation or access the channel's device cannot run (an atomic
 * where the device has no atomics) with an {@link UnsupportedOperationException} naming the device and what
 * it lacks, before anything is posted (docs/devices.md); a request the peer's device refused with an
 * {@link RdmaRemoteAccessException}, after which the channel closes, as the device put the connection in the
 * error state.
 */
public final class OneSidedOperations {

    private final RdmaSocketChannel channel;
    /** The channel's operation records, reused by every call on any thread. */
    private final OneSidedOperationPool operations = new OneSidedOperationPool(this::post);

    OneSidedOperations(RdmaSocketChannel channel) {
        this.channel = channel;
    }

    /**
     * Returns a buffer of {@code capacity} bytes of zeroed direct memory, empty, whose memory never
     * moves: the only kind {@link #expose} accepts, with its slices and duplicates. It cannot grow
     * past {@code capacity}; its memory is freed when its last reference is released, which an
     * exposure holds until revoked. One buffer may be exposed on several channels, each exposure
     * holding a reference of its own.
     */
    public static ByteBuf allocateExposable(int capacity) {
        return ExposableMemory.allocate(ByteBufAllocator.DEFAULT, capacity);
    }

    /**
     * Exposes the readable bytes of {@code buffer}, a buffer of {@link #allocateExposable} or derived
     * from one, to this channel's peer with {@code access}, and no other access: the future's
     * {@link ExposedRegion} holds a retained reference until revoked or the channel closes, and its
     * descriptor is what the peer needs. Only on a channel with {@link RdmaChannelOption#EXPOSE_MEMORY},
     * whose key works on this connection alone. Any other buffer fails the future with an
     * {@link IllegalArgumentException}: its memory moves when it grows, and the old memory, freed, would
     * stay reachable by the peer. {@link RemoteAccess#ATOMIC} on a device without atomics fails it with an
     * {@link UnsupportedOperationException}.
     */
    public Future<ExposedRegion> expose(ByteBuf buffer, RemoteAccess first, RemoteAccess... rest) {
        Promise<ExposedRegion> promise = channel.eventLoop().newPromise();
        Set<RemoteAccess> access = EnumSet.of(first, rest);
        if (!ExposableMemory.isExposable(buffer)) {
            return promise.setFailure(new IllegalArgumentException("the memory of " + buffer + " can move: a "
                    + "buffer that grows frees its old memory, which the peer could still reach; expose a buffer "
                    + "of OneSidedOperations.allocateExposable(capacity), whose memory never moves"));
        }
        if (buffer.readableBytes() == 0) {
            return promise.setFailure(new IllegalArgumentException("no readable bytes to expose: " + buffer));
        }
        buffer.retain();
        onLoop(promise, buffer, () -> {
            Throwable unavailable = unavailability();
            if (unavailable != null) {
                buffer.release();
                promise.setFailure(unavailable);
                return;
            }
            RdmaConnection connection = channel.connection;
            if (access.contains(RemoteAccess.ATOMIC) && !connection.device().verbs().atomics()) {
                buffer.release();
                promise.setFailure(noAtomics(connection, "exposing memory with remote atomic access"));
                return;
            }
            ExposedMemory exposedMemory = connection.exposedMemory();
            ProtectionDomain pd = exposedMemory.ownProtectionDomain();
            if (pd == null) {
                buffer.release();
                promise.setFailure(new IllegalStateException("this channel shares its device's protection domain, "
                        + "where a key would reach other connections' memory: set RdmaChannelOption.EXPOSE_MEMORY "
                        + "(a child option on a server) before it connects"));
                return;
            }
            long address = buffer.memoryAddress() + buffer.readerIndex();
            int length = buffer.readableBytes();
            MemoryRegion region;
            try {
                region = MemoryRegion.register(pd.handle(), address, length, RemoteAccess.verbsFlags(access),
                        "an exposed region");
            } catch (IOException e) {
                buffer.release();
                promise.setFailure(e);
                return;
            }
            pd.retain();
            ExposedRegion[] exposed = new ExposedRegion[1];
            Runnable revokeNow = () -> exposed[0].revokeNow();
            exposed[0] = new ExposedRegion(channel.eventLoop(), buffer,
                    new RemoteRegion(address, length, region.rkey(), access), region, pd,
                    () -> exposedMemory.revoked(revokeNow));
            exposedMemory.exposed(revokeNow);
            promise.setSuccess(exposed[0]);
        });
        return promise;
    }

    /**
     * Reads {@code length} bytes at {@code offset} of {@code remote} with RDMA Read: the future's
     * buffer, the caller's to release, holds them.
     */
    public Future<ByteBuf> read(RemoteRegion remote, long offset, int length) {
        Promise<ByteBuf> promise = channel.eventLoop().newPromise();
        IllegalArgumentException refused = refusal(remote, RemoteAccess.READ, offset, length,
                OneSidedOperation.READ_VERB);
        if (refused != null) {
            return promise.setFailure(refused);
        }
        ByteBuf result = channel.alloc().buffer(length, length);
        submit(operations.read(remote, offset, length, result, 0,
                PromiseCompletion.read(promise, result)));
        return promise;
    }

    /**
     * Reads {@code length} bytes at {@code offset} of {@code remote} with RDMA Read into
     * {@code destination} from its writer index, which advances by {@code length} before
     * {@code completion} is told the bytes read; unlike {@link #read(RemoteRegion, long, int)}, it
     * allocates nothing once warm. {@code destination} grows now if it must, stays the caller's (it
     * is never released here) and must not be touched until the completion: on a failure its bytes
     * past the writer index are undefined and the writer index stays.
     */
    public void read(RemoteRegion remote, long offset, ByteBuf destination, int length,
                     OneSidedCompletion completion) {
        checkNotNull(destination, "destination");
        checkNotNull(completion, "completion");
        IllegalArgumentException refused = refusal(remote, RemoteAccess.READ, offset, length,
                OneSidedOperation.READ_VERB);
        if (refused == null && destination.maxWritableBytes() < length) {
            refused = new IllegalArgumentException(OneSidedRequests.describe(OneSidedOperation.READ_VERB, remote,
                    offset, length) + ": the destination has room for " + destination.maxWritableBytes() + " bytes");
        }
        if (refused != null) {
            refuse(completion, refused);
            return;
        }
        destination.ensureWritable(length);
        submit(operations.read(remote, offset, length, destination, destination.writerIndex(),
                completion));
    }

    /**
     * Writes the readable bytes of {@code source} at {@code offset} of {@code remote} with RDMA Write,
     * which the peer's CPU does not see; {@code source} is released once sent, or on failure.
     */
    public Future<Void> write(RemoteRegion remote, long offset, ByteBuf source) {
        Promise<Void> promise = channel.eventLoop().newPromise();
        write(remote, offset, source, PromiseCompletion.write(promise));
        return promise;
    }

    /**
     * Writes as {@link #write(RemoteRegion, long, ByteBuf)} does, {@code source} released alike (retain
     * it to write it again), then tells {@code completion} the bytes written, allocating nothing once
     * warm.
     */
    public void write(RemoteRegion remote, long offset, ByteBuf source, OneSidedCompletion completion) {
        checkNotNull(source, "source");
        checkNotNull(completion, "completion");
        IllegalArgumentException refused = refusal(remote, RemoteAccess.WRITE, offset, source.readableBytes(),
                OneSidedOperation.WRITE_VERB);
        if (refused != null) {
            source.release();
            refuse(completion, refused);
            return;
        }
        submit(operations.write(remote, offset, source, completion));
    }

    /**
     * Compares the 8-byte word at {@code offset} of {@code remote} with {@code expect} and, if equal,
     * replaces it with {@code update}, atomically with respect to every atomic on the word; the future
     * holds the word's value before, {@code expect} if the swap happened. The word is an integer in the
     * exposing host's byte order.
     */
    public Future<Long> compareAndSwap(RemoteRegion remote, long offset, long expect, long update) {
        Promise<Long> promise = channel.eventLoop().newPromise();
        compareAndSwap(remote, offset, expect, update, PromiseCompletion.atomic(promise));
        return promise;
    }

    /**
     * Compares and swaps as {@link #compareAndSwap(RemoteRegion, long, long, long)} does, then tells
     * {@code completion} the word's value before, unboxed, allocating nothing once warm.
     */
    public void compareAndSwap(RemoteRegion remote, long offset, long expect, long update,
                               OneSidedCompletion completion) {
        atomic(remote, offset, WorkRequests.OPCODE_ATOMIC_CMP_AND_SWP, expect, update, "a compare-and-swap",
                completion);
    }

    /**
     * Adds {@code delta} to the 8-byte word at {@code offset} of {@code remote}, atomically with respect
     * to every atomic on the word; the future holds the word's value before.
     */
    public Future<Long> fetchAndAdd(RemoteRegion remote, long offset, long delta) {
        Promise<Long> promise = channel.eventLoop().newPromise();
        fetchAndAdd(remote, offset, delta, PromiseCompletion.atomic(promise));
        return promise;
    }

    /**
     * Adds as {@link #fetchAndAdd(RemoteRegion, long, long)} does, then tells {@code completion} the
     * word's value before, unboxed, allocating nothing once warm.
     */
    public void fetchAndAdd(RemoteRegion remote, long offset, long delta, OneSidedCompletion completion) {
        atomic(remote, offset, WorkRequests.OPCODE_ATOMIC_FETCH_AND_ADD, delta, 0, "a fetch-and-add", completion);
    }

    /** {@code verb} names the operation in error messages, which are made only when one fails. */
    private void atomic(RemoteRegion remote, long offset, int opcode, long compareAdd, long swap, String verb,
                        OneSidedCompletion completion) {
        checkNotNull(completion, "completion");
        IllegalArgumentException refused = refusal(remote, RemoteAccess.ATOMIC, offset, Long.BYTES, verb);
        if (refused == null && (remote.address() + offset) % Long.BYTES != 0) {
            refused = new IllegalArgumentException(OneSidedRequests.describe(verb, remote, offset, Long.BYTES)
                    + ": the word is not 8-byte aligned");
        }
        if (refused != null) {
            refuse(completion, refused);
            return;
        }
        submit(operations.atomic(remote, offset, opcode, compareAdd, swap, verb, completion));
    }

    /**
     * Posts {@code operation} on the event loop, at once when called there, where no task is made;
     * from another thread the operation is itself the task. If the loop is gone, fails it here.
     */
    private void submit(OneSidedOperation operation) {
        EventLoop loop = channel.eventLoop();
        if (loop.inEventLoop()) {
            post(operation);
            return;
        }
        try {
            loop.execute(operation);
        } catch (RejectedExecutionException e) {
            operation.fail(new ClosedChannelException());
        }
    }

    /** Adds {@code operation}'s requests to the connection and posts them, or fails it; on the event loop. */
    private void post(OneSidedOperation operation) {
        Throwable unavailable = unavailability();
        RdmaConnection connection = channel.connection;
        if (unavailable == null && operation.isAtomic() && !connection.device().verbs().atomics()) {
            unavailable = noAtomics(connection, operation.verb());
        }
        if (unavailable != null) {
            operation.fail(unavailable);
            return;
        }
        connection.oneSided().add(operation);
        connection.postOneSided();
    }

    /** Tells {@code completion} of {@code cause} on the event loop, or here if the loop is gone. */
    private void refuse(OneSidedCompletion completion, Throwable cause) {
        EventLoop loop = channel.eventLoop();
        if (!loop.inEventLoop()) {
            try {
                loop.execute(() -> completion.operationComplete(0, cause));
                return;
            } catch (RejectedExecutionException e) {
                // Told here, as the interface allows once the loop has shut down.
            }
        }
        completion.operationComplete(0, cause);
    }

    /** Returns the error of {@code operation}, which needs atomics, on a connection whose device has none. */
    private static UnsupportedOperationException noAtomics(RdmaConnection connection, String operation) {
        return connection.device().verbs().unsupported(operation, "atomics", "atomic_cap NONE");
    }

    /** Returns why the request is outside what {@code remote} says it grants, or {@code null} if it is not. */
    private static IllegalArgumentException refusal(RemoteRegion remote, RemoteAccess access, long offset, int length,
                                                    String verb) {
        checkNotNull(remote, "remote");
        if (!remote.grants(access)) {
            return new IllegalArgumentException(OneSidedRequests.describe(verb, remote, offset, length)
                    + ": the region does not grant " + access);
        }
        if (length <= 0 || offset < 0 || offset > remote.length() - length) {
            return new IllegalArgumentException(OneSidedRequests.describe(verb, remote, offset, length)
                    + ": outside the region's " + remote.length() + " bytes, or empty");
        }
        return null;
    }

    /** Returns why no one-sided request can be posted now, or {@code null} if one can: on the event loop. */
    private Throwable unavailability() {
        TcpCarrier tcp = channel.carrier;
        if (tcp != null) {
            return tcp.oneSidedUnsupported();
        }
        RdmaConnection connection = channel.connection;
        if (connection == null || !channel.isActive()) {
            return new ClosedChannelException();
        }
        return null;
    }

    /**
     * Runs {@code task} on the event loop, at once when called there; if the loop is gone, fails
     * {@code promise} and releases {@code held}.
     */
    private void onLoop(Promise<?> promise, ByteBuf held, Runnable task) {
        EventLoop loop = channel.eventLoop();
        if (loop.inEventLoop()) {
            task.run();
            return;
        }
        try {
            loop.execute(task);
        } catch (RejectedExecutionException e) {
            if (held != null) {
                held.release();
            }
            promise.tryFailure(new ClosedChannelException());
        }
    }
}
