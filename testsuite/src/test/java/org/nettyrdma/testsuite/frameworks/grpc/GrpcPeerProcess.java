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

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import io.netty.channel.EventLoopGroup;
import org.nettyrdma.example.Transport;
import org.nettyrdma.example.grpc.GrpcEchoClient;

/**
 * The gRPC peer of a fault test, in a process of its own ({@code ChildJvm}) so that the fault can be a
 * process's death. It says what happens in lines on its standard output, which the test waits for:
 * <ul>
 *   <li>{@code server}: a server as {@link GrpcEndpoints} starts it, on the test device's address;
 *       prints {@code listening <port>} and runs until killed;</li>
 *   <li>{@code stream HOST PORT}: a client on one {@link TrackedService#ECHO} stream that sends a
 *       64 KiB message each time the last one came back; prints {@code streaming} once the first came
 *       back, and {@code ended: <status>} if the call ends.</li>
 * </ul>
 */
public final class GrpcPeerProcess {

    /**
     * The peer's JVM flags beside the test JVM's: no leak detection, whose reports nobody reads in the
     * peer, and only the first JIT tier, which starts gRPC's classes sooner under emulation.
     */
    static final List<String> PEER_FLAGS = List.of("-Dio.netty.leakDetection.level=disabled",
            "-XX:TieredStopAtLevel=1");

    private static final int MESSAGE = 64 * 1024;

    private GrpcPeerProcess() {
    }

    public static void main(String[] args) throws Exception {
        EventLoopGroup group = Transport.RDMA.newEventLoopGroup(2);
        try {
            switch (args[0]) {
                case "server":
                    serve(group);
                    break;
                case "stream":
                    stream(group, new InetSocketAddress(args[1], Integer.parseInt(args[2])));
                    break;
                default:
                    throw new IllegalArgumentException("mode: " + args[0] + " (expected: server, stream)");
            }
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    private static void serve(EventLoopGroup group) throws Exception {
        try (GrpcEndpoints grpc = new GrpcEndpoints(group)) {
            say("listening " + grpc.address().getPort());
            grpc.server().awaitTermination();
        }
    }

    private static void stream(EventLoopGroup group, InetSocketAddress server) throws InterruptedException {
        ManagedChannel channel = GrpcEchoClient.newChannel(group, Transport.RDMA, server);
        byte[] message = new byte[MESSAGE];
        ClientCalls.asyncBidiStreamingCall(channel.newCall(TrackedService.ECHO, CallOptions.DEFAULT),
                new ClientResponseObserver<byte[], byte[]>() {
                    private ClientCallStreamObserver<byte[]> requests;
                    private boolean first = true;

                    @Override
                    public void beforeStart(ClientCallStreamObserver<byte[]> requests) {
                        this.requests = requests;
                    }

                    @Override
                    public void onNext(byte[] echoed) {
                        if (first) {
                            first = false;
                            say("streaming");
                        }
                        requests.onNext(message);
                    }

                    @Override
                    public void onError(Throwable cause) {
                        say("ended: " + cause);
                    }

                    @Override
                    public void onCompleted() {
                        say("ended: completed");
                    }
                }).onNext(message);
        channel.awaitTermination(1, TimeUnit.DAYS);
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
