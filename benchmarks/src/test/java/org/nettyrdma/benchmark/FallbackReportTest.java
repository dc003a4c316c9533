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
package org.nettyrdma.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;

import io.netty.bootstrap.Bootstrap;
import org.junit.jupiter.api.Test;
import org.nettyrdma.channel.rdma.RdmaFallbackReason;

/** The fallback benchmark's report: its table, the RDMA path's ratios and their verdict within 10 %. */
class FallbackReportTest {

    private static final InetSocketAddress SERVER = new InetSocketAddress("10.77.0.1", 7000);
    private static final FallbackPath STRICT = FallbackPath.overRdma("off", new Bootstrap(), SERVER);
    private static final FallbackPath FALLBACK = FallbackPath.overRdma("on", new Bootstrap(), SERVER);
    private static final FallbackPath NO_ROUTE = FallbackPath.fallingBack("loopback", new Bootstrap(), SERVER,
            RdmaFallbackReason.NO_ROUTE);
    private static final FallbackPath EPOLL = FallbackPath.overTcp("epoll", "TCP", new Bootstrap(), SERVER);

    @Test
    void theVerdictHoldsBothTheSetUpTimeAndTheConnectRateWithinTenPercent() {
        assertEquals("MET", FallbackReport.verdict(Figure.single(1.10), Figure.single(0.90)));
        assertEquals("MISSED", FallbackReport.verdict(Figure.single(1.11), Figure.single(1.0)));
        assertEquals("MISSED", FallbackReport.verdict(Figure.single(1.0), Figure.single(0.89)));
        assertEquals("UNMEASURED", FallbackReport.verdict(Figure.NONE, Figure.single(1.0)));
    }

    @Test
    void theRatiosAreOfTheMediansWithTheSpreadOfOneRoundsPairs() {
        FallbackReport report = new FallbackReport("off", "on", "epoll");
        for (int round = 1; round <= 3; round++) {
            report.add(STRICT, round, new FallbackReport.Row(20, 40, 22, 44, 40));
            report.add(FALLBACK, round, new FallbackReport.Row(20 + round, 40, 22, 44, 40 - round));
            report.add(NO_ROUTE, round, new FallbackReport.Row(2, 4, 3, 6, 200));
            report.add(EPOLL, round, new FallbackReport.Row(1, 2, 1.5, 3, 300));
        }
        StringBuilder out = new StringBuilder();
        report.appendTo(out);
        String text = out.toString();
        assertTrue(text.contains("  set-up p50 1.100 (1.050-1.150), set-up p99 1.000 (1.000-1.000), connects/s 0.950"
                + " (0.925-0.975)\n"), text);
        assertTrue(text.contains("  MET        within 10 %"), text);
        String[] loopback = text.lines().filter(line -> line.startsWith("   loopback ")).findFirst().orElseThrow()
                .strip().split(" {2,}");
        assertEquals("TCP (NO_ROUTE)", loopback[1]);
        assertEquals("2.00 (2.00-2.00)", loopback[2], "set-up p50");
        assertEquals("2.00 (2.00-2.00)", loopback[6], "usable p50 over epoll's, 3 / 1.5");
        assertEquals("200.0 (200.0-200.0)", loopback[7], "connects/s");
        assertTrue(report.complete());
    }

    @Test
    void aFailedRoundIsAnErrorOfTheRun() {
        FallbackReport report = new FallbackReport("off", "on", "epoll");
        report.addError(NO_ROUTE, 2, "the client is carried by RDMA, expected TCP (NO_ROUTE)");
        StringBuilder out = new StringBuilder();
        report.appendTo(out);
        assertFalse(report.complete());
        assertTrue(out.toString().contains("\nErrors\n  loopback, round 2: the client is carried by RDMA, expected"
                + " TCP (NO_ROUTE)\n"), out.toString());
        assertTrue(out.toString().contains("  UNMEASURED within 10 %"), out.toString());
    }
}
