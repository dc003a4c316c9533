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

import java.net.SocketAddress;
import java.util.List;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapFactory;
import io.netty.testsuite.transport.socket.SocketChannelNotYetConnectedTest;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** Netty's {@code SocketChannelNotYetConnectedTest} with an RDMA client. */
class RdmaSocketChannelNotYetConnectedTest extends SocketChannelNotYetConnectedTest {

    @BeforeAll
    static void requireDevice() {
        RdmaSocketTestPermutation.assumeDevice();
    }

    @Override
    protected List<BootstrapFactory<Bootstrap>> newFactories() {
        return RdmaSocketTestPermutation.INSTANCE.clientSocket();
    }

    @Override
    @Test
    @Disabled("connects the client to a NIO (TCP) server on the wildcard address; an RDMA channel can only "
            + "connect to an RDMA listener (testsuite-exclusions in docs/netty-testsuite.md)")
    public void readMustBePendingUntilChannelIsActive(TestInfo info) {
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return RdmaSocketTestPermutation.newSocketAddress();
    }

    @Override
    protected List<ByteBufAllocator> newAllocators() {
        return RdmaSocketTestPermutation.allocators();
    }
}
