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
package org.nettyrdma.testsuite.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * perftest across the wire: {@code ib_write_bw} over RDMA CM against the server that
 * {@code scripts/lib/wire-peer} keeps running on the peer host, on the wire's device. The raw verbs
 * figure to hold the transport's against, and a check that the wire carries RDMA at all.
 */
@Order(3) // with ClassOrderer.OrderAnnotation, as scripts/two-hosts runs them; see RdmaWirePeerPowerOffTest
class RdmaWirePerftestTest {

    /** The same size and count as the server in scripts/lib/wire-peer: perftest refuses a mismatch. */
    private static final List<String> FLAGS = List.of("-R", "-F", "-s", "65536", "-n", "1000");
    /** A result line: size, iterations, peak MB/s, average MB/s, message rate. */
    private static final Pattern RESULT = Pattern.compile(
            "^\\s*65536\\s+\\d+\\s+([0-9.]+)\\s+([0-9.]+)\\s+[0-9.]+\\s*$");
    /**
     * perftest under emulation now and then reports 0.00 MB/s, its clock calibration having failed
     * (docs/vm-runner.md): the peer restarts its server after each run, so a rerun is possible.
     */
    private static final int ATTEMPTS = 3;

    @RegisterExtension
    final WireFixture wire = new WireFixture();

    @Test
    void ibWriteBwCrossesTheWire() throws Exception {
        String device = Objects.requireNonNull(System.getenv("RDMA_WIRE_DEVICE"),
                "RDMA_WIRE_DEVICE: the runner's RXE_VM_WIRE sets it");
        double average = 0;
        for (int attempt = 1; attempt <= ATTEMPTS && average == 0; attempt++) {
            if (attempt > 1) {
                // The peer's server starts again after each run.
                Thread.sleep(2000);
            }
            List<String> command = new ArrayList<>(List.of("ib_write_bw", "-d", device));
            command.addAll(FLAGS);
            command.add(TwoHosts.peerAddress().getHostAddress());
            average = run(command);
            System.out.printf("wire: ib_write_bw 64 KiB across the wire (attempt %d): %.2f MB/s%n", attempt, average);
        }
        assertTrue(average > 0, "ib_write_bw printed 0.00 MB/s " + ATTEMPTS + " times");
    }

    /**
     * Runs perftest, copies its output to ours and returns its average MB/s. Its output (a few
     * kilobytes) waits in the pipe until it ends, so that a hung perftest is killed, not read for ever.
     */
    private static double run(List<String> command) throws IOException, InterruptedException {
        String shown = String.join(" ", command);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        boolean ended = process.waitFor(60, TimeUnit.SECONDS);
        if (!ended) {
            process.destroyForcibly().waitFor();
        }
        double average = -1;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                System.out.println("ib_write_bw| " + line);
                Matcher result = RESULT.matcher(line);
                if (result.matches()) {
                    average = Double.parseDouble(result.group(2));
                }
            }
        }
        assertTrue(ended, () -> shown + " did not end within 60 s");
        assertEquals(0, process.exitValue(), () -> shown + " failed");
        assertTrue(average >= 0, () -> shown + " printed no result line");
        return average;
    }
}
