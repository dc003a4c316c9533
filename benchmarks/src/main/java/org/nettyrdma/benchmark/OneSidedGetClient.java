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
package org.nettyrdma.benchmark;

import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.FutureListener;
import io.netty.util.concurrent.Promise;
import org.HdrHistogram.Histogram;
import org.nettyrdma.channel.rdma.OneSidedCompletion;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.channel.rdma.RemoteRegion;
import org.nettyrdma.example.ExposingServer;

/**
 * One connection of {@link OneSidedBenchmark} to {@link OneSidedGetServer}, with the descriptor of the
 * server's memory that came first on it. Reads and fetch-and-adds run in both of the API's forms: told to a
 * {@link OneSidedCompletion} the measurement keeps (a Read into one buffer), which allocates nothing, and by
 * the {@code Future} form, whose futures, boxed values and buffers show beside it. A measurement runs on the
 * connection's event loop, one operation at a time, each started when the last completed, until its time is
 * up; its future completes on that loop with the connection's one histogram, which the next measurement
 * resets. One measurement at a time per connection.
 */
final class OneSidedGetClient {

    /** Longer operations are recorded as this: the histogram never resizes. */
    private static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final RdmaSocketChannel channel;
    private final RemoteRegion memory;
    private final Responses responses;
    /**
     * The latencies of the measurement under way, reset at its start: a histogram made per
     * measurement (some 200 KiB) would count as garbage of the operations it measures.
     */
    private final Histogram latencies = new Histogram(HIGHEST_NANOS, 3);

    private OneSidedGetClient(RdmaSocketChannel channel, RemoteRegion memory, Responses responses) {
        this.channel = channel;
        this.memory = memory;
        this.responses = responses;
    }

    /** Connects to the server at {@code address}; the future completes once its descriptor arrived. */
    static CompletableFuture<OneSidedGetClient> connect(EventLoopGroup group, SocketAddress address) {
        return ExposingServer.connect(group, address,
                (pipeline, connected) -> pipeline.addLast(new Responses(connected)));
    }

    /**
     * GETs of {@code size} bytes by RDMA Read of the server's table into one buffer, each told to one
     * {@link OneSidedCompletion}, for {@code nanos}: their latencies.
     */
    Future<Histogram> readGets(int size, long nanos) {
        Promise<Histogram> done = channel.eventLoop().newPromise();
        channel.eventLoop().execute(() -> new ReadGets(size, System.nanoTime() + nanos, done).next());
        return done;
    }

    /** The same GETs by the {@code Future} form of the Read, a buffer and a future each. */
    Future<Histogram> futureReadGets(int size, long nanos) {
        Promise<Histogram> done = channel.eventLoop().newPromise();
        channel.eventLoop().execute(() -> new FutureReadGets(size, System.nanoTime() + nanos, done).next());
        return done;
    }

    /** The same GETs as a request and the server's response on the stream, for {@code nanos}. */
    Future<Histogram> requestGets(int size, long nanos) {
        Promise<Histogram> done = channel.eventLoop().newPromise();
        channel.eventLoop().execute(() -> new RequestGets(size, System.nanoTime() + nanos, done).next());
        return done;
    }

    /**
     * Fetch-and-adds of 1 to the server's word, one at a time, each told to one
     * {@link OneSidedCompletion}, for {@code nanos}: their latencies, as many as completed. Fails if a
     * value an add returned is not above the one the add before it returned.
     */
    Future<Histogram> fetchAndAdds(long nanos) {
        Promise<Histogram> done = channel.eventLoop().newPromise();
        channel.eventLoop().execute(() -> new FetchAndAdds(System.nanoTime() + nanos, done).next());
        return done;
    }

    /** The same fetch-and-adds by the {@code Future} form, a future and a boxed value each. */
    Future<Histogram> futureFetchAndAdds(long nanos) {
        Promise<Histogram> done = channel.eventLoop().newPromise();
        channel.eventLoop().execute(() -> new FutureFetchAndAdds(System.nanoTime() + nanos, done).next());
        return done;
    }

    void close() {
        channel.close().syncUninterruptibly();
    }

    private static void record(Histogram histogram, long nanos) {
        histogram.recordValue(Math.min(nanos, HIGHEST_NANOS));
    }

    /** GETs of one size, one after another until the deadline, each one's latency recorded. */
    private abstract class TimedGets {

        final int size;
        private final long deadline;
        final Promise<Histogram> done;
        private final Histogram histogram = latencies;
        private long sentAt;

        TimedGets(int size, long deadline, Promise<Histogram> done) {
            this.size = size;
            this.deadline = deadline;
            this.done = done;
            histogram.reset();
        }

        /** Starts the next GET. */
        final void next() {
            sentAt = System.nanoTime();
            send();
        }

        /** Sends a GET, whose end calls {@link #completed()}. */
        abstract void send();

        /** The GET under way is whole: records it, then starts the next or ends. */
        final void completed() {
            long now = System.nanoTime();
            record(histogram, now - sentAt);
            if (now < deadline) {
                next();
            } else {
                ended();
                done.trySuccess(histogram);
            }
        }

        /** The last GET completed. */
        void ended() {
        }
    }

    private final class ReadGets extends TimedGets implements OneSidedCompletion {

        /** The one buffer every Read of the measurement fills. */
        private final ByteBuf destination;

        ReadGets(int size, long deadline, Promise<Histogram> done) {
            super(size, deadline, done);
            destination = channel.alloc().directBuffer(size, size);
        }

        @Override
        void send() {
            channel.oneSided().read(memory, 0, destination.clear(), size, this);
        }

        @Override
        public void operationComplete(long result, Throwable cause) {
            if (cause != null) {
                destination.release();
                done.tryFailure(cause);
                return;
            }
            completed();
        }

        @Override
        void ended() {
            destination.release();
        }
    }

    private final class FutureReadGets extends TimedGets implements FutureListener<ByteBuf> {

        FutureReadGets(int size, long deadline, Promise<Histogram> done) {
            super(size, deadline, done);
        }

        @Override
        void send() {
            channel.oneSided().read(memory, 0, size).addListener(this);
        }

        @Override
        public void operationComplete(Future<ByteBuf> read) {
            if (!read.isSuccess()) {
                done.tryFailure(read.cause());
                return;
            }
            read.getNow().release();
            completed();
        }
    }

    private final class RequestGets extends TimedGets {

        private final Runnable onResponse = this::completed;
        /** One listener for every request: the benchmark's own garbage would count as the transport's. */
        private final ChannelFutureListener onWritten = written -> {
            if (!written.isSuccess()) {
                done.tryFailure(written.cause());
            }
        };

        RequestGets(int size, long deadline, Promise<Histogram> done) {
            super(size, deadline, done);
        }

        @Override
        void send() {
            responses.expect(size, onResponse, done);
            ByteBuf request = channel.alloc().directBuffer(OneSidedGetServer.REQUEST_BYTES).writeInt(size);
            channel.writeAndFlush(request).addListener(onWritten);
        }

        @Override
        void ended() {
            responses.expect(0, null, null);
        }
    }

    /**
     * Fetch-and-adds of 1, one at a time until the deadline, each one's latency recorded and its value
     * checked against the last.
     */
    private abstract class TimedAdds {

        private final long deadline;
        final Promise<Histogram> done;
        private final Histogram histogram = latencies;
        private long sentAt;
        private long last = -1;

        TimedAdds(long deadline, Promise<Histogram> done) {
            this.deadline = deadline;
            this.done = done;
            histogram.reset();
        }

        final void next() {
            sentAt = System.nanoTime();
            send();
        }

        /** Sends a fetch-and-add, whose end calls {@link #added(long)}. */
        abstract void send();

        final void added(long before) {
            long now = System.nanoTime();
            record(histogram, now - sentAt);
            if (before <= last) {
                done.tryFailure(new IllegalStateException("a fetch-and-add returned " + before
                        + " after one that returned " + last));
                return;
            }
            last = before;
            if (now < deadline) {
                next();
            } else {
                done.trySuccess(histogram);
            }
        }
    }

    private final class FetchAndAdds extends TimedAdds implements OneSidedCompletion {

        FetchAndAdds(long deadline, Promise<Histogram> done) {
            super(deadline, done);
        }

        @Override
        void send() {
            channel.oneSided().fetchAndAdd(memory, OneSidedGetServer.COUNTER_OFFSET, 1, this);
        }

        @Override
        public void operationComplete(long before, Throwable cause) {
            if (cause != null) {
                done.tryFailure(cause);
            } else {
                added(before);
            }
        }
    }

    private final class FutureFetchAndAdds extends TimedAdds implements FutureListener<Long> {

        FutureFetchAndAdds(long deadline, Promise<Histogram> done) {
            super(deadline, done);
        }

        @Override
        void send() {
            channel.oneSided().fetchAndAdd(memory, OneSidedGetServer.COUNTER_OFFSET, 1).addListener(this);
        }

        @Override
        public void operationComplete(Future<Long> add) {
            if (!add.isSuccess()) {
                done.tryFailure(add.cause());
            } else {
                added(add.getNow());
            }
        }
    }

    /**
     * The client's pipeline: the server's descriptor first, then the responses to GET requests, counted
     * in bytes until the one awaited is whole.
     */
    private static final class Responses extends ChannelInboundHandlerAdapter {

        private final CompletableFuture<OneSidedGetClient> connected;
        private ByteBuf hello;
        private boolean helloRead;
        private int awaited;
        private Runnable onResponse;
        private Promise<?> pending;

        Responses(CompletableFuture<OneSidedGetClient> connected) {
            this.connected = connected;
        }

        /** Awaits a response of {@code size} bytes, then runs {@code onResponse}; a failure fails {@code pending}. */
        void expect(int size, Runnable onResponse, Promise<?> pending) {
            this.awaited = size;
            this.onResponse = onResponse;
            this.pending = pending;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf buf = (ByteBuf) msg;
            try {
                if (!helloRead) {
                    if (hello == null) {
                        hello = ctx.alloc().heapBuffer(RemoteRegion.ENCODED_LENGTH);
                    }
                    hello.writeBytes(buf, Math.min(buf.readableBytes(), hello.writableBytes()));
                    if (hello.isWritable()) {
                        return;
                    }
                    RemoteRegion memory = RemoteRegion.readFrom(hello);
                    hello.release();
                    hello = null;
                    helloRead = true;
                    connected.complete(new OneSidedGetClient((RdmaSocketChannel) ctx.channel(), memory, this));
                }
                awaited -= buf.readableBytes();
                if (awaited < 0 || (awaited == 0 && buf.isReadable() && onResponse == null)) {
                    exceptionCaught(ctx, new IllegalStateException("the server sent bytes no request asked for"));
                } else if (awaited == 0 && onResponse != null) {
                    onResponse.run();
                }
            } finally {
                buf.release();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            fail(new IllegalStateException("the connection closed"));
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            fail(cause);
            ctx.close();
        }

        private void fail(Throwable cause) {
            if (hello != null) {
                hello.release();
                hello = null;
            }
            connected.completeExceptionally(cause);
            if (pending != null) {
                pending.tryFailure(cause);
            }
        }
    }
}
