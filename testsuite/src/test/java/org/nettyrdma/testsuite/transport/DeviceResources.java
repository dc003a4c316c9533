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
package org.nettyrdma.testsuite.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.nettyrdma.channel.rdma.internal.CompletionQueue;
import org.nettyrdma.channel.rdma.internal.RegisteredBuffer;
import org.nettyrdma.channel.rdma.internal.RegisteredSlab;

/**
 * Counts the verbs objects that exist, to check that a test left none behind. Two sources:
 * <ul>
 *   <li>the transport's own process-wide counters of memory registrations and completion queues;</li>
 *   <li>the kernel's resource tracking of the device ({@code rdma resource show DEVICE}: queue pairs,
 *       completion queues, memory regions, RDMA CM ids), which counts what the transport has no counter
 *       for, queue pairs and CM ids, and what a raw verbs peer in the test made. Where the {@code rdma}
 *       tool is missing, only the first source is compared.</li>
 * </ul>
 * The allocator's slabs ({@code RdmaByteBufAllocator}) are registered on first use and stay while its
 * pool keeps them, which a test does not decide: they are left out of the kernel's memory regions.
 * Both are process- or machine-wide, so a test compares the counts after it with those before it.
 */
final class DeviceResources {

    private static final List<String> KERNEL_COUNTS = List.of("qp", "cq", "mr", "cm_id");
    private static final long SETTLE_MILLIS = 10_000;

    private DeviceResources() {
    }

    /** The counts at one moment. */
    record Snapshot(int registrations, int completionQueues, Map<String, Integer> kernel) {
        @Override
        public String toString() {
            return "transport: " + registrations + " MRs, " + completionQueues + " CQs; kernel: " + kernel;
        }
    }

    static Snapshot snapshot() {
        return new Snapshot(RegisteredBuffer.liveRegistrations(), CompletionQueue.liveCount(), kernelCounts());
    }

    /**
     * Asserts that the counts are back where {@code before} found them. Destroying is synchronous in
     * the transport, but waiting a moment for the kernel's books costs nothing when all is well.
     */
    static void assertNoneLeftSince(Snapshot before) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SETTLE_MILLIS);
        Snapshot after = snapshot();
        while (!after.equals(before) && System.nanoTime() - deadline < 0) {
            Thread.sleep(100);
            after = snapshot();
        }
        String context = "before the test: " + before + "; after it: " + after
                + (after.equals(before) ? "" : "\nthe device's queue pairs and CQs now:\n" + kernelDetails());
        assertEquals(before.registrations(), after.registrations(), "memory registrations left: " + context);
        assertEquals(before.completionQueues(), after.completionQueues(), "completion queues left: " + context);
        assertEquals(before.kernel(), after.kernel(), "verbs objects left on the device: " + context);
    }

    /** Returns the kernel's counts for the test device, or an empty map without the {@code rdma} tool. */
    private static Map<String, Integer> kernelCounts() {
        String device = System.getenv("RDMA_TEST_DEVICE");
        String output = device != null ? rdma("resource", "show", device) : rdma("resource", "show");
        // "0: rxe0: pd 1 cq 1 qp 1 cm_id 0 mr 0 ctx 0 srq 0", one line per device: the first one.
        String[] words = output.lines().findFirst().orElse("").trim().split("\\s+");
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (int i = 0; i + 1 < words.length; i++) {
            if (KERNEL_COUNTS.contains(words[i])) {
                counts.put(words[i], Integer.valueOf(words[i + 1]));
            }
        }
        counts.computeIfPresent("mr", (name, count) -> count - RegisteredSlab.registrations());
        return counts;
    }

    /**
     * Returns the memory regions the kernel counts on the test device, the allocator's slabs included,
     * or -1 without the {@code rdma} tool.
     */
    static int kernelMemoryRegions() {
        Integer withoutSlabs = kernelCounts().get("mr");
        return withoutSlabs != null ? withoutSlabs + RegisteredSlab.registrations() : -1;
    }

    /** The kernel's list of queue pairs (with their state) and CQs, for a failure message. */
    private static String kernelDetails() {
        return rdma("resource", "show", "qp") + rdma("resource", "show", "cq");
    }

    /** Runs the {@code rdma} tool; returns its output, or "" if it is missing or fails. */
    private static String rdma(String... arguments) {
        List<String> command = new java.util.ArrayList<>(List.of("rdma"));
        command.addAll(List.of(arguments));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            return process.waitFor() == 0 ? output : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }
}
