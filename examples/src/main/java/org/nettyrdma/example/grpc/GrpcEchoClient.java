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
package org.nettyrdma.example.grpc;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.zip.CRC32;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.netty.channel.EventLoopGroup;
import org.nettyrdma.example.ExampleOptions;
import org.nettyrdma.example.Transport;

/**
 * Calls a {@link GrpcEchoServer} with messages of random bytes, unary calls one after another and then
 * one bidirectional stream, and checks that every message comes back unchanged. Prints one line per
 * message size and kind of call, with the CRC32 of the bytes sent and of the bytes that came back, and
 * exits with status 0 when every byte came back; otherwise the exception says what went wrong. Two
 * calls of the channel builder name the transport; over RDMA they read
 *
 * <pre>{@code
 * EventLoopGroup group = new MultiThreadIoEventLoopGroup(RdmaIoHandler.newFactory());
 * ManagedChannel channel = NettyChannelBuilder.forAddress(new InetSocketAddress("10.77.0.1", 50051))
 *         .channelType(RdmaSocketChannel.class, InetSocketAddress.class)
 *         .eventLoopGroup(group)
 *         .usePlaintext().build();
 * }</pre>
 *
 * <pre>
 * java ... org.nettyrdma.example.grpc.GrpcEchoClient --transport rdma --host 10.77.0.1 --size 0,64k,4m --count 10
 * </pre>
 */
public final class GrpcEchoClient {

    private static final String USAGE = "usage: GrpcEchoClient [--transport rdma|rdma-busypoll|nio|epoll] "
            + "[--host ADDRESS] [--port " + GrpcEchoServer.DEFAULT_PORT + "] [--size BYTES[,BYTES...], default 256, "
            + "at most 4m] [--count MESSAGES per kind of call, default 10]";
    /** The largest message the example sends. */
    public static final int MAX_SIZE = 4 << 20;
    /** The deadline of every call: a call that takes longer is stuck. */
    private static final long TIMEOUT_SECONDS = 60;

    private GrpcEchoClient() {
    }

    /** Connects, echoes, prints the result. */
    public static void main(String[] args) throws Exception {
        ExampleOptions options = ExampleOptions.parse(USAGE, args);
        Transport transport = options.transport();
        InetSocketAddress address = options.address(GrpcEchoServer.DEFAULT_PORT);
        int[] sizes = options.integers("size", 256);
        int count = options.integer("count", 10);
        options.checkAllRead();
        for (int size : sizes) {
            if (size > MAX_SIZE || count < 1) {
                throw new IllegalArgumentException("--size " + size + ", --count " + count
                        + " (expected: sizes up to " + MAX_SIZE + ", count >= 1)\n" + USAGE);
            }
        }

        EventLoopGroup group = transport.newEventLoopGroup(1);
        ManagedChannel channel = newChannel(group, transport, address);
        try {
            for (int size : sizes) {
                int[] sizesOfOneKind = new int[count];
                Arrays.fill(sizesOfOneKind, size);
                List<byte[]> messages = messages(ThreadLocalRandom.current(), sizesOfOneKind);
                long start = System.nanoTime();
                List<byte[]> answers = new ArrayList<>();
                for (byte[] message : messages) {
                    answers.add(unary(channel, message));
                }
                report("unary calls", messages, answers, transport, address, start);
                start = System.nanoTime();
                report("messages on one stream", messages, stream(channel, messages), transport, address, start);
            }
        } finally {
            channel.shutdownNow().awaitTermination(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            group.shutdownGracefully();
        }
    }

    /**
     * Returns a channel builder of {@code transport} to {@code address}, its connection on {@code group},
     * in plain text, admitting {@link GrpcEchoService#MAX_MESSAGE_SIZE}, for the caller to finish.
     */
    public static NettyChannelBuilder builder(EventLoopGroup group, Transport transport, InetSocketAddress address) {
        return NettyChannelBuilder.forAddress(address)
                .channelType(transport.socketChannelClass(), InetSocketAddress.class)
                .eventLoopGroup(group)
                .usePlaintext()
                .maxInboundMessageSize(GrpcEchoService.MAX_MESSAGE_SIZE);
    }

    /** Returns a channel of {@code transport} to the echo server at {@code address}; the caller shuts it down. */
    public static ManagedChannel newChannel(EventLoopGroup group, Transport transport, InetSocketAddress address) {
        return builder(group, transport, address).build();
    }

    /** Calls {@link GrpcEchoService#UNARY} with {@code message} and returns the answer. */
    public static byte[] unary(Channel channel, byte[] message) {
        return ClientCalls.blockingUnaryCall(channel, GrpcEchoService.UNARY,
                CallOptions.DEFAULT.withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS), message);
    }

    /**
     * Sends {@code messages} on one {@link GrpcEchoService#STREAM} call, ends it, and returns the messages
     * that came back.
     *
     * @throws ExecutionException if the call failed
     * @throws TimeoutException if it did not end within a minute
     */
    public static List<byte[]> stream(Channel channel, List<byte[]> messages)
            throws InterruptedException, ExecutionException, TimeoutException {
        Collector answers = new Collector();
        StreamObserver<byte[]> requests = ClientCalls.asyncBidiStreamingCall(channel.newCall(GrpcEchoService.STREAM,
                CallOptions.DEFAULT.withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS)), answers);
        for (byte[] message : messages) {
            requests.onNext(message);
        }
        requests.onCompleted();
        return answers.done.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    /** Returns messages of {@code sizes} bytes, one per size, filled by {@code random}. */
    public static List<byte[]> messages(Random random, int... sizes) {
        List<byte[]> messages = new ArrayList<>(sizes.length);
        for (int size : sizes) {
            byte[] message = new byte[size];
            random.nextBytes(message);
            messages.add(message);
        }
        return messages;
    }

    /**
     * Returns the CRC32 of {@code messages}, one after another.
     */
    public static long crc32(List<byte[]> messages) {
        CRC32 crc = new CRC32();
        messages.forEach(crc::update);
        return crc.getValue();
    }

    private static void report(String kind, List<byte[]> sent, List<byte[]> echoed, Transport transport,
                               InetSocketAddress address, long start) {
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        if (echoed.size() != sent.size()) {
            throw new IllegalStateException(sent.size() + " " + kind + " sent, " + echoed.size() + " came back");
        }
        for (int i = 0; i < sent.size(); i++) {
            if (!Arrays.equals(sent.get(i), echoed.get(i))) {
                throw new IllegalStateException("message " + i + " of the " + kind + " came back changed");
            }
        }
        System.out.printf("grpc echo: %d %s of %d bytes over %s to %s came back unchanged, crc32 sent %08x, "
                + "echoed %08x (%d ms)%n", sent.size(), kind, sent.get(0).length, transport.displayName(), address,
                crc32(sent), crc32(echoed), millis);
    }

    /** Keeps the answers of a stream; completes with them when the server ends it. */
    private static final class Collector implements StreamObserver<byte[]> {
        final CompletableFuture<List<byte[]>> done = new CompletableFuture<>();
        private final List<byte[]> answers = new ArrayList<>();

        @Override
        public void onNext(byte[] message) {
            answers.add(message);
        }

        @Override
        public void onError(Throwable cause) {
            done.completeExceptionally(cause);
        }

        @Override
        public void onCompleted() {
            done.complete(answers);
        }
    }
}
