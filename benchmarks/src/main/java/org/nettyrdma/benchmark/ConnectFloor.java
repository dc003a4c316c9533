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

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The device's own floor under connection set-up: what {@code cm-connect-floor} (C on librdmacm,
 * {@code benchmarks/src/main/c/cm-connect-floor.c}, built by {@code scripts/scale-bench}) measured in one
 * round, the same number of connects with as many in flight as the idle ramp, each with a queue pair of
 * its own and held open, no JVM and no message.
 *
 * @param round the round it ran in
 * @param connects the connections established
 * @param connectsPerSecond connects over the seconds from the first {@code rdma_create_id} to the last
 *        {@code ESTABLISHED}
 * @param setUpP50Ms a connect's set-up, median, in milliseconds
 * @param setUpP99Ms its 99th percentile
 * @param error why the round has no figure, or {@code null}
 */
record ConnectFloor(int round, long connects, double connectsPerSecond, double setUpP50Ms, double setUpP99Ms,
                    String error) {

    /** The name of its row in the report. */
    static final String NAME = "rdma-cm";

    private static final long TIMEOUT_MINUTES = 20;

    /** Runs {@code program} for {@code connects} connects to {@code host}, {@code inFlight} at a time. */
    static ConnectFloor run(String program, int round, String host, int connects, int inFlight)
            throws InterruptedException {
        Process process;
        try {
            process = new ProcessBuilder(program, host, String.valueOf(connects), String.valueOf(inFlight))
                    .redirectErrorStream(true).start();
        } catch (IOException e) {
            return failed(round, "could not start " + program + ": " + e.getMessage());
        }
        StringBuilder output = new StringBuilder();
        String figures = null;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.startsWith("connect-floor ")) {
                    figures = line;
                } else {
                    output.append(line).append(' ');
                }
            }
        } catch (IOException e) {
            output.append(e.getMessage());
        }
        if (!process.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            return failed(round, program + " did not end in " + TIMEOUT_MINUTES + " minutes");
        }
        if (figures == null || process.exitValue() != 0) {
            return failed(round, program + " exited with " + process.exitValue() + ": " + output.toString().trim());
        }
        return parse(round, figures);
    }

    /** Reads the program's line {@code connect-floor connects=N ... setup_p99_ms=B}. */
    static ConnectFloor parse(int round, String line) {
        Map<String, String> fields = BenchmarkRun.fields(line);
        try {
            return new ConnectFloor(round, Long.parseLong(fields.get("connects")),
                    Double.parseDouble(fields.get("connects_per_s")), Double.parseDouble(fields.get("setup_p50_ms")),
                    Double.parseDouble(fields.get("setup_p99_ms")), null);
        } catch (NullPointerException | NumberFormatException e) {
            return failed(round, "unreadable: " + line);
        }
    }

    private static ConnectFloor failed(int round, String error) {
        return new ConnectFloor(round, 0, Double.NaN, Double.NaN, Double.NaN, error);
    }
}
