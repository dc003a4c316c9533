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
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.nettyrdma.example.ExampleOptions;

/**
 * The isolation benchmark's options, statistics and parsing anywhere; a short run of it where an RDMA
 * device is (the rxe VM sets {@code RDMA_TEST_ADDRESS}). No figure is checked, only that every table is
 * printed.
 */
class IsolationCostTest {

    @Test
    void defaultsApply() throws IOException {
        IsolationCost cost = IsolationCost.fromOptions(ExampleOptions.of("--host", "127.0.0.1"));
        assertEquals(InetAddress.getByName("127.0.0.1"), cost.host);
        assertEquals(16, cost.connections);
        assertEquals(8, cost.slabs);
        assertEquals(8, cost.setups);
        assertEquals(3, cost.rounds);
        assertEquals(2_000_000_000L, cost.warmupNanos);
        assertEquals(3_000_000_000L, cost.measureNanos);
    }

    @Test
    void readsEveryOption() throws IOException {
        IsolationCost cost = IsolationCost.fromOptions(ExampleOptions.of("--host", "127.0.0.1", "--connections",
                "32", "--slabs=4", "--setups", "2", "--rounds", "5", "--warmup", "0.5", "--time", "1"));
        assertEquals(32, cost.connections);
        assertEquals(4, cost.slabs);
        assertEquals(2, cost.setups);
        assertEquals(5, cost.rounds);
        assertEquals(500_000_000L, cost.warmupNanos);
        assertEquals(1_000_000_000L, cost.measureNanos);
        assertTrue(cost.deadlineSeconds() > 5 * 2 * 1, String.valueOf(cost.deadlineSeconds()));
    }

    @Test
    void refusesWhatCannotBeMeasured() {
        assertThrows(IllegalArgumentException.class, () -> parse("--rounds", "2"));
        assertThrows(IllegalArgumentException.class, () -> parse("--connections", "0"));
        assertThrows(IllegalArgumentException.class, () -> parse("--slabs", "0"));
        assertThrows(IllegalArgumentException.class, () -> parse("--setups", "0"));
        assertThrows(IllegalArgumentException.class, () -> parse("--time", "0"));
        assertThrows(IllegalArgumentException.class, () -> parse("--size", "64k"));
    }

    private static IsolationCost parse(String... args) throws IOException {
        String[] all = new String[args.length + 2];
        all[0] = "--host";
        all[1] = "127.0.0.1";
        System.arraycopy(args, 0, all, 2, args.length);
        return IsolationCost.fromOptions(ExampleOptions.of(all));
    }

    @Test
    void mediansAndSpreads() {
        assertEquals(2, IsolationReport.median(new double[] {3, 1, 2}));
        assertEquals(2.5, IsolationReport.median(new double[] {4, 1, 3, 2}));
        assertEquals("2.0 (1.0-3.0)", IsolationReport.spread(new double[] {3, 1, 2}, "%.1f"));
    }

    @Test
    void readsTheKernelsCounts() throws IOException {
        Map<String, Integer> counts = KernelCounts.parse(
                "0: rxe0: pd 3 cq 2 qp 1 cm_id 0 mr 17 ctx 1 srq 0\n1: other: pd 9 mr 9\n");
        assertEquals(Map.of("pd", 3, "mr", 17), counts);
        assertThrows(IOException.class, () -> KernelCounts.parse("Error: no device\n"));
    }

    @Tag(VerbsTestDevice.TAG)
    @Test
    void printsEveryTableOverTheDevice() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        new IsolationCost(VerbsTestDevice.address(), 2, 1, 1, 3, 0.2, 0.2)
                .run(new PrintStream(printed, true, StandardCharsets.UTF_8));
        String text = printed.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("set-up, server side") && text.contains("memory of 2 connections")
                && text.contains("stream: 64 KiB"), text);
    }
}
