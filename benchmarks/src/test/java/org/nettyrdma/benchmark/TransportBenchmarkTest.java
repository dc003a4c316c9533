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
import java.io.StringReader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.nettyrdma.example.Transport;

/** The benchmark's logic, over NIO on the loopback interface with short phases: no figure is checked. */
class TransportBenchmarkTest {

    @Test
    void measuresEverySizeInTheRoundItIsGivenAndPrintsALinePerSize() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        TransportBenchmark benchmark = new TransportBenchmark(Transport.NIO, InetAddress.getLoopbackAddress(),
                new int[] {64, 65536}, 0.2, 0.3);
        // One round, numbered as scripts/demo numbers it: each round's idle phase takes 10 s.
        List<Result> results = benchmark.run(new PrintStream(printed, true, StandardCharsets.UTF_8),
                MeasuredRounds.fromLines(new StringReader("round 3\n")), Watchdog.of("nio"));

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
        // The warm-up ends before the round starts; the round's lines carry its number, the end marker last.
        int ready = table.indexOf("\nbench-ready transport=nio warmup_rounds=");
        int round = table.indexOf("\nmeasured pass, round 3:");
        assertTrue(ready > 0 && round > ready, table);
        assertTrue(table.contains("\nbench-idle transport=nio round=3 seconds="), table);
        assertTrue(table.contains("\nbench transport=nio size=64 round=3 MBps="), table);
        assertTrue(table.contains("\nbench transport=nio size=65536 round=3 MBps="), table);
        String last = table.strip().substring(table.strip().lastIndexOf('\n') + 1);
        assertTrue(last.startsWith("bench-round-end transport=nio round=3 seconds="), table);
    }

    @Test
    void aLineHasEveryFigureAndTheErrorLast() {
        Result result = new Result("rdma", 4096, new Result.Stream(40.5, 1000, 12.25, 0, 2_621_440, 0.625, 3, 0),
                new Result.RoundTrip(500, 20, 80.5, 300, 35, 0, 2.25, 4), null);
        assertEquals("bench transport=rdma size=4096 MBps=40.50 messages=1000 cpu_ms_per_MB=12.3 alloc_B_per_msg=0.0"
                + " registered_B_per_channel=2621440 loop_kernel_share=0.63 credit_stalls=3 copied_B_per_msg=0.0"
                + " rtt_p50_us=20.0 rtt_p99_us=80.5"
                + " rtt_p999_us=300.0 round_trips=500 cpu_us_per_rtt=35.0 alloc_B_per_rtt=0.0 wakeups_per_rtt=2.25"
                + " completions_per_rtt=4.00", result.toLine());

        Result failed = new Result("rdma", 4096, new Result.Stream(40.5, 1000, 12.25, 0, 2_621_440, Double.NaN, -1, Double.NaN),
                null, "round trip: no round trip completed");
        assertEquals("bench transport=rdma size=4096 MBps=40.50 messages=1000 cpu_ms_per_MB=12.3 alloc_B_per_msg=0.0"
                + " registered_B_per_channel=2621440 error=round trip: no round trip completed", failed.toLine());

        Result tcp = new Result("nio", 64, null,
                new Result.RoundTrip(500, 20, 80.5, 300, 35, 96, Double.NaN, Double.NaN), null);
        assertEquals("bench transport=nio size=64 rtt_p50_us=20.0 rtt_p99_us=80.5 rtt_p999_us=300.0 round_trips=500"
                + " cpu_us_per_rtt=35.0 alloc_B_per_rtt=96.0", tcp.toLine());
    }

    @Test
    void theDeadlinesCoverEveryPhaseOfEverySize() {
        TransportBenchmark benchmark = new TransportBenchmark(Transport.NIO, InetAddress.getLoopbackAddress(),
                new int[] {64, 4096, 65536}, 2, 3);
        // Every warm-up round of both phases of every size.
        assertTrue(benchmark.warmUpDeadlineSeconds() > 3 * 2 * JitWarmUp.MAX_ROUNDS * 2,
                String.valueOf(benchmark.warmUpDeadlineSeconds()));
        // A settling second and the measured time of both phases of every size, and the 10 s idle phase.
        assertTrue(benchmark.roundDeadlineSeconds() > 3 * 2 * (1 + 3) + 10,
                String.valueOf(benchmark.roundDeadlineSeconds()));
    }

    @Test
    void aRoundLineCarriesItsNumberBeforeTheError() {
        Result failed = new Result("rdma", 64, null, null, "stream: the connection closed");
        assertEquals("bench transport=rdma size=64 round=2 error=stream: the connection closed", failed.toLine(2));
        assertEquals("bench transport=rdma size=64 error=stream: the connection closed", failed.toLine());
    }
}
