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
package org.nettyrdma.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.nettyrdma.channel.rdma.RdmaMemoryMetrics;
import org.nettyrdma.channel.rdma.loop.CompletionQueue;
import org.nettyrdma.channel.rdma.memory.RdmaDevice;
import org.nettyrdma.channel.rdma.memory.RegisteredBuffer;
import org.nettyrdma.channel.rdma.memory.RegisteredSlab;

/**
 * Counts the verbs objects that exist, to check that a test left none behind. Two sources:
 * <ul>
 *   <li>the transport's own process-wide counters of memory registrations and completion queues;</li>
 *   <li>the kernel's resource tracking of the device ({@code rdma resource show DEVICE}: queue pairs,
 *       completion queues, memory regions, RDMA CM ids), which counts what the transport has no counter
 *       for, queue pairs and CM ids, and what a raw verbs peer in the test made. Protection domains are
 *       read too, for tests that want them, but not compared.</li>
 * </ul>
 * On a device run ({@code RDMA_TEST_DEVICE} or {@code RDMA_TEST_ADDRESS} set) the kernel's counts are
 * required: if the {@code rdma} tool is missing, fails, or prints no count of one of them, reading
 * them fails the test with the command, its exit status and its output, since before and after would
 * otherwise compare equal on nothing. Elsewhere there is no device to count, and they are empty.
 *
 * <p>The allocator's slabs ({@code RdmaByteBufAllocator}) are registered on first use and stay while its
 * pool keeps them, which a test does not decide: they are left out of the kernel's memory regions.
 * Both are process- or machine-wide, so a test compares the counts after it with those before it.
 */
public final class DeviceResources {

    /** The kernel's counts read from {@code rdma resource show}, each required on a device run. */
    private static final List<String> KERNEL_COUNTS = List.of("qp", "cq", "mr", "cm_id", "pd");
    /**
     * The protection domains, counted but not compared by the leak check: the transport's PD lives as
     * long as the process, so the first test to open the device adds one for good.
     */
    private static final String PROTECTION_DOMAINS = "pd";
    private static final long SETTLE_MILLIS = 10_000;
    /** Readings of the kernel's counts tried before one that no slab change overlapped is given up on. */
    private static final int SLAB_READ_ATTEMPTS = 20;

    private DeviceResources() {
    }

    /** The counts at one moment. */
    public record Snapshot(int registrations, int completionQueues, Map<String, Integer> kernel) {
        @Override
        public String toString() {
            return "transport: " + registrations + " MRs, " + completionQueues + " CQs; kernel: " + kernel;
        }
    }

    /**
     * The transport's own process-wide counts: bytes registered by connections, native memory of their
     * buffers not yet freed, their memory registrations, and the completion queues.
     */
    public record TransportCounts(long registeredBytes, long nativeBytes, int registrations, int completionQueues) {
    }

    /** Returns the transport's own counts now. */
    public static TransportCounts transportCounts() {
        return new TransportCounts(RegisteredBuffer.liveBytes(), RegisteredBuffer.allocatedBytes(),
                RegisteredBuffer.liveRegistrations(), CompletionQueue.liveCount());
    }

    /** Returns the transport's and the kernel's counts now. */
    public static Snapshot snapshot() {
        Map<String, Integer> kernel = kernelCounts();
        kernel.remove(PROTECTION_DOMAINS);
        return new Snapshot(RdmaMemoryMetrics.snapshot().connectionRegions(), CompletionQueue.liveCount(), kernel);
    }

    /**
     * Asserts that the counts are back where {@code before} found them. Destroying is synchronous in
     * the transport, but waiting a moment for the kernel's books costs nothing when all is well.
     */
    public static void assertNoneLeftSince(Snapshot before) throws InterruptedException {
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

    /**
     * Returns the kernel's counts for the test device: {@code qp}, {@code cq}, {@code mr} (less the
     * allocator's slabs), {@code cm_id} and {@code pd}, in that order; empty when this is no device run.
     *
     * @throws AssertionError on a device run when the {@code rdma} tool gives no such counts
     */
    public static Map<String, Integer> kernelCounts() {
        return kernelCounts(true);
    }

    private static Map<String, Integer> kernelCounts(boolean withoutSlabs) {
        if (!deviceRun()) {
            return new LinkedHashMap<>();
        }
        List<String> command = showCommand();
        // The allocator deregisters idle slabs on a timer thread at any moment: the slabs are subtracted
        // only from a reading during which no slab was registered or deregistered, or the kernel's
        // count and the allocator's would come from either side of such a change.
        Result result;
        int slabs;
        int attempts = 0;
        while (true) {
            long begun = RegisteredSlab.changesBegun();
            boolean steady = RegisteredSlab.changesEnded() == begun;
            result = run(command);
            slabs = RegisteredSlab.registrations();
            if (steady && RegisteredSlab.changesBegun() == begun) {
                break;
            }
            if (++attempts == SLAB_READ_ATTEMPTS) {
                throw new AssertionError("the allocator registered or deregistered slabs during each of "
                        + attempts + " readings of the kernel's counts");
            }
            sleepUninterruptibly(50);
        }
        // "0: rxe0: pd 1 cq 1 qp 1 cm_id 0 mr 0 ctx 0 srq 0", one line per device: the first one.
        String[] words = result.output().lines().findFirst().orElse("").trim().split("\\s+");
        Map<String, Integer> found = new HashMap<>();
        for (int i = 0; i + 1 < words.length; i++) {
            if (KERNEL_COUNTS.contains(words[i]) && words[i + 1].matches("\\d+")) {
                found.put(words[i], Integer.valueOf(words[i + 1]));
            }
        }
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (String name : KERNEL_COUNTS) {
            Integer count = found.get(name);
            if (result.status() != 0 || count == null) {
                throw new AssertionError("a device run needs the kernel's counts " + KERNEL_COUNTS + ": `"
                        + String.join(" ", command) + "` " + result.describe()
                        + (result.status() == 0 ? ", no count of " + name + " in it" : ""));
            }
            counts.put(name, count);
        }
        if (withoutSlabs) {
            int allocatorRegions = slabs;
            counts.computeIfPresent("mr", (name, count) -> count - allocatorRegions);
        }
        // A device's sentinel id lives as long as the device is open in the process, not a test.
        counts.computeIfPresent("cm_id", (name, count) -> count - RdmaDevice.sentinelIds());
        return counts;
    }

    /**
     * Returns the shared receive queues the kernel counts on the test device ({@code srq} of
     * {@code rdma resource show}), or -1 when this is no device run.
     *
     * @throws AssertionError on a device run when the {@code rdma} tool gives no such count
     */
    public static int kernelSharedReceiveQueues() {
        if (!deviceRun()) {
            return -1;
        }
        List<String> command = showCommand();
        Result result = run(command);
        String[] words = result.output().lines().findFirst().orElse("").trim().split("\\s+");
        for (int i = 0; result.status() == 0 && i + 1 < words.length; i++) {
            if (words[i].equals("srq") && words[i + 1].matches("\\d+")) {
                return Integer.parseInt(words[i + 1]);
            }
        }
        throw new AssertionError("no count of srq in `" + String.join(" ", command) + "` " + result.describe());
    }

    /**
     * Returns the memory regions the kernel counts on the test device, the allocator's slabs included,
     * or -1 when this is no device run.
     *
     * @throws AssertionError on a device run when the {@code rdma} tool gives no such count
     */
    public static int kernelMemoryRegions() {
        Integer regions = kernelCounts(false).get("mr");
        return regions != null ? regions : -1;
    }

    private static void sleepUninterruptibly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Returns {@code true} where the tests have a device to count: the VM and a real RDMA host set these. */
    /** Returns {@code rdma resource show} for the test device, or for every device if none is named. */
    private static List<String> showCommand() {
        String device = System.getenv("RDMA_TEST_DEVICE");
        return device != null ? List.of("rdma", "resource", "show", device) : List.of("rdma", "resource", "show");
    }

    private static boolean deviceRun() {
        return System.getenv("RDMA_TEST_DEVICE") != null || System.getenv("RDMA_TEST_ADDRESS") != null;
    }

    /** The kernel's list of queue pairs (with their state) and CQs, for a failure message. */
    private static String kernelDetails() {
        return run(List.of("rdma", "resource", "show", "qp")).output()
                + run(List.of("rdma", "resource", "show", "cq")).output();
    }

    /** What a command did: its exit status (-1 if it could not run) and its output, or why it could not run. */
    private record Result(int status, String output) {
        String describe() {
            String shown = output.isBlank() ? "nothing" : "'" + output.strip() + "'";
            return status < 0 ? "could not run: " + output : "exited with " + status + " and printed " + shown;
        }
    }

    /** Runs {@code command} with its error output merged into its output. */
    private static Result run(List<String> command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            return new Result(process.waitFor(), output);
        } catch (IOException e) {
            return new Result(-1, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(-1, e.toString());
        }
    }
}
