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
package org.nettyrdma.example;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.List;

import org.junit.jupiter.api.Test;

class ExampleOptionsTest {

    @Test
    void readsBothSpellingsOfAnOption() {
        ExampleOptions options = ExampleOptions.of("--transport", "nio", "--port=9000", "--host", "127.0.0.1");
        assertEquals(Transport.NIO, options.transport());
        assertEquals(new InetSocketAddress("127.0.0.1", 9000), options.address(8007));
        options.checkAllRead();
    }

    @Test
    void defaultsApplyToOptionsNotGiven() {
        ExampleOptions options = ExampleOptions.of();
        assertEquals(Transport.RDMA, options.transport());
        assertEquals(8007, options.port(8007));
        assertEquals(10, options.integer("count", 10));
        assertArrayEquals(new int[] {64, 4096}, options.integers("sizes", 64, 4096));
        assertEquals(2.5, options.seconds("warmup", 2.5));
    }

    @Test
    void anRdmaOnlyExampleRefusesTcpSayingWhy() {
        assertEquals(Transport.RDMA_BUSYPOLL, ExampleOptions.of("--transport", "rdma-busypoll").rdmaTransport("why"));
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> ExampleOptions.of("--transport", "nio").rdmaTransport("one-sided operations need RDMA"));
        assertTrue(refused.getMessage().contains("one-sided operations need RDMA"), refused::getMessage);
        assertTrue(refused.getMessage().contains("--transport nio"), refused::getMessage);
    }

    @Test
    void hostDefaultsToTheRdmaTestAddressOrLoopback() {
        String fromEnvironment = System.getenv("RDMA_TEST_ADDRESS");
        String expected = fromEnvironment != null && !fromEnvironment.isEmpty() ? fromEnvironment : "127.0.0.1";
        assertEquals(expected, ExampleOptions.of().host());
    }

    @Test
    void sizesTakeBinarySuffixes() {
        ExampleOptions options = ExampleOptions.of("--sizes", "64, 4k,64K,1m", "--size", "0");
        assertArrayEquals(new int[] {64, 4096, 65536, 1 << 20}, options.integers("sizes"));
        assertEquals(0, options.integer("size", 1));
    }

    @Test
    void transportsAreAListInTheOrderGiven() {
        assertEquals(List.of(Transport.RDMA, Transport.EPOLL), ExampleOptions.of().transports("rdma,epoll"));
        assertEquals(List.of(Transport.EPOLL, Transport.NIO),
                ExampleOptions.of("--transports", "epoll, nio").transports("rdma"));
        assertMessage("--transports: tcp (expected: rdma, rdma-nopoll, rdma-busypoll, nio or epoll)",
                () -> ExampleOptions.of("--transports", "rdma,tcp").transports("rdma"));
    }

    @Test
    void secondsMayBeFractional() {
        assertEquals(0.25, ExampleOptions.of("--time", "0.25").seconds("time", 3));
    }

    @Test
    void rejectsMalformedCommandLines() {
        assertMessage("unexpected argument: nio (expected: --name value)", () -> ExampleOptions.of("nio"));
        assertMessage("unexpected argument: -- (expected: --name value)", () -> ExampleOptions.of("--"));
        assertMessage("--port needs a value", () -> ExampleOptions.of("--port"));
        assertMessage("--port given twice", () -> ExampleOptions.of("--port", "1", "--port=2"));
    }

    @Test
    void rejectsValuesThatDoNotFit() {
        assertMessage("--transport: tcp (expected: rdma, rdma-nopoll, rdma-busypoll, nio or epoll)",
                () -> ExampleOptions.of("--transport", "tcp").transport());
        assertMessage("--port: 70000 (expected: 0-65535)", () -> ExampleOptions.of("--port", "70000").port(1));
        assertMessage("--count: -1 (expected: an integer >= 0, optionally with k or m)",
                () -> ExampleOptions.of("--count", "-1").integer("count", 1));
        assertMessage("--sizes: 4x (expected: an integer >= 0, optionally with k or m)",
                () -> ExampleOptions.of("--sizes", "64,4x").integers("sizes"));
        assertMessage("--sizes: 4096m (expected: an integer >= 0, optionally with k or m)",
                () -> ExampleOptions.of("--sizes", "4096m").integers("sizes"));
        assertMessage("--time: 0 (expected: seconds > 0)", () -> ExampleOptions.of("--time", "0").seconds("time", 1));
        assertMessage("--time: soon (expected: seconds > 0)",
                () -> ExampleOptions.of("--time", "soon").seconds("time", 1));
    }

    @Test
    void anOptionNoOneReadIsAMistake() {
        ExampleOptions options = ExampleOptions.of("--transport", "nio", "--prot", "8007");
        options.transport();
        options.port(8007);
        assertMessage("unknown option: --prot", options::checkAllRead);
    }

    private static void assertMessage(String expected, Runnable parse) {
        assertEquals(expected, assertThrows(IllegalArgumentException.class, parse::run).getMessage());
    }
}
