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
package org.nettyrdma.example.atomics;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.FixedLengthFrameDecoder;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.channel.rdma.RemoteRegion;
import org.nettyrdma.example.ExampleOptions;
import org.nettyrdma.example.ExposingServer;
import org.nettyrdma.example.NettyFutures;
import org.nettyrdma.example.Transport;

/**
 * A client of an {@link AtomicsServer}: increments the shared counter with fetch-and-add, takes the
 * shared lock with compare-and-swap, and under it reads and writes back a plain word, all without the
 * server's CPU. Every method may be called from any thread; the futures complete on the connection's
 * event loop, which never blocks: a lock that is taken is tried again after a short backoff, scheduled
 * on the loop.
 *
 * <pre>
 * java ... org.nettyrdma.example.atomics.AtomicsClient --transport rdma --host 10.77.0.1 --clients 4 --times 200
 * </pre>
 *
 * The program connects several clients, which all increment the counter {@code --times} times and the
 * guarded word as often under the lock, and checks that both rose by exactly clients x times: neither
 * loses an update. It expects no other program to use the server meanwhile; otherwise, or if an update
 * was lost, it ends with an exception.
 */
public final class AtomicsClient {

    private static final String USAGE = "usage: AtomicsClient [--transport rdma|rdma-busypoll] [--host ADDRESS] "
            + "[--port " + AtomicsServer.DEFAULT_PORT + "] [--clients N, default 4] [--times N, default 200]";
    private static final long TIMEOUT_SECONDS = 60;
    /** The first wait after finding the lock taken; each wait after is twice as long, up to the longest. */
    private static final long FIRST_BACKOFF_MICROS = 20;
    private static final long LONGEST_BACKOFF_MICROS = 1000;

    private final RdmaSocketChannel channel;
    private final RemoteRegion words;
    private final long id;
    private final LongAdder lockRetries = new LongAdder();

    private AtomicsClient(RdmaSocketChannel channel, SharedWords.Hello hello) {
        this.channel = channel;
        this.words = hello.words();
        this.id = hello.clientId();
    }

    /** Connects the clients, runs the increments, prints and checks the totals. */
    public static void main(String[] args) throws Exception {
        ExampleOptions options = ExampleOptions.parse(USAGE, args);
        Transport transport = options.rdmaTransport(ExposingServer.RDMA_ONLY);
        InetSocketAddress address = options.address(AtomicsServer.DEFAULT_PORT);
        int clients = Math.max(1, options.integer("clients", 4));
        int times = options.integer("times", 200);
        options.checkAllRead();

        EventLoopGroup group = transport.newEventLoopGroup(2);
        try {
            List<AtomicsClient> connected = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                connected.add(connect(group, address).get(TIMEOUT_SECONDS, TimeUnit.SECONDS));
            }
            AtomicsClient first = connected.get(0);
            long counter = first.read(SharedWords.COUNTER).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            long guarded = first.read(SharedWords.GUARDED).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            long start = System.nanoTime();
            List<CompletableFuture<?>> work = new ArrayList<>();
            for (AtomicsClient client : connected) {
                for (int i = 0; i < times; i++) {
                    work.add(client.increment());
                }
                work.add(client.incrementGuarded(times));
            }
            CompletableFuture.allOf(work.toArray(new CompletableFuture<?>[0])).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            long counted = first.read(SharedWords.COUNTER).get(TIMEOUT_SECONDS, TimeUnit.SECONDS) - counter;
            long guardedCounted = first.read(SharedWords.GUARDED).get(TIMEOUT_SECONDS, TimeUnit.SECONDS) - guarded;
            long retries = 0;
            for (AtomicsClient client : connected) {
                retries += client.lockRetries();
                client.close().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            }
            long expected = (long) clients * times;
            System.out.printf("atomics: %d clients over %s to %s, %d ms: the counter rose by %d by fetch-and-add, the "
                    + "guarded word by %d by read and write under the lock (%d lock retries); expected %d each%n",
                    clients, transport.displayName(), address, millis, counted, guardedCounted, retries, expected);
            if (counted != expected || guardedCounted != expected) {
                throw new IllegalStateException("an update was lost, or another program used the server meanwhile");
            }
        } finally {
            group.shutdownGracefully();
        }
    }

    /**
     * Connects to the atomics server at {@code address} on {@code group}, whose loops must be RDMA loops;
     * the future completes once the server's hello arrived.
     */
    public static CompletableFuture<AtomicsClient> connect(EventLoopGroup group, SocketAddress address) {
        return ExposingServer.connect(group, address, (pipeline, connected) -> {
            pipeline.addLast(new FixedLengthFrameDecoder(SharedWords.HELLO_LENGTH), new HelloHandler(connected));
        });
    }

    /** Returns the id the server gave this client: the lock's value while this client holds it. */
    public long id() {
        return id;
    }

    /** Returns how many times {@link #lock()} found the lock taken and tried again. */
    public long lockRetries() {
        return lockRetries.sum();
    }

    /** Adds 1 to the counter with fetch-and-add; the future holds the counter's value before. */
    public CompletableFuture<Long> increment() {
        return NettyFutures.completable(channel.oneSided().fetchAndAdd(words, SharedWords.COUNTER, 1));
    }

    /**
     * Takes the lock: a compare-and-swap of 0 for this client's id, tried again after a backoff that
     * doubles up to a millisecond while another client holds it. A client that dies holding the lock
     * leaves it held; a lock that must survive that needs a lease, which this one has not.
     */
    public CompletableFuture<Void> lock() {
        CompletableFuture<Void> locked = new CompletableFuture<>();
        tryLock(locked, FIRST_BACKOFF_MICROS);
        return locked;
    }

    private void tryLock(CompletableFuture<Void> locked, long backoffMicros) {
        NettyFutures.completable(channel.oneSided().compareAndSwap(words, SharedWords.LOCK, 0, id))
                .whenComplete((holder, failure) -> {
                    if (failure != null) {
                        locked.completeExceptionally(failure);
                    } else if (holder == 0) {
                        locked.complete(null);
                    } else if (holder == id) {
                        locked.completeExceptionally(new IllegalStateException("client " + id + " holds the lock "
                                + "already"));
                    } else {
                        lockRetries.increment();
                        // A timer on the connection's event loop, not a sleep: no thread waits for the lock.
                        long wait = ThreadLocalRandom.current().nextLong(backoffMicros / 2, backoffMicros + 1);
                        channel.eventLoop().schedule(() -> tryLock(locked,
                                Math.min(2 * backoffMicros, LONGEST_BACKOFF_MICROS)), wait, TimeUnit.MICROSECONDS);
                    }
                });
    }

    /**
     * Gives the lock back: a compare-and-swap of this client's id for 0, which fails with an
     * {@link IllegalStateException} if this client did not hold it.
     */
    public CompletableFuture<Void> unlock() {
        return NettyFutures.completable(channel.oneSided().compareAndSwap(words, SharedWords.LOCK, id, 0))
                .thenAccept(holder -> {
                    if (holder != id) {
                        throw new IllegalStateException("client " + id + " gave back a lock it did not hold: "
                                + (holder == 0 ? "free" : "held by client " + holder));
                    }
                });
    }

    /** Reads the word at {@code offset} ({@link SharedWords#COUNTER}, ...) with an RDMA Read. */
    public CompletableFuture<Long> read(int offset) {
        return NettyFutures.completable(channel.oneSided().read(words, offset, Long.BYTES)).thenApply(bytes -> {
            try {
                return SharedWords.word(bytes, 0);
            } finally {
                bytes.release();
            }
        });
    }

    /** Writes {@code value} to the word at {@code offset} with an RDMA Write. */
    public CompletableFuture<Void> write(int offset, long value) {
        ByteBuf bytes = Unpooled.buffer(Long.BYTES).writeLongLE(value);
        return NettyFutures.completable(channel.oneSided().write(words, offset, bytes));
    }

    /**
     * Adds 1 to the guarded word under the lock: takes it, reads the word, writes it back plus one, gives
     * the lock back. Read and write are not atomic; the lock is what keeps two clients from both writing
     * back the same value. The future holds the value written.
     *
     * <p>Each step waits for the one before. The server's device executes this connection's requests in
     * order, so the Write has landed before the compare-and-swap that frees the lock; the next holder
     * posts its Read after its own compare-and-swap found the lock free, and sees the word written.
     */
    public CompletableFuture<Long> incrementGuarded() {
        return lock()
                .thenCompose(locked -> read(SharedWords.GUARDED))
                .thenCompose(value -> write(SharedWords.GUARDED, value + 1).thenApply(written -> value + 1))
                .thenCompose(value -> unlock().thenApply(unlocked -> value));
    }

    /** Runs {@link #incrementGuarded()} {@code times} times, one after another; the future holds the last value. */
    public CompletableFuture<Long> incrementGuarded(int times) {
        CompletableFuture<Long> chain = CompletableFuture.completedFuture(null);
        for (int i = 0; i < times; i++) {
            chain = chain.thenCompose(previous -> incrementGuarded());
        }
        return chain;
    }

    /** Closes the connection. */
    public CompletableFuture<Void> close() {
        return NettyFutures.completable(channel.close());
    }

    /** Takes the server's hello, the only bytes it sends, and makes the client of it. */
    private static final class HelloHandler extends SimpleChannelInboundHandler<ByteBuf> {
        private final CompletableFuture<AtomicsClient> connected;

        HelloHandler(CompletableFuture<AtomicsClient> connected) {
            this.connected = connected;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf hello) {
            if (connected.isDone()) {
                exceptionCaught(ctx, new IllegalStateException("the server sent more than its hello"));
                return;
            }
            connected.complete(new AtomicsClient((RdmaSocketChannel) ctx.channel(), SharedWords.readHello(hello)));
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            connected.completeExceptionally(new ClosedChannelException());
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            connected.completeExceptionally(cause);
            System.err.println("atomics client: closing " + ctx.channel() + ": " + cause);
            ctx.close();
        }
    }
}
