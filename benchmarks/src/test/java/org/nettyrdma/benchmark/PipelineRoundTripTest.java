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
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The pipeline's round trip with no transport under it, with short phases: no figure is checked. */
class PipelineRoundTripTest {

    @ParameterizedTest(name = "kernel work: {0}")
    @ValueSource(booleans = {false, true})
    void measuresEverySize(boolean kernelWork) throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        List<Result> results = new PipelineRoundTrip(new int[] {64, 4096}, 0.2, 0.3, kernelWork)
                .run(new PrintStream(printed, true, StandardCharsets.UTF_8));

        assertEquals(2, results.size());
        for (Result result : results) {
            assertNull(result.error());
            assertEquals(kernelWork ? "netty-local+udp" : "netty-local", result.transport());
            assertNull(result.stream());
            Result.RoundTrip roundTrip = result.roundTrip();
            assertNotNull(roundTrip);
            assertTrue(roundTrip.roundTrips() > 0 && roundTrip.p50Micros() > 0
                    && roundTrip.p50Micros() <= roundTrip.p99Micros(), roundTrip.toString());
        }
        String table = printed.toString(StandardCharsets.UTF_8);
        assertTrue(table.contains("\n    4096 | "), table);
        assertEquals(kernelWork, table.contains("the datagram alone"), table);
    }
}
