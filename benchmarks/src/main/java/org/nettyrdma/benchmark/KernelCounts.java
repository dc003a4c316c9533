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

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the kernel counts for {@link IsolationCost}: the device's MRs and PDs ({@code rdma resource show})
 * and the lines of {@code /proc} files in kB (pinned memory, unreclaimable slab memory).
 */
final class KernelCounts {

    private static final Pattern KERNEL_COUNT = Pattern.compile("\\b(pd|mr) (\\d+)");

    private KernelCounts() {
    }

    /** The kernel's MR and PD counts of {@code device} ({@code rdma resource show}). */
    static Map<String, Integer> of(String device) throws IOException {
        Process process = new ProcessBuilder("rdma", "resource", "show", device).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        try {
            if (process.waitFor() != 0) {
                throw new IOException("rdma resource show " + device + ": " + output.trim());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        return parse(output);
    }

    /** Reads "pd N ... mr N" from the first line of {@code rdma resource show}'s output. */
    static Map<String, Integer> parse(String output) throws IOException {
        Map<String, Integer> counts = new HashMap<>();
        Matcher matcher = KERNEL_COUNT.matcher(output.lines().findFirst().orElse(""));
        while (matcher.find()) {
            counts.put(matcher.group(1), Integer.valueOf(matcher.group(2)));
        }
        if (!counts.containsKey("pd") || !counts.containsKey("mr")) {
            throw new IOException("no pd and mr counts in: " + output.trim());
        }
        return counts;
    }

    /** Returns the value in kB of the line {@code name:} of a {@code /proc} file. */
    static long procKib(String file, String name) throws IOException {
        for (String line : Files.readAllLines(Path.of(file), StandardCharsets.US_ASCII)) {
            if (line.startsWith(name + ':')) {
                return Long.parseLong(line.substring(name.length() + 1).replace("kB", "").trim());
            }
        }
        throw new IOException(file + " has no " + name);
    }
}
