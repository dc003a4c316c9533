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
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.example.grpc.GrpcEchoClient;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * How gRPC calls end early over RDMA, and that the connection outlives them: a call past its deadline
 * fails with {@code DEADLINE_EXCEEDED} and the server sees it cancelled; a stream the client cancels in
 * the middle ends with {@code CANCELLED} on the client and is cancelled on the server. Each ends one
 * HTTP/2 stream with {@code RST_STREAM}, not the connection: the next call on the channel is answered.
 */
class GrpcCallLifecycleTest {

    /** Short, so that the test does not wait long; the call it bounds is never answered anyway. */
    private static final long DEADLINE_MILLIS = 500;
    /** Generous for emulation: what a real device does in milliseconds. */
    private static final long BOUND_SECONDS = 30;
    private static final int MESSAGE = 32 * 1024;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    @Test
    void aCallPastItsDeadlineFailsAndTheServerSeesItCancelled() throws Exception {
        try (GrpcEndpoints grpc = new GrpcEndpoints(rdma.group())) {
            ManagedChannel channel = grpc.channel();
            StatusRuntimeException failure = assertThrows(StatusRuntimeException.class,
                    () -> ClientCalls.blockingUnaryCall(channel, TrackedService.HOLD, CallOptions.DEFAULT
                            .withDeadlineAfter(DEADLINE_MILLIS, TimeUnit.MILLISECONDS), new byte[MESSAGE]));
            assertEquals(Status.Code.DEADLINE_EXCEEDED, failure.getStatus().getCode(), failure.toString());
            grpc.tracked.cancelled().get(BOUND_SECONDS, TimeUnit.SECONDS);
            assertEquals(1, grpc.tracked.started());
            assertEchoesNext(grpc, channel);
        }
    }

    @Test
    void aStreamCancelledMidwayEndsOnBothSides() throws Exception {
        try (GrpcEndpoints grpc = new GrpcEndpoints(rdma.group())) {
            ManagedChannel channel = grpc.channel();
            BlockingQueue<byte[]> answers = new LinkedBlockingQueue<>();
            CompletableFuture<Status> ended = new CompletableFuture<>();
            CompletableFuture<ClientCallStreamObserver<byte[]>> call = new CompletableFuture<>();
            ClientCalls.asyncBidiStreamingCall(channel.newCall(TrackedService.ECHO, CallOptions.DEFAULT),
                    new ClientResponseObserver<byte[], byte[]>() {
                        @Override
                        public void beforeStart(ClientCallStreamObserver<byte[]> requests) {
                            call.complete(requests);
                        }

                        @Override
                        public void onNext(byte[] message) {
                            answers.add(message);
                        }

                        @Override
                        public void onError(Throwable cause) {
                            ended.complete(Status.fromThrowable(cause));
                        }

                        @Override
                        public void onCompleted() {
                            ended.complete(Status.OK);
                        }
                    });
            ClientCallStreamObserver<byte[]> requests = call.get(BOUND_SECONDS, TimeUnit.SECONDS);
            for (byte[] message : GrpcEchoTest.messages(5, MESSAGE, 1, MESSAGE)) {
                requests.onNext(message);
                assertArrayEquals(message, answers.poll(BOUND_SECONDS, TimeUnit.SECONDS),
                        "an echo before the cancellation");
            }
            // Mid-stream: the client has not ended its side, the server has not ended the call.
            requests.cancel("the test cancels mid-stream", null);

            Status status = ended.get(BOUND_SECONDS, TimeUnit.SECONDS);
            assertEquals(Status.Code.CANCELLED, status.getCode(), status.toString());
            grpc.tracked.cancelled().get(BOUND_SECONDS, TimeUnit.SECONDS);
            assertEquals(1, grpc.tracked.cancelledCount());
            assertEchoesNext(grpc, channel);
        }
    }

    /** The connection outlived the call: the next call on the channel is answered, on the same connection. */
    private static void assertEchoesNext(GrpcEndpoints grpc, ManagedChannel channel) {
        byte[] message = GrpcEchoTest.messages(9, MESSAGE).get(0);
        assertArrayEquals(message, GrpcEchoClient.unary(channel, message));
        assertEquals(1, grpc.transportsReady(), "one connection carried both calls");
    }
}
