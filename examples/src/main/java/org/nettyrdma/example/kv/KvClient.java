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
package org.nettyrdma.example.kv;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.PromiseCombiner;
import org.nettyrdma.channel.rdma.OneSidedOperations;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.channel.rdma.RemoteRegion;
import org.nettyrdma.example.ExampleOptions;
import org.nettyrdma.example.ExposingServer;
import org.nettyrdma.example.NettyFutures;
import org.nettyrdma.example.Transport;

/**
 * A client of a {@link KvServer}: {@link #get} reads a slot with RDMA Reads, which the server's CPU
 * never sees, and retries a read that overlapped a write; {@link #put} sends the value through the
 * stream for the server to write. Every method may be called from any thread; the futures complete on
 * the connection's event loop.
 *
 * <pre>
 * java ... org.nettyrdma.example.kv.KvClient --transport rdma --host 10.77.0.1 --gets 10000
 * </pre>
 *
 * The program PUTs a few slots, GETs them back and checks them, then times GETs one after another.
 */
public final class KvClient {

    private static final String USAGE = "usage: KvClient [--transport rdma|rdma-busypoll] [--host ADDRESS] "
            + "[--port " + KvServer.DEFAULT_PORT + "] [--gets N, default 10000]";
    private static final long TIMEOUT_SECONDS = 60;
    /** A GET that found the slot changing this many times in a row gives up. */
    static final int MAX_ATTEMPTS = 1000;

    private final RdmaSocketChannel channel;
    private final RemoteRegion table;
    private final SlotLayout layout;
    /** The PUTs sent and not answered yet, in the order sent; on the event loop only. */
    private final ArrayDeque<CompletableFuture<Void>> puts = new ArrayDeque<>();
    private final LongAdder retries = new LongAdder();

    private KvClient(RdmaSocketChannel channel, KvMessage.Hello hello) {
        this.channel = channel;
        this.table = hello.table();
        this.layout = hello.layout();
    }

    /** Connects, PUTs and GETs, prints what it did. */
    public static void main(String[] args) throws Exception {
        ExampleOptions options = ExampleOptions.parse(USAGE, args);
        Transport transport = options.rdmaTransport(ExposingServer.RDMA_ONLY);
        InetSocketAddress address = options.address(KvServer.DEFAULT_PORT);
        int gets = options.integer("gets", 10_000);
        options.checkAllRead();

        EventLoopGroup group = transport.newEventLoopGroup(1);
        try {
            KvClient client = connect(group, address).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            SlotLayout layout = client.layout();
            System.out.printf("kv: connected over %s to %s: %d slots of up to %d bytes%n", transport.displayName(),
                    address, layout.slots(), layout.maxValueLength());
            int slots = Math.min(layout.slots(), 4);
            for (int slot = 0; slot < slots; slot++) {
                String text = "slot " + slot + ", put at " + System.currentTimeMillis();
                byte[] value = text.getBytes(StandardCharsets.UTF_8);
                client.put(slot, Arrays.copyOf(value, Math.min(value.length, layout.maxValueLength())))
                        .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                byte[] got = client.get(slot).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                System.out.printf("kv: PUT then GET of slot %d: \"%s\"%n", slot,
                        new String(got, StandardCharsets.UTF_8));
            }
            long start = System.nanoTime();
            for (int i = 0; i < gets; i++) {
                client.get(i % layout.slots()).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            }
            long nanos = System.nanoTime() - start;
            System.out.printf("kv: %d GETs by RDMA Read, one after another, %.1f us each, %d retried; the server's "
                    + "handler saw none of them%n", gets, gets == 0 ? 0.0 : nanos / 1000.0 / gets, client.retries());
            client.close().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } finally {
            group.shutdownGracefully();
        }
    }

    /**
     * Connects to the key-value server at {@code address} on {@code group}, whose loops must be RDMA
     * loops; the future completes once the server's hello arrived.
     */
    public static CompletableFuture<KvClient> connect(EventLoopGroup group, SocketAddress address) {
        return ExposingServer.connect(group, address, (pipeline, connected) -> {
            KvCodec.addTo(pipeline);
            pipeline.addLast(new ResponseHandler(connected));
        });
    }

    /** Returns the layout of the server's table. */
    public SlotLayout layout() {
        return layout;
    }

    /** Returns how many times a GET read a slot again because a PUT changed it meanwhile. */
    public long retries() {
        return retries.sum();
    }

    /**
     * Returns slot {@code slot}'s value, read from the server's table with RDMA Reads: the server's CPU
     * does nothing for it. A read that overlapped a write is read again, up to {@value #MAX_ATTEMPTS} times.
     */
    public CompletableFuture<byte[]> get(int slot) {
        if (!layout.hasSlot(slot)) {
            return failed(slot, "get");
        }
        CompletableFuture<byte[]> result = new CompletableFuture<>();
        onLoop(result, () -> read(slot, 1, result));
        return result;
    }

    /** Reads slot {@code slot} once, and again if it changed meanwhile; on the event loop. */
    private void read(int slot, int attempt, CompletableFuture<byte[]> result) {
        OneSidedOperations oneSided = channel.oneSided();
        // Three RDMA Reads posted back to back on this one connection: the version word, the body (length
        // and value), the version word again. The server's device executes the Reads of a connection in
        // the order they were posted, so each sees the table as it was at the moment the one before saw
        // it, or later: the body was read between the two versions. Equal and even, they show that no
        // write of the slot overlapped the body's read. The first version is a Read of its own, not the
        // first bytes of the body's, because the bytes of one Read may be fetched in any order. All three
        // go out before the first completes: one round trip.
        EventLoop loop = channel.eventLoop();
        Future<ByteBuf> before = oneSided.read(table, layout.versionOffset(slot), Long.BYTES);
        Future<ByteBuf> body = oneSided.read(table, layout.bodyOffset(slot), layout.bodyLength());
        Future<ByteBuf> after = oneSided.read(table, layout.versionOffset(slot), Long.BYTES);
        Promise<Void> all = loop.newPromise();
        PromiseCombiner combiner = new PromiseCombiner(loop);
        combiner.addAll(before, body, after);
        combiner.finish(all);
        all.addListener(done -> {
            try {
                if (!done.isSuccess()) {
                    result.completeExceptionally(done.cause());
                } else if (SlotLayout.stable(before.getNow().getLongLE(0), after.getNow().getLongLE(0))) {
                    result.complete(layout.value(body.getNow()));
                } else if (attempt == MAX_ATTEMPTS) {
                    result.completeExceptionally(new IllegalStateException("slot " + slot + " changed during "
                            + attempt + " reads in a row"));
                } else {
                    retries.increment();
                    read(slot, attempt + 1, result);
                }
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            } finally {
                release(before);
                release(body);
                release(after);
            }
        });
    }

    private static void release(Future<ByteBuf> read) {
        if (read.isSuccess()) {
            read.getNow().release();
        }
    }

    /**
     * Makes {@code value} slot {@code slot}'s value, by a request through the stream that the server's
     * handler carries out; the future completes when the server answered.
     */
    public CompletableFuture<Void> put(int slot, byte[] value) {
        if (!layout.hasSlot(slot) || value.length > layout.maxValueLength()) {
            return failed(slot, "put of " + value.length + " bytes");
        }
        CompletableFuture<Void> answered = new CompletableFuture<>();
        onLoop(answered, () -> {
            puts.add(answered);
            channel.writeAndFlush(new KvMessage.Put(slot, value.clone())).addListener(f -> {
                if (!f.isSuccess() && puts.remove(answered)) {
                    answered.completeExceptionally(f.cause());
                }
            });
        });
        return answered;
    }

    private <T> CompletableFuture<T> failed(int slot, String what) {
        return CompletableFuture.failedFuture(new IllegalArgumentException(what + " of slot " + slot
                + ": outside the table's " + layout.slots() + " slots of up to " + layout.maxValueLength()
                + " bytes"));
    }

    /** Closes the connection; PUTs not answered yet fail. */
    public CompletableFuture<Void> close() {
        return NettyFutures.completable(channel.close());
    }

    private void onLoop(CompletableFuture<?> result, Runnable task) {
        try {
            channel.eventLoop().execute(task);
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new ClosedChannelException());
        }
    }

    /** Takes the server's hello, then its answers to the PUTs, in order. */
    private static final class ResponseHandler extends SimpleChannelInboundHandler<KvMessage> {
        private final CompletableFuture<KvClient> connected;
        private KvClient client;

        ResponseHandler(CompletableFuture<KvClient> connected) {
            this.connected = connected;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, KvMessage msg) {
            if (client == null && msg instanceof KvMessage.Hello hello) {
                client = new KvClient((RdmaSocketChannel) ctx.channel(), hello);
                connected.complete(client);
            } else if (client != null && msg instanceof KvMessage.Result result && !client.puts.isEmpty()) {
                CompletableFuture<Void> answered = client.puts.poll();
                if (result.status() == KvMessage.Status.OK) {
                    answered.complete(null);
                } else {
                    answered.completeExceptionally(new IllegalArgumentException("the server refused a PUT: "
                            + result.status()));
                }
            } else {
                exceptionCaught(ctx, new IllegalStateException("unexpected from the server: " + msg));
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            connected.completeExceptionally(new ClosedChannelException());
            if (client != null) {
                for (CompletableFuture<Void> answered; (answered = client.puts.poll()) != null; ) {
                    answered.completeExceptionally(new ClosedChannelException());
                }
            }
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            connected.completeExceptionally(cause);
            System.err.println("kv client: closing " + ctx.channel() + ": " + cause);
            ctx.close();
        }
    }
}
