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

import io.grpc.MethodDescriptor;
import io.grpc.MethodDescriptor.MethodType;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;

/**
 * The echo service of the gRPC example, written by hand instead of generated from a {@code .proto}
 * file: two methods whose messages are plain bytes ({@link ByteArrayMarshaller}). {@link #UNARY}
 * answers a request with its own bytes; {@link #STREAM} answers every message of a bidirectional
 * stream with its own bytes, in order, and ends the stream when the client ends its side. Nothing in
 * it knows the transport: the same definition serves over TCP and RDMA.
 */
public final class GrpcEchoService {

    /** The service's name, as a {@code .proto} file would give it. */
    public static final String SERVICE_NAME = "nettyrdma.example.Echo";

    /**
     * The largest message either side accepts: room for the example's 4 MiB messages, which gRPC's
     * default limit (4 MiB, the frame's 5-byte prefix not counted) admits only just.
     */
    public static final int MAX_MESSAGE_SIZE = 8 << 20;

    /** One request, one answer: the request's bytes. */
    public static final MethodDescriptor<byte[], byte[]> UNARY =
            ByteArrayMarshaller.method(MethodType.UNARY, SERVICE_NAME, "Unary");

    /** A bidirectional stream: each message comes back as it arrives. */
    public static final MethodDescriptor<byte[], byte[]> STREAM =
            ByteArrayMarshaller.method(MethodType.BIDI_STREAMING, SERVICE_NAME, "Stream");

    private GrpcEchoService() {
    }

    /** Returns the service with both methods, for {@code ServerBuilder.addService}. */
    public static ServerServiceDefinition definition() {
        return ServerServiceDefinition.builder(SERVICE_NAME)
                .addMethod(UNARY, ServerCalls.asyncUnaryCall((request, answer) -> {
                    answer.onNext(request);
                    answer.onCompleted();
                }))
                .addMethod(STREAM, ServerCalls.asyncBidiStreamingCall(GrpcEchoService::echo))
                .build();
    }

    /**
     * Returns the handler of a stream's messages that writes each one back to {@code answers} and ends
     * them when the requests end.
     */
    public static StreamObserver<byte[]> echo(StreamObserver<byte[]> answers) {
        return new EchoStream(answers);
    }

    /** Writes every message of a stream back; ends the answer when the requests end. */
    private static final class EchoStream implements StreamObserver<byte[]> {
        private final StreamObserver<byte[]> answers;

        EchoStream(StreamObserver<byte[]> answers) {
            this.answers = answers;
        }

        @Override
        public void onNext(byte[] message) {
            answers.onNext(message);
        }

        @Override
        public void onError(Throwable cause) {
            // The client cancelled, or its connection is gone: gRPC has closed the call already.
        }

        @Override
        public void onCompleted() {
            answers.onCompleted();
        }
    }
}
