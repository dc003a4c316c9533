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
import org.nettyrdma.channel.rdma.connection.OneSidedRequests;
import org.nettyrdma.channel.rdma.connection.RdmaConnection;
import org.nettyrdma.channel.rdma.internal.WorkRequests;
import org.nettyrdma.channel.rdma.memory.ExposableMemory;
import org.nettyrdma.channel.rdma.memory.MemoryRegion;
import org.nettyrdma.channel.rdma.memory.ProtectionDomain;

/**
 * RDMA's memory semantics on one {@link RdmaSocketChannel} ({@link RdmaSocketChannel#oneSided()}):
 * expose memory to the peer, and read, write and update memory the peer exposed, without the peer's
 * CPU taking part (docs/one-sided.md).
 *
 * <p>Every method may be called from any thread and returns at once; the work runs on the channel's
 * event loop, where the futures complete. An operation is posted on the connection's send queue after
 * the bytes the channel flushed before it, and waits for room there rather than failing. A Read or
 * an atomic sees every Write of this side posted before it. What the peer's application did with
 * the stream meanwhile is not ordered with it: a reader that must see the peer's update waits for the
 * peer's word that it is done, or checks a version, as the examples do.
 *
 * <p>Errors: arguments outside the descriptor (bounds, access, alignment) fail the future with an
 * {@link IllegalArgumentException} before anything is posted; a channel not connected, or closed, with
 * a {@link ClosedChannelException}; an operation or access the channel's device cannot run (an atomic
 * where the device has no atomics) with an {@link UnsupportedOperationException} naming the device and
 * what it lacks, before anything is posted (docs/devices.md); a request the peer's device refused with an
 * {@link RdmaRemoteAccessException}, after which the channel closes, as the device put the connection
 * in the error state.
 */
public final class OneSidedOperations {

    private final RdmaSocketChannel channel;

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
            RdmaConnection connection = connectedOrFail(promise);
            if (connection == null) {
                buffer.release();
                return;
            }
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
        if (refused(promise, remote, RemoteAccess.READ, offset, length, OneSidedRequests.READ_VERB)) {
            return promise;
        }
        if (channel.eventLoop().inEventLoop()) {
            postRead(promise, remote, offset, length);
        } else {
            onLoop(promise, null, () -> postRead(promise, remote, offset, length));
        }
        return promise;
    }

    private void postRead(Promise<ByteBuf> promise, RemoteRegion remote, long offset, int length) {
        RdmaConnection connection = connectedOrFail(promise);
        if (connection == null) {
            return;
        }
        ByteBuf result = channel.alloc().buffer(length, length).writerIndex(length);
        postInParts(connection, new OneSidedRequests.Operation(erase(promise), result, true,
                OneSidedRequests.READ_VERB, remote, offset, length), true);
    }

    /**
     * Writes the readable bytes of {@code source} at {@code offset} of {@code remote} with RDMA Write,
     * which the peer's CPU does not see; {@code source} is released once sent, or on failure.
     */
    public Future<Void> write(RemoteRegion remote, long offset, ByteBuf source) {
        Promise<Void> promise = channel.eventLoop().newPromise();
        int length = source.readableBytes();
        if (refused(promise, remote, RemoteAccess.WRITE, offset, length, OneSidedRequests.WRITE_VERB)) {
            source.release();
            return promise;
        }
        if (channel.eventLoop().inEventLoop()) {
            postWrite(promise, remote, offset, source, length);
        } else {
            onLoop(promise, source, () -> postWrite(promise, remote, offset, source, length));
        }
        return promise;
    }

    private void postWrite(Promise<Void> promise, RemoteRegion remote, long offset, ByteBuf source, int length) {
        RdmaConnection connection = connectedOrFail(promise);
        if (connection == null) {
            source.release();
            return;
        }
        postInParts(connection, new OneSidedRequests.Operation(erase(promise), source, false,
                OneSidedRequests.WRITE_VERB, remote, offset, length), false);
    }

    /** Adds a Read's or a Write's requests, each at most the largest the connection takes, and posts them. */
    private static void postInParts(RdmaConnection connection, OneSidedRequests.Operation operation, boolean read) {
        OneSidedRequests requests = connection.oneSided();
        int length = operation.length();
        long remoteAddress = operation.remoteAddress();
        int rkey = operation.rkey();
        int largest = requests.largestRequest();
        for (int done = 0; done < length; done += largest) {
            int part = Math.min(largest, length - done);
            if (read) {
                requests.read(operation, done, part, remoteAddress + done, rkey);
            } else {
                requests.write(operation, done, part, remoteAddress + done, rkey);
            }
        }
        if (!read) {
            requests.endWrite(operation);
        }
        connection.postOneSided();
    }

    /**
     * Compares the 8-byte word at {@code offset} of {@code remote} with {@code expect} and, if equal,
     * replaces it with {@code update}, atomically with respect to every atomic on the word; the future
     * holds the word's value before, {@code expect} if the swap happened. The word is an integer in the
     * exposing host's byte order.
     */
    public Future<Long> compareAndSwap(RemoteRegion remote, long offset, long expect, long update) {
        return atomic(remote, offset, WorkRequests.OPCODE_ATOMIC_CMP_AND_SWP, expect, update, "a compare-and-swap");
    }

    /**
     * Adds {@code delta} to the 8-byte word at {@code offset} of {@code remote}, atomically with respect
     * to every atomic on the word; the future holds the word's value before.
     */
    public Future<Long> fetchAndAdd(RemoteRegion remote, long offset, long delta) {
        return atomic(remote, offset, WorkRequests.OPCODE_ATOMIC_FETCH_AND_ADD, delta, 0, "a fetch-and-add");
    }

    /** {@code verb} names the operation in error messages, which are made only when one fails. */
    private Future<Long> atomic(RemoteRegion remote, long offset, int opcode, long compareAdd, long swap, String verb) {
        Promise<Long> promise = channel.eventLoop().newPromise();
        if (refused(promise, remote, RemoteAccess.ATOMIC, offset, Long.BYTES, verb)) {
            return promise;
        }
        if ((remote.address() + offset) % Long.BYTES != 0) {
            return promise.setFailure(new IllegalArgumentException(
                    OneSidedRequests.describe(verb, remote, offset, Long.BYTES) + ": the word is not 8-byte aligned"));
        }
        if (channel.eventLoop().inEventLoop()) {
            postAtomic(promise, remote, offset, opcode, compareAdd, swap, verb);
        } else {
            onLoop(promise, null, () -> postAtomic(promise, remote, offset, opcode, compareAdd, swap, verb));
        }
        return promise;
    }

    private void postAtomic(Promise<Long> promise, RemoteRegion remote, long offset, int opcode, long compareAdd,
                            long swap, String verb) {
        RdmaConnection connection = connectedOrFail(promise);
        if (connection == null) {
            return;
        }
        if (!connection.device().verbs().atomics()) {
            promise.setFailure(noAtomics(connection, verb));
            return;
        }
        OneSidedRequests.Operation operation = new OneSidedRequests.Operation(erase(promise), null, false, verb,
                remote, offset, Long.BYTES);
        connection.oneSided().atomic(operation, opcode, remote.address() + offset, remote.rkey(), compareAdd, swap);
        connection.postOneSided();
    }

    /** Returns the error of {@code operation}, which needs atomics, on a connection whose device has none. */
    private static UnsupportedOperationException noAtomics(RdmaConnection connection, String operation) {
        return connection.device().verbs().unsupported(operation, "atomics", "atomic_cap NONE");
    }

    /** Fails {@code promise} if the request is outside what {@code remote} says it grants. */
    private static boolean refused(Promise<?> promise, RemoteRegion remote, RemoteAccess access, long offset,
                                   int length, String verb) {
        if (!remote.grants(access)) {
            promise.setFailure(new IllegalArgumentException(OneSidedRequests.describe(verb, remote, offset, length)
                    + ": the region does not grant " + access));
            return true;
        }
        if (length <= 0 || offset < 0 || offset > remote.length() - length) {
            promise.setFailure(new IllegalArgumentException(OneSidedRequests.describe(verb, remote, offset, length)
                    + ": outside the region's " + remote.length()
                    + " bytes, or empty"));
            return true;
        }
        return false;
    }

    private RdmaConnection connectedOrFail(Promise<?> promise) {
        TcpCarrier tcp = channel.carrier;
        if (tcp != null) {
            promise.setFailure(tcp.oneSidedUnsupported());
            return null;
        }
        RdmaConnection connection = channel.connection;
        if (connection == null || !channel.isActive()) {
            promise.setFailure(new ClosedChannelException());
            return null;
        }
        return connection;
    }

    /**
     * Runs {@code task} on the event loop, at once when called there; if the loop is gone, fails
     * {@code promise} and releases {@code held}. Read, Write and the atomics look for the loop
     * themselves first, so that a call made there creates no task object.
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

    @SuppressWarnings("unchecked")
    private static Promise<Object> erase(Promise<?> promise) {
        return (Promise<Object>) promise;
    }
}
