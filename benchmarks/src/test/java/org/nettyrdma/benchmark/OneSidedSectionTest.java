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

import org.junit.jupiter.api.Test;

/** The one-sided benchmark's lines and perftest's read and atomic latency in the demo's report. */
class OneSidedSectionTest {

    private static final String GET = "one-sided get loops=rdma size=64 read_p50_us=40.00[38.00-45.00]"
            + " read_p99_us=90.00[80.00-99.00] request_p50_us=120.00[110.00-130.00] request_p99_us=300.00[250.00-310.00]"
            + " read_server_cpu_us=0.50[0.40-0.70] request_server_cpu_us=30.00[28.00-33.00]"
            + " read_server_messages=0.00[0.00-0.00] request_server_messages=1.00[1.00-1.00]"
            + " read_client_alloc_B=168.00[160.00-170.00] request_client_alloc_B=96.00[90.00-99.00]";

    @Test
    void takesItsLinesAndPerftestsReadAndAtomicLatencyOnly() {
        OneSidedSection section = new OneSidedSection();
        assertTrue(section.accepts(GET));
        assertTrue(section.accepts("one-sided error=op=read size=64 clients=1, round 2: timed out"));
        assertTrue(section.accepts("perftest ib_read_lat size=64 usec_typical=20.00 usec_p99=50.00"));
        assertTrue(section.accepts("perftest ib_atomic_lat size=8 usec_typical=21.00 usec_p99=55.00"));
        assertFalse(section.accepts("one-sided-round round=1 op=read size=64 clients=1 p50_us=40.00"));
        assertFalse(section.accepts("perftest ib_send_lat size=64 usec_typical=20.00"));
        assertFalse(section.accepts("framework grpc transport=rdma"));
    }

    @Test
    void rendersEachSizeBesideItsRequestAndIbReadLatThenTheAdds() {
        OneSidedSection section = new OneSidedSection();
        section.add(GET);
        section.add(GET.replace("loops=rdma", "loops=rdma-busypoll").replace("read_p50_us=40.00[38.00-45.00]",
                "read_p50_us=30.00[29.00-31.00]"));
        // perftest runs twice on a shared host: the lower typical latency is the one shown.
        section.add("perftest ib_read_lat size=64 usec_typical=25.00 usec_avg=26.00 usec_p99=60.00 usec_min=20.00");
        section.add("perftest ib_read_lat size=64 usec_typical=21.50 usec_avg=22.00 usec_p99=50.00 usec_min=19.00");
        section.add("one-sided fetch-and-add loops=rdma clients=1 ops_per_s=20000.00[19000.00-21000.00]"
                + " server_cpu_us=0.10[0.05-0.20] client_alloc_B=120.00[118.00-121.00] counter=checked");
        section.add("perftest ib_atomic_lat size=8 usec_typical=23.00 usec_avg=24.00 usec_p99=70.00 usec_min=20.00");
        String report = rendered(section);
        assertTrue(report.contains("   64  rdma           RDMA Read         40.00 (38.00-45.00)"), report);
        assertTrue(report.contains("   64  rdma-busypoll  RDMA Read         30.00 (29.00-31.00)"), report);
        assertTrue(report.contains("0.00 (0.00-0.00)"), report);
        assertTrue(report.contains("168.00 (160.00-170.00)"), report);
        assertTrue(report.contains("96.00 (90.00-99.00)"), report);
        assertTrue(report.contains("   64  -              ib_read_lat       21.50 (typical)"), report);
        assertTrue(report.contains("  fetch-and-add of one word from 1 connection, rdma loops: 20000.00 (19000.00-21000.00) ops/s,"
                + " server CPU 0.10 (0.05-0.20) us/op, client loops allocated 120.00 (118.00-121.00) B/op; the word"
                + " equals the adds that completed\n"), report);
        assertTrue(report.contains("  ib_atomic_lat: 23.00 us typical, p99 70.00 us\n"), report);
    }

    @Test
    void showsTheFutureFormBesideTheCompletionsAndJudgesTheTargets() {
        OneSidedSection section = new OneSidedSection();
        section.add(GET.replace("read_client_alloc_B=168.00[160.00-170.00]", "read_client_alloc_B=0.00[0.00-0.40]")
                + " future_read_p50_us=44.00[43.00-46.00] future_read_client_alloc_B=150.00[149.00-151.00]");
        section.add("perftest ib_read_lat size=64 usec_typical=30.00 usec_p99=60.00");
        section.add("one-sided fetch-and-add loops=rdma clients=1 ops_per_s=40000.00[39000.00-41000.00]"
                + " p50_us=24.00[23.00-30.00] p99_us=60.00[55.00-70.00] server_cpu_us=0.10[0.05-0.20]"
                + " client_alloc_B=0.00[-0.10-0.20] future_p50_us=26.00[25.00-27.00]"
                + " future_client_alloc_B=104.00[103.00-105.00] counter=checked");
        section.add("perftest ib_atomic_lat size=8 usec_typical=20.00 usec_p99=50.00");
        String report = rendered(section);
        assertTrue(report.contains("      64  rdma   Read, Future      44.00 (43.00-46.00)"), report);
        assertTrue(report.contains("150.00 (149.00-151.00)"), report);
        assertTrue(report.contains("rdma loops: 40000.00 (39000.00-41000.00) ops/s, p50 24.00 (23.00-30.00) us, p99"
                + " 60.00 (55.00-70.00) us, server CPU 0.10 (0.05-0.20) us/op, client loops allocated 0.00 (-0.10-0.20)"
                + " B/op; by Future: p50 26.00 (25.00-27.00) us, 104.00 (103.00-105.00) B/op;"), report);
        assertTrue(report.contains("  MISSED        64 B RDMA Read p50 <= 1.3 x ib_read_lat: rdma 40.00 (38.00-45.00) us"
                + " is 1.33 (1.27-1.50) x 30.00 us\n"), report);
        assertTrue(report.contains("  MET           fetch-and-add p50, 1 connection, <= 1.3 x ib_atomic_lat: rdma 24.00"
                + " (23.00-30.00) us is 1.20 (1.15-1.50) x 20.00 us\n"), report);
        assertTrue(report.contains("  MET           no garbage per one-sided operation told to a completion: rdma loops"
                + " allocate 0.00 (0.00-0.40) B per 64 B Read, 0.00 (-0.10-0.20) B per fetch-and-add"), report);
    }

    private static String rendered(OneSidedSection section) {
        StringBuilder out = new StringBuilder();
        section.render(out);
        return out.toString();
    }

    @Test
    void aFailedPhaseIsShownAndNoLineRendersNothing() {
        OneSidedSection section = new OneSidedSection();
        StringBuilder out = new StringBuilder();
        section.render(out);
        assertEquals("", out.toString());
        section.add("one-sided error=op=fetch-and-add size=8 clients=8, round 1: the word rose by 9, but 10"
                + " fetch-and-adds of 1 completed");
        section.render(out);
        assertTrue(out.toString().contains("  FAILED: op=fetch-and-add size=8 clients=8, round 1: the word rose by 9"),
                out.toString());
    }
}
