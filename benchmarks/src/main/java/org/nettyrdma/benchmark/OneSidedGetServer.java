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

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.atomic.LongAdder;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.FixedLengthFrameDecoder;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.nettyrdma.channel.rdma.OneSidedOperations;
import org.nettyrdma.channel.rdma.RdmaIoHandler;
import org.nettyrdma.channel.rdma.RdmaIoHandlerConfig;
import org.nettyrdma.channel.rdma.RemoteAccess;
import org.nettyrdma.channel.rdma.RemoteRegion;
import org.nettyrdma.example.ExposeToEachPeer;
import org.nettyrdma.example.ExposingServer;

/**
 * The server of {@link OneSidedBenchmark}: one event loop, so that its thread's CPU time is the server's,
 * and a table of {@link #TABLE_BYTES} bytes followed by one 8-byte word, exposed to each connection with
 * READ and ATOMIC. A connection's first message carries its descriptor; after that, a request of 4 bytes
 * (the length of a GET) is answered with that many bytes of the table: the same GET as a request and a
 * response. Every message the server's pipelines see is counted before it is decoded, so a one-sided GET
 * that woke a handler would show.
 */
final class OneSidedGetServer implements AutoCloseable {

    /** The largest GET. */
    static final int TABLE_BYTES = 64 * 1024;
    /** Where the word the clients fetch and add to lies: after the table, 8-byte aligned. */
    static final int COUNTER_OFFSET = TABLE_BYTES;
    /** A request is the GET's length, an int. */
    static final int REQUEST_BYTES = Integer.BYTES;

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final EventLoopGroup group;
    private final ExposingServer server;
    private final ByteBuf memory;
    private final LongAdder messages;
    private final long loopThread;

    private OneSidedGetServer(EventLoopGroup group, ExposingServer server, ByteBuf memory, LongAdder messages,
                              long loopThread) {
        this.group = group;
        this.server = server;
        this.memory = memory;
        this.messages = messages;
        this.loopThread = loopThread;
    }

    /** Starts the server on {@code address} (port 0: any), on a loop of {@code loops}. */
    static OneSidedGetServer start(InetSocketAddress address, RdmaIoHandlerConfig loops) throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("one-sided-server"),
                RdmaIoHandler.newFactory(loops));
        try {
            long loopThread = group.submit(() -> Thread.currentThread().getId()).get();
            int length = TABLE_BYTES + Long.BYTES;
            ByteBuf memory = OneSidedOperations.allocateExposable(length);
            for (int i = 0; i < TABLE_BYTES; i++) {
                memory.writeByte(i * 31);
            }
            memory.writeLongLE(0);
            // ExposingServer releases the reference it is given when it closes; the server keeps one of its own.
            memory.retain();
            LongAdder messages = new LongAdder();
            Counter counter = new Counter(messages);
            ExposeToEachPeer expose = new ExposeToEachPeer(memory,
                    (channel, descriptor) -> descriptor.writeTo(channel.alloc().buffer(RemoteRegion.ENCODED_LENGTH)),
                    RemoteAccess.READ, RemoteAccess.ATOMIC);
            GetHandler get = new GetHandler(memory);
            ExposingServer server = ExposingServer.start(group, address, memory, pipeline -> pipeline.addLast(
                    counter, expose, new FixedLengthFrameDecoder(REQUEST_BYTES), get));
            return new OneSidedGetServer(group, server, memory, messages, loopThread);
        } catch (Exception | Error e) {
            group.shutdownGracefully();
            throw e;
        }
    }

    /** Returns where clients connect. */
    SocketAddress localAddress() {
        return server.localAddress();
    }

    /** Returns the messages the server's pipelines have seen so far, requests and anything else. */
    long messages() {
        return messages.sum();
    }

    /** Returns the CPU time of the server's event loop thread so far, in nanoseconds. */
    long cpuNanos() {
        return THREADS.getThreadCpuTime(loopThread);
    }

    /** Returns the word the clients fetch and add to, as the server's own memory holds it. */
    long counter() {
        return memory.getLongLE(COUNTER_OFFSET);
    }

    @Override
    public void close() throws InterruptedException {
        try {
            server.close();
        } finally {
            memory.release();
            group.shutdownGracefully().syncUninterruptibly();
        }
    }

    /** Counts every message that reaches a server pipeline, before anything decodes it. */
    @Sharable
    private static final class Counter extends ChannelInboundHandlerAdapter {

        private final LongAdder messages;

        Counter(LongAdder messages) {
            this.messages = messages;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            messages.increment();
            ctx.fireChannelRead(msg);
        }
    }

    /** Answers a request with as many bytes of the table as it asks for, sent from the table itself. */
    @Sharable
    private static final class GetHandler extends SimpleChannelInboundHandler<ByteBuf> {

        private final ByteBuf memory;

        GetHandler(ByteBuf memory) {
            this.memory = memory;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf request) {
            int length = request.readInt();
            if (length <= 0 || length > TABLE_BYTES) {
                ctx.close();
                return;
            }
            ctx.writeAndFlush(memory.retainedSlice(0, length), ctx.voidPromise());
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
