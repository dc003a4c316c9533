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

import java.net.SocketAddress;
import java.util.List;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketGatheringWriteTest;
import org.junit.jupiter.api.BeforeAll;
import org.nettyrdma.testsuite.netty.RdmaSocketTestPermutation;

/** Netty's {@code SocketGatheringWriteTest} with a server and a client of this transport, both carried by TCP. */
class TcpCarrierSocketGatheringWriteTest extends SocketGatheringWriteTest {

    @BeforeAll
    static void requireNoRdma() {
        TcpCarrierTests.assumeNoRdma();
    }

    @Override
    protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return RdmaSocketTestPermutation.INSTANCE.socket();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return TcpCarrierTests.newSocketAddress();
    }
}
