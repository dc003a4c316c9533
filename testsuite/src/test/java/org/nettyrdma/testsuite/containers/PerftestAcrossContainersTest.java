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
package org.nettyrdma.testsuite.containers;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.nettyrdma.testcontainers.RdmaContainer;
import org.nettyrdma.testcontainers.RequiresRdmaDockerHost;
import org.nettyrdma.testsuite.verbs.RdmaTestEnvironment;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/** perftest's {@code ib_write_bw} with its server in one container and its client in another. */
@RequiresRdmaDockerHost
@Testcontainers
class PerftestAcrossContainersTest {

    private static final String PORT = "18515";
    /** The line under perftest's header: size, iterations, peak and average MB/s, message rate. */
    private static final Pattern RESULT = Pattern.compile(
            "^\\s*65536\\s+(\\d+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s*$", Pattern.MULTILINE);

    /**
     * The server, ready once it says it waits for the client. perftest writes through stdio, which
     * holds back a pipe's output until the buffer fills: stdbuf makes it write each line.
     */
    @Container
    static final RdmaContainer<?> SERVER = ExampleImage.service(".*Waiting for client.*", "stdbuf", "-oL",
            "ib_write_bw", "-R", "-F", "-d", device(), "-s", "65536", "-n", "200", "-p", PORT);

    @Test
    void writeBandwidthIsMeasuredBetweenContainers() {
        try (RdmaContainer<?> client = ExampleImage.oneShot("ib_write_bw", "-R", "-F", "-d", device(),
                "-s", "65536", "-n", "200", "-p", PORT, ExampleImage.address())) {
            client.start();
            String log = client.getLogs();
            System.out.print(log);
            Matcher result = RESULT.matcher(log);
            assertTrue(result.find(), () -> "ib_write_bw printed a result line: " + log);
            double averageMBps = Double.parseDouble(result.group(3));
            System.out.printf("ib_write_bw between containers, 64 KiB: %.2f MB/s%n", averageMBps);
            assertTrue(averageMBps > 0, () -> "a bandwidth above 0 MB/s: " + log);
        }
    }

    private static String device() {
        String device = RdmaTestEnvironment.deviceName();
        return device != null ? device : "rxe0";
    }
}
