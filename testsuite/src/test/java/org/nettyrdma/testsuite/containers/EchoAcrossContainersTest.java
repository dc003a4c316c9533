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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.nettyrdma.testcontainers.RdmaContainer;
import org.nettyrdma.testcontainers.RequiresRdmaDockerHost;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * The echo example with its server in one container and its client in another, over RDMA: every
 * message size from 1 byte to 4 MiB comes back with the CRC32 it was sent with.
 */
@RequiresRdmaDockerHost
@Testcontainers
class EchoAcrossContainersTest {

    private static final String PORT = "7101";
    private static final int[] SIZES = {1, 4 << 10, 64 << 10, 1 << 20, 4 << 20};
    private static final Pattern RESULT = Pattern.compile(
            "echo: (\\d+) messages of (\\d+) bytes over .* crc32 sent ([0-9a-f]{8}), echoed ([0-9a-f]{8})");

    @Container
    static final RdmaContainer<?> SERVER = ExampleImage.service(".*echo server over .*",
            "run-example", "echo.EchoServer", "--transport", "rdma", "--host", ExampleImage.address(), "--port", PORT);

    @Test
    void everySizeComesBackWithTheChecksumItWasSentWith() {
        String sizes = "1,4k,64k,1m,4m";
        try (RdmaContainer<?> client = ExampleImage.oneShot("run-example", "echo.EchoClient", "--transport", "rdma",
                "--host", ExampleImage.address(), "--port", PORT, "--size", sizes, "--count", "3")) {
            client.start();
            String log = client.getLogs();
            System.out.print(log);
            List<Integer> echoed = new ArrayList<>();
            Matcher result = RESULT.matcher(log);
            while (result.find()) {
                assertEquals("3", result.group(1), log);
                assertEquals(result.group(3), result.group(4), () -> "the echo of " + result.group(2)
                        + "-byte messages has another checksum: " + log);
                echoed.add(Integer.parseInt(result.group(2)));
            }
            List<Integer> expected = new ArrayList<>();
            for (int size : SIZES) {
                expected.add(size);
            }
            assertEquals(expected, echoed, () -> "one line per size: " + log);
        }
        assertTrue(SERVER.isRunning(), "the echo server still runs: " + SERVER.getLogs());
    }
}
