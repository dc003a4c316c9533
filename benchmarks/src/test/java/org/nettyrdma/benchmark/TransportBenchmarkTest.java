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
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.nettyrdma.example.Transport;

/** The benchmark's logic, over NIO on the loopback interface with short phases: no figure is checked. */
class TransportBenchmarkTest {

    @Test
    void measuresEverySizeAndPrintsALinePerSize() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        TransportBenchmark benchmark = new TransportBenchmark(Transport.NIO, InetAddress.getLoopbackAddress(),
                new int[] {64, 65536}, 0.2, 0.3);
        List<Result> results = benchmark.run(new PrintStream(printed, true, StandardCharsets.UTF_8));

        assertEquals(2, results.size());
        for (Result result : results) {
            assertNull(result.error());
            assertEquals("nio", result.transport());
            Result.Stream stream = result.stream();
            assertNotNull(stream);
            assertTrue(stream.mibPerSecond() > 0 && stream.messages() > 0, stream.toString());
            assertEquals(-1, stream.registeredBytesPerChannel(), "TCP registers no memory");
            Result.RoundTrip roundTrip = result.roundTrip();
            assertNotNull(roundTrip);
            assertTrue(roundTrip.roundTrips() > 0, roundTrip.toString());
            assertTrue(roundTrip.p50Micros() > 0 && roundTrip.p50Micros() <= roundTrip.p99Micros()
                    && roundTrip.p99Micros() <= roundTrip.p999Micros(), roundTrip.toString());
        }
        String table = printed.toString(StandardCharsets.UTF_8);
        assertTrue(table.startsWith("bench-env transport=nio host=127.0.0.1 "), table);
        assertTrue(table.contains("\n   65536 | "), table);
    }

    @Test
    void aLineHasEveryFigureAndTheErrorLast() {
        Result result = new Result("rdma", 4096, new Result.Stream(40.5, 1000, 12.25, 0, 2_621_440, 0.625, 3),
                new Result.RoundTrip(500, 20, 80.5, 300, 35, 0, 2.25, 4), null);
        assertEquals("bench transport=rdma size=4096 MBps=40.50 messages=1000 cpu_ms_per_MB=12.3 alloc_B_per_msg=0.0"
                + " registered_B_per_channel=2621440 loop_kernel_share=0.63 credit_stalls=3 rtt_p50_us=20.0 rtt_p99_us=80.5"
                + " rtt_p999_us=300.0 round_trips=500 cpu_us_per_rtt=35.0 alloc_B_per_rtt=0.0 wakeups_per_rtt=2.25"
                + " completions_per_rtt=4.00", result.toLine());

        Result failed = new Result("rdma", 4096, new Result.Stream(40.5, 1000, 12.25, 0, 2_621_440, Double.NaN, -1),
                null, "round trip: no round trip completed");
        assertEquals("bench transport=rdma size=4096 MBps=40.50 messages=1000 cpu_ms_per_MB=12.3 alloc_B_per_msg=0.0"
                + " registered_B_per_channel=2621440 error=round trip: no round trip completed", failed.toLine());

        Result tcp = new Result("nio", 64, null,
                new Result.RoundTrip(500, 20, 80.5, 300, 35, 96, Double.NaN, Double.NaN), null);
        assertEquals("bench transport=nio size=64 rtt_p50_us=20.0 rtt_p99_us=80.5 rtt_p999_us=300.0 round_trips=500"
                + " cpu_us_per_rtt=35.0 alloc_B_per_rtt=96.0", tcp.toLine());
    }

    @Test
    void theDeadlineCoversEveryPhaseOfEverySize() {
        TransportBenchmark benchmark = new TransportBenchmark(Transport.NIO, InetAddress.getLoopbackAddress(),
                new int[] {64, 4096, 65536}, 2, 3);
        assertTrue(benchmark.deadlineSeconds() > 3 * 2 * (2 + 3), String.valueOf(benchmark.deadlineSeconds()));
    }
}
