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

import java.io.IOException;
import java.net.InetSocketAddress;

import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.EventLoopGroup;
import org.nettyrdma.example.ExampleOptions;
import org.nettyrdma.example.Transport;

/**
 * Serves {@link GrpcEchoService} over RDMA or TCP with gRPC-java's Netty server. Three calls of the
 * builder name the transport; over RDMA they read
 *
 * <pre>{@code
 * EventLoopGroup group = new MultiThreadIoEventLoopGroup(RdmaIoHandler.newFactory());
 * Server server = NettyServerBuilder.forAddress(new InetSocketAddress("10.77.0.1", 50051))
 *         .channelType(RdmaServerSocketChannel.class)
 *         .bossEventLoopGroup(group)
 *         .workerEventLoopGroup(group)
 *         .addService(...).build().start();
 * }</pre>
 *
 * gRPC wants the three together or none of them. Start it, then {@link GrpcEchoClient}:
 *
 * <pre>
 * java ... org.nettyrdma.example.grpc.GrpcEchoServer --transport rdma --host 10.77.0.1
 * </pre>
 *
 * Over RDMA, {@code --host} must be the address of an RDMA interface: RDMA CM finds the device by it.
 */
public final class GrpcEchoServer {

    /** The port the gRPC examples use unless told otherwise. */
    public static final int DEFAULT_PORT = 50051;

    private static final String USAGE =
            "usage: GrpcEchoServer [--transport rdma|rdma-busypoll|nio|epoll] [--host ADDRESS] "
                    + "[--port " + DEFAULT_PORT + "]";

    private GrpcEchoServer() {
    }

    /** Runs the server until it is killed. */
    public static void main(String[] args) throws Exception {
        ExampleOptions options = ExampleOptions.parse(USAGE, args);
        Transport transport = options.transport();
        InetSocketAddress address = options.address(DEFAULT_PORT);
        options.checkAllRead();

        EventLoopGroup group = transport.newEventLoopGroup(2);
        try {
            Server server = start(group, transport, address);
            System.out.println("grpc server over " + transport.displayName() + " on " + server.getListenSockets());
            server.awaitTermination();
        } finally {
            group.shutdownGracefully();
        }
    }

    /**
     * Starts a gRPC server of {@code transport} on {@code address}, serving {@link GrpcEchoService}, its
     * listener and its connections on {@code group}. The caller shuts it down; the group stays the caller's.
     */
    public static Server start(EventLoopGroup group, Transport transport, InetSocketAddress address)
            throws IOException {
        return builder(group, transport, address).addService(GrpcEchoService.definition()).build().start();
    }

    /**
     * Returns a server builder of {@code transport} on {@code address} whose listener and connections run
     * on {@code group}, admitting {@link GrpcEchoService#MAX_MESSAGE_SIZE}, for the caller to add services to.
     */
    public static NettyServerBuilder builder(EventLoopGroup group, Transport transport, InetSocketAddress address) {
        return NettyServerBuilder.forAddress(address)
                .channelType(transport.serverSocketChannelClass())
                .bossEventLoopGroup(group)
                .workerEventLoopGroup(group)
                .maxInboundMessageSize(GrpcEchoService.MAX_MESSAGE_SIZE)
                // The echo never blocks, so it runs on the connection's event loop, without a thread hop.
                .directExecutor();
    }
}
