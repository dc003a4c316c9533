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
package org.nettyrdma.reactor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.unix.ServerDomainSocketChannel;
import org.junit.jupiter.api.Test;
import org.nettyrdma.channel.rdma.Rdma;
import org.nettyrdma.channel.rdma.RdmaServerSocketChannel;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;

/**
 * What the Reactor Netty loop resources decide without a device: which channel class serves each type
 * Reactor asks for, and that they refuse to be made where RDMA cannot be used, with the reason.
 */
class RdmaLoopResourcesTest {

    @Test
    void tcpTypesAreServedByRdmaAndTheOthersByEpoll() {
        assertSame(RdmaSocketChannel.class, RdmaChannelTypes.classFor(SocketChannel.class));
        assertSame(RdmaServerSocketChannel.class, RdmaChannelTypes.classFor(ServerSocketChannel.class));
        assertSame(EpollDatagramChannel.class, RdmaChannelTypes.classFor(DatagramChannel.class));
        assertSame(EpollServerDomainSocketChannel.class, RdmaChannelTypes.classFor(ServerDomainSocketChannel.class));
    }

    @Test
    void anotherChannelTypeIsRefusedByName() {
        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class,
                () -> RdmaChannelTypes.classFor(NioSocketChannel.class));
        assertTrue(failure.getMessage().contains(NioSocketChannel.class.getName()), failure.getMessage());
    }

    @Test
    void creatingThemWithoutRdmaFailsWithTheCause() {
        assumeFalse(Rdma.isAvailable(), "RDMA is available here");
        IllegalStateException failure = assertThrows(IllegalStateException.class,
                () -> RdmaLoopResources.create("test"));
        assertSame(Rdma.unavailabilityCause(), failure.getCause());
        assertEquals("the RDMA transport is unavailable: " + Rdma.unavailabilityCause().getMessage(),
                failure.getMessage());
    }
}
