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
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.OptionalInt;

import org.nettyrdma.channel.rdma.internal.NativeLibrary;

/**
 * Runs a floor benchmark on the RDMA device at {@code RDMA_TEST_ADDRESS}, which the rxe VM sets; where there
 * is none, or no native library, the calling test is skipped, not passed.
 */
final class VerbsTestDevice {

    /**
     * The tag of the tests that need the device: scripts/device-tests runs exactly these in the rxe VM, and
     * fails when none of them passed there.
     */
    static final String TAG = "device";

    private VerbsTestDevice() {
    }

    /**
     * Returns the address of the RDMA device at {@code RDMA_TEST_ADDRESS}; skips the calling test where
     * there is none, or no native library.
     */
    static InetAddress address() throws UnknownHostException {
        String address = System.getenv("RDMA_TEST_ADDRESS");
        assumeTrue(address != null && !address.isEmpty() && NativeLibrary.isLoaded(),
                "needs an RDMA device at $RDMA_TEST_ADDRESS and the native library");
        return InetAddress.getByName(address);
    }

    /**
     * Runs the benchmark {@code factory} makes for 64 B and 64 KiB, half a second of warm-up and two
     * measured rounds of half a second each, and returns its results once each has been checked to have no
     * error and the floor's name, and each round to have printed its lines.
     */
    static List<Result> run(AbstractVerbsBenchmark.Factory factory, boolean waitForEvents) throws Exception {
        return run(factory, waitForEvents, OptionalInt.empty());
    }

    /** Runs the benchmark as {@link #run(AbstractVerbsBenchmark.Factory, boolean)} does, with {@code sendSlot}. */
    static List<Result> run(AbstractVerbsBenchmark.Factory factory, boolean waitForEvents, OptionalInt sendSlot)
            throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        AbstractVerbsBenchmark benchmark = factory.create(address(), new int[] {64, 65536},
                waitForEvents, sendSlot, 0.5, 0.5);
        List<Result> results = benchmark.run(new PrintStream(printed, true, StandardCharsets.UTF_8),
                MeasuredRounds.count(2), Watchdog.of(benchmark.name()));

        String output = printed.toString(StandardCharsets.UTF_8);
        assertEquals(4, results.size());
        String name = sendSlot.isPresent() ? waitForEvents ? VerbsPingPong.SEND_EVENTS : VerbsPingPong.SEND_BUSY_POLL
                : waitForEvents ? VerbsPingPong.EVENTS : VerbsPingPong.BUSY_POLL;
        for (Result result : results) {
            assertNull(result.error(), output);
            assertEquals(name, result.transport());
        }
        assertTrue(output.contains("\nbench-ready transport=" + benchmark.name() + " "), output);
        for (int round = 1; round <= 2; round++) {
            assertTrue(output.contains("\nbench transport=" + benchmark.name() + " size=65536 round=" + round + " "),
                    output);
            assertTrue(output.contains("\nbench-round-end transport=" + benchmark.name() + " round=" + round + " "),
                    output);
        }
        return results;
    }
}
