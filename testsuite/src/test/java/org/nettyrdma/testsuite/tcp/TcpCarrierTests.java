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
package org.nettyrdma.testsuite.tcp;

import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

import org.nettyrdma.channel.rdma.Rdma;
import org.nettyrdma.testsuite.netty.RdmaSocketTestPermutation;

/**
 * Where Netty's socket testsuite runs over the TCP carrier: the channels and loops of
 * {@link RdmaSocketTestPermutation}, on the loopback address of a host without RDMA, so that every
 * connection is carried by TCP and the tests are the ones Netty runs against epoll, through the bridge
 * between the channels and their epoll carriers.
 */
final class TcpCarrierTests {

    private TcpCarrierTests() {
    }

    /** Aborts the calling test class where RDMA is available: its channels would not fall back. */
    static void assumeNoRdma() {
        assumeFalse(Rdma.isAvailable(), "Netty's testsuite over the TCP carrier runs where this process has no "
                + "RDMA; with RDMA it runs over RDMA (org.nettyrdma.testsuite.netty)");
    }

    /** Returns the loopback address with port 0. */
    static SocketAddress newSocketAddress() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    }
}
