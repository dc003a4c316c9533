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

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;

import io.grpc.MethodDescriptor;
import io.grpc.MethodDescriptor.MethodType;
import io.grpc.Status;

/**
 * A gRPC message that is its own bytes: what lets {@link GrpcEchoService} define its methods without
 * protobuf and without generated code. gRPC reads the length of a {@link ByteArrayInputStream} without
 * draining it, so a message is framed in one pass. Stateless and thread-safe.
 */
public final class ByteArrayMarshaller implements MethodDescriptor.Marshaller<byte[]> {

    /** The marshaller; it keeps no state, so one serves every method. */
    public static final ByteArrayMarshaller INSTANCE = new ByteArrayMarshaller();

    private ByteArrayMarshaller() {
    }

    /** Returns the descriptor of a method {@code service/name} of {@code type} whose messages are plain bytes. */
    public static MethodDescriptor<byte[], byte[]> method(MethodType type, String service, String name) {
        return MethodDescriptor.<byte[], byte[]>newBuilder()
                .setType(type)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(service, name))
                .setRequestMarshaller(INSTANCE)
                .setResponseMarshaller(INSTANCE)
                .build();
    }

    @Override
    public InputStream stream(byte[] value) {
        return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
        try {
            return stream.readAllBytes();
        } catch (IOException e) {
            // gRPC fails the call with this status instead of the connection.
            throw Status.INTERNAL.withDescription("reading a message failed").withCause(e).asRuntimeException();
        }
    }
}
