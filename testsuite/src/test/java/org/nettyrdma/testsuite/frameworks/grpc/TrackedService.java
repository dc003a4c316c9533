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

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import io.grpc.MethodDescriptor;
import io.grpc.MethodDescriptor.MethodType;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import org.nettyrdma.example.grpc.ByteArrayMarshaller;
import org.nettyrdma.example.grpc.GrpcEchoService;

/**
 * A service of the tests' own that says what happened to its calls on the server's side: {@link #HOLD}
 * never answers, so only a deadline, a cancellation or the end of the connection ends it;
 * {@link #ECHO} echoes every message of a bidirectional stream with the example's handler. Each counts the
 * calls that started, and completes {@link #cancelled()} when the first of them is cancelled (by the
 * client, its deadline, or the loss of its connection). Thread-safe.
 */
final class TrackedService {

    static final String SERVICE_NAME = "nettyrdma.test.Tracked";
    static final MethodDescriptor<byte[], byte[]> HOLD =
            ByteArrayMarshaller.method(MethodType.UNARY, SERVICE_NAME, "Hold");
    static final MethodDescriptor<byte[], byte[]> ECHO =
            ByteArrayMarshaller.method(MethodType.BIDI_STREAMING, SERVICE_NAME, "Echo");

    private final AtomicInteger started = new AtomicInteger();
    private final AtomicInteger cancelledCount = new AtomicInteger();
    private final CompletableFuture<Void> firstCancelled = new CompletableFuture<>();

    ServerServiceDefinition definition() {
        return ServerServiceDefinition.builder(SERVICE_NAME)
                .addMethod(HOLD, ServerCalls.asyncUnaryCall((request, answer) -> track(answer)))
                .addMethod(ECHO, ServerCalls.asyncBidiStreamingCall(answers -> {
                    track(answers);
                    return GrpcEchoService.echo(answers);
                }))
                .build();
    }

    private void track(StreamObserver<byte[]> answer) {
        started.incrementAndGet();
        ((ServerCallStreamObserver<byte[]>) answer).setOnCancelHandler(() -> {
            cancelledCount.incrementAndGet();
            firstCancelled.complete(null);
        });
    }

    /** Returns how many calls started on the server. */
    int started() {
        return started.get();
    }

    /** Returns how many calls the server saw cancelled. */
    int cancelledCount() {
        return cancelledCount.get();
    }

    /** Completes when the server saw the first call cancelled. */
    CompletableFuture<Void> cancelled() {
        return firstCancelled;
    }
}
