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
package org.nettyrdma.testsuite.frameworks.grpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.example.grpc.GrpcEchoClient;
import org.nettyrdma.example.grpc.GrpcEchoService;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * The gRPC example's echo service over RDMA, messages from empty to 4 MiB (in one Send, across the
 * slot size, in many Sends and HTTP/2 frames, beyond gRPC's default limit), unary and on one
 * bidirectional stream, each compared byte for byte and by the CRC32 of all of them; and 64 calls at
 * once on one channel, which gRPC multiplexes over one connection.
 */
class GrpcEchoTest {

    private static final int[] SIZES = {0, 1, 8191, 8192, 65_536, 1 << 20, GrpcEchoClient.MAX_SIZE};
    private static final int CONCURRENT_CALLS = 64;
    private static final long CALL_BOUND_SECONDS = 60;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    @Test
    void unaryCallsOfEverySizeComeBackUnchanged() throws Exception {
        try (GrpcEndpoints grpc = new GrpcEndpoints(rdma.group())) {
            ManagedChannel channel = grpc.channel();
            List<byte[]> sent = messages(1, SIZES);
            List<byte[]> echoed = new ArrayList<>();
            for (byte[] message : sent) {
                echoed.add(GrpcEchoClient.unary(channel, message));
            }
            assertEchoed(sent, echoed);
        }
    }

    @Test
    void aStreamCarriesMessagesOfEverySizeInOrder() throws Exception {
        try (GrpcEndpoints grpc = new GrpcEndpoints(rdma.group())) {
            List<byte[]> sent = messages(2, SIZES);
            assertEchoed(sent, GrpcEchoClient.stream(grpc.channel(), sent));
        }
    }

    @Test
    void sixtyFourCallsAtOnceShareOneConnection() throws Exception {
        int[] sizes = new int[CONCURRENT_CALLS];
        Random random = new Random(3);
        for (int i = 0; i < sizes.length; i++) {
            // Most fit a Send, some take several: up to 64 KiB.
            sizes[i] = random.nextInt(i % 8 == 0 ? 65_536 : 4096);
        }
        List<byte[]> sent = messages(4, sizes);
        try (GrpcEndpoints grpc = new GrpcEndpoints(rdma.group())) {
            ManagedChannel channel = grpc.channel();
            List<CompletableFuture<byte[]>> calls = new ArrayList<>();
            for (byte[] message : sent) {
                calls.add(unaryCall(channel, message));
            }
            List<byte[]> echoed = new ArrayList<>();
            for (CompletableFuture<byte[]> call : calls) {
                echoed.add(call.get(CALL_BOUND_SECONDS, TimeUnit.SECONDS));
            }
            assertEchoed(sent, echoed);
            assertEquals(1, grpc.transportsReady(), "the server took one connection for all the calls");
        }
    }

    /** Starts a unary echo call of {@code message}; its answer completes the future. */
    private static CompletableFuture<byte[]> unaryCall(ManagedChannel channel, byte[] message) {
        CompletableFuture<byte[]> answer = new CompletableFuture<>();
        ClientCalls.asyncUnaryCall(channel.newCall(GrpcEchoService.UNARY,
                CallOptions.DEFAULT.withDeadlineAfter(CALL_BOUND_SECONDS, TimeUnit.SECONDS)), message,
                new StreamObserver<>() {
                    @Override
                    public void onNext(byte[] value) {
                        answer.complete(value);
                    }

                    @Override
                    public void onError(Throwable cause) {
                        answer.completeExceptionally(cause);
                    }

                    @Override
                    public void onCompleted() {
                        answer.completeExceptionally(new AssertionError("completed without an answer"));
                    }
                });
        return answer;
    }

    /** Returns messages of {@code sizes} random bytes of {@code seed}: the same on every run. */
    static List<byte[]> messages(long seed, int... sizes) {
        return GrpcEchoClient.messages(new Random(seed), sizes);
    }

    /** Asserts that {@code echoed} holds the bytes of {@code sent}, message by message, and their CRC32. */
    static void assertEchoed(List<byte[]> sent, List<byte[]> echoed) {
        assertEquals(sent.size(), echoed.size(), "messages that came back");
        for (int i = 0; i < sent.size(); i++) {
            assertEquals(sent.get(i).length, echoed.get(i).length, "the length of message " + i);
            assertArrayEquals(sent.get(i), echoed.get(i), "message " + i);
        }
        assertEquals(GrpcEchoClient.crc32(sent), GrpcEchoClient.crc32(echoed), "the CRC32 of all messages");
    }
}
