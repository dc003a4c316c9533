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
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketSslEchoTest;
import org.junit.jupiter.api.BeforeAll;

/** Netty's {@code SocketSslEchoTest} with an RDMA server and an RDMA client. */
class RdmaSocketSslEchoTest extends SocketSslEchoTest {

    @BeforeAll
    static void requireDevice() throws Exception {
        RdmaSocketTestPermutation.assumeDevice();
        // The first combination's contexts: TLS compiled before the first timed test (TlsWarmUp).
        Object[] first = data().iterator().next();
        TlsWarmUp.run((SslContext) first[0], (SslContext) first[1], 4 << 20, 20);
    }

    @Override
    protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return RdmaSocketTestPermutation.INSTANCE.socket();
    }

    /**
     * Netty's matrix is every context pair x renegotiation type x 32 combinations of five flags; under
     * full emulation that is hours. Four flag combinations (00000, 11111, 01010, 10101) keep every flag
     * on and off, and every pair of neighbouring flags differing, for every context pair and renegotiation
     * type. {@code RDMA_FULL_TESTSUITE=1} runs the whole matrix.
     */
    public static Collection<Object[]> data() throws Exception {
        Collection<Object[]> all = SocketSslEchoTest.data();
        if ("1".equals(System.getenv("RDMA_FULL_TESTSUITE"))) {
            return all;
        }
        List<Object[]> sample = new ArrayList<>();
        int i = 0;
        for (Object[] parameters : all) {
            int flags = i++ % 32;
            if (flags == 0 || flags == 31 || flags == 10 || flags == 21) {
                sample.add(parameters);
            }
        }
        return sample;
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
