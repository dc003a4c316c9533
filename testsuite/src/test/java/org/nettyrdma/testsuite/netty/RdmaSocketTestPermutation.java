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
package org.nettyrdma.testsuite.netty;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapFactory;
import io.netty.testsuite.transport.TestsuitePermutation;
import io.netty.testsuite.transport.socket.SocketTestPermutation;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.nettyrdma.channel.rdma.Rdma;
import org.nettyrdma.channel.rdma.RdmaByteBufAllocator;
import org.nettyrdma.channel.rdma.RdmaIoHandler;
import org.nettyrdma.channel.rdma.RdmaServerSocketChannel;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.testkit.RdmaTestEnvironment;

/**
 * Runs Netty's own socket testsuite with an RDMA server and an RDMA client, on the RDMA interface's
 * address: the same tests Netty runs against NIO, epoll and io_uring.
 */
public final class RdmaSocketTestPermutation extends SocketTestPermutation {

    /** The shared instance, like {@code SocketTestPermutation.INSTANCE}. */
    public static final RdmaSocketTestPermutation INSTANCE = new RdmaSocketTestPermutation();

    private static final String ADDRESS_VARIABLE = "RDMA_TEST_ADDRESS";

    private EventLoopGroup group;

    private RdmaSocketTestPermutation() {
    }

    /** Aborts the calling test class unless an RDMA device is present. */
    public static void assumeDevice() {
        assumeTrue(System.getenv(ADDRESS_VARIABLE) != null && Files.exists(Path.of("/dev/infiniband/rdma_cm")),
                "Netty's testsuite over RDMA needs an RDMA device: run it with scripts/test-all (rxe VM) or set "
                        + ADDRESS_VARIABLE);
        Rdma.ensureAvailability();
    }

    /**
     * Returns Netty's allocators and the RDMA channels' default one, whose direct buffers are sent
     * without a copy: every class runs with each.
     */
    public static List<ByteBufAllocator> allocators() {
        List<ByteBufAllocator> allocators = new ArrayList<>(TestsuitePermutation.allocator());
        allocators.add(RdmaByteBufAllocator.DEFAULT);
        return allocators;
    }

    /**
     * Returns the RDMA interface's address with port 0: its IPv4 address, or with
     * {@code RDMA_TEST_IPV6=1} its IPv6 one ({@link RdmaTestEnvironment#address()}).
     */
    public static SocketAddress newSocketAddress() {
        return new InetSocketAddress(RdmaTestEnvironment.address(), 0);
    }

    private synchronized EventLoopGroup group() {
        if (group == null) {
            group = new MultiThreadIoEventLoopGroup(2, new DefaultThreadFactory("testsuite-rdma", true),
                    RdmaIoHandler.newFactory());
        }
        return group;
    }

    @Override
    public List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> socket() {
        return combo(serverSocket(), clientSocket());
    }

    @Override
    public List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> socketWithFastOpen() {
        return socket();
    }

    @Override
    public List<BootstrapFactory<ServerBootstrap>> serverSocket() {
        return Collections.singletonList(() -> new ServerBootstrap().group(group())
                .channel(RdmaServerSocketChannel.class));
    }

    @Override
    public List<BootstrapFactory<Bootstrap>> clientSocket() {
        return Collections.singletonList(() -> new Bootstrap().group(group()).channel(RdmaSocketChannel.class));
    }

    @Override
    public List<BootstrapFactory<Bootstrap>> clientSocketWithFastOpen() {
        return clientSocket();
    }
}
