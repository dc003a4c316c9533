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
package org.nettyrdma.benchmark.frameworks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.nettyrdma.benchmark.frameworks.FrameworkBenchmark.Figures;
import org.nettyrdma.example.Transport;

/**
 * The frameworks' hello benchmark: its summary line from given figures, and a short run of each
 * framework's rig over NIO on the loopback interface, whose figures are not checked.
 */
class FrameworkBenchmarkTest {

    @Test
    void theSummaryLineHoldsMediansSpreadsAndRatios() {
        FrameworkBenchmark benchmark = new FrameworkBenchmark("vertx", (transport, host) -> {
            throw new AssertionError("no rig is started");
        }, "10.77.0.1", List.of(Transport.RDMA, Transport.EPOLL), 3, 4, 1, 1);
        Map<Transport, List<Figures>> measured = new LinkedHashMap<>();
        measured.put(Transport.RDMA, List.of(new Figures(100, 300, 10, 2000), new Figures(120, 280, 10, 2200),
                new Figures(110, 310, 10, 1800)));
        measured.put(Transport.EPOLL, List.of(new Figures(220, 600, 10, 1000), new Figures(200, 500, 10, 1100),
                new Figures(210, 550, 10, 900)));
        assertEquals("framework vertx rounds=3 connections=4"
                + " rdma_p50_us=110.0[100.0-120.0] rdma_p99_us=300.0[280.0-310.0] rdma_rps=2000.0[1800.0-2200.0]"
                + " epoll_p50_us=210.0[200.0-220.0] epoll_p99_us=550.0[500.0-600.0] epoll_rps=1000.0[900.0-1100.0]"
                + " p50_ratio=0.52 p99_ratio=0.55 rps_ratio=2.00", benchmark.summary(measured));
    }

    @Test
    void vertxRunsEveryPhaseOverNio() throws Exception {
        assertRuns("vertx", VertxHelloRig::start);
    }

    @Test
    void reactorNettyRunsEveryPhaseOverNio() throws Exception {
        assertRuns("reactor-netty", ReactorHelloRig::start);
    }

    private static void assertRuns(String framework, HelloRig.Factory rigs) throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        String summary = new FrameworkBenchmark(framework, rigs, "127.0.0.1", List.of(Transport.NIO), 1, 2, 0.2, 0.3)
                .run(new PrintStream(printed, true, StandardCharsets.UTF_8));
        String output = printed.toString(StandardCharsets.UTF_8);
        assertTrue(output.startsWith("framework-env framework=" + framework + " host=127.0.0.1 "), output);
        assertTrue(output.contains("framework-round framework=" + framework + " round=1 transport=nio p50_us="), output);
        assertTrue(summary.matches("framework " + framework + " rounds=1 connections=2"
                + " nio_p50_us=[0-9.]+\\[[0-9.]+-[0-9.]+] nio_p99_us=\\S+ nio_rps=\\S+"), summary);
    }
}
