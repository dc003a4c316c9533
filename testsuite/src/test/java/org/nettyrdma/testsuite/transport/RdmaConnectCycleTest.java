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
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.ObjectName;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaByteBufAllocator;
import org.nettyrdma.testkit.Await;
import org.nettyrdma.testkit.DeviceResources;
import org.nettyrdma.testkit.EchoHandler;
import org.nettyrdma.testkit.EchoProbe;
import org.nettyrdma.testkit.ExceptionRecorder;
import org.nettyrdma.testkit.RdmaTransportFixture;
import org.nettyrdma.testkit.TestSeed;

/**
 * One server (a group of two loops) and a client that, cycle after cycle, connects, has a small
 * message echoed and checked, and closes: what a connection leaves behind when it is gone, on the
 * heap, in registered memory, in the transport's completion queues or on the device, adds up here.
 *
 * <p>A cycle ends when the server's end of its connection is closed too. Every {@value #SAMPLE_INTERVAL}
 * cycles (or a tenth of the run if it is shorter), once the counts have settled, the test prints one line:
 * the live heap after a full GC, the JDK's direct memory in use before and after that GC and what
 * the cycles since the last sample left of it to the collector, the transport's
 * registered bytes and memory regions, its live completion queues, and the kernel's counts of queue
 * pairs, CQs, memory regions, CM ids and protection domains. The first sample ends the warm-up (JIT,
 * pools, per-loop CQs); from there on:
 * <ul>
 *   <li>the registrations, CQs and kernel counts at every sample equal those at the warm-up sample;</li>
 *   <li>the heap after GC grows by less than {@value #HEAP_BYTES_PER_CYCLE} bytes per cycle between the
 *       warm-up sample and the last one. A connection that stays reachable keeps at least its channel,
 *       pipeline and connection state, kilobytes on either end, so even one leaked object of a few
 *       dozen bytes per cycle (a map entry, a registration) comes near the bound and a leaked channel
 *       exceeds it many times over, while the full GC leaves only noise that does not grow with the
 *       cycles: {@value #HEAP_NOISE_BYTES} bytes are allowed for that, so that a short run is not
 *       judged on the noise alone;</li>
 *   <li>native memory is freed when its connection closes, not by the garbage collector: between
 *       samples, over the cycles in which no collection ran, the JDK's direct memory in use grows by
 *       less than {@value #DIRECT_BYTES_PER_CYCLE} bytes per cycle on average. A connection's ring and
 *       send buffer alone are a MiB each by default, so connections whose buffers wait for a collection
 *       exceed this many times over, while the few small buffers a connection may leave to the
 *       collector (addresses, work request chains) and a pool's occasional new chunk stay below it.
 *       Cycles in which a collection ran are left out, since it frees what the test looks for.</li>
 * </ul>
 *
 * <p>The number of cycles is {@code -Dorg.nettyrdma.test.cycles=N} (through {@code RDMA_TEST_JAVA_OPTS}
 * for {@code scripts/device-tests}), {@value #DEFAULT_CYCLES} by default. In the rxe VM a cycle costs
 * several guest scheduler ticks (connection set-up over RDMA CM, the echo, the disconnect), which puts
 * the full 10,000 cycles at eight minutes or more per JDK, depending on the host's load: more than a CI run of every device test on
 * two JDKs should spend on one test. 1,000 cycles take an eighth of that and still give nine samples
 * after the warm-up (a sample every tenth of a shorter run), enough to see a leak of a few hundred
 * bytes a connection. The full run is one command in the testing section of
 * {@code docs/architecture.md}.
 */
class RdmaConnectCycleTest {

    private static final String CYCLES_PROPERTY = "org.nettyrdma.test.cycles";
    private static final int DEFAULT_CYCLES = 1_000;
    private static final int SAMPLE_INTERVAL = 1_000;
    private static final int MESSAGE_SIZE = 64;
    private static final long HEAP_BYTES_PER_CYCLE = 64;
    private static final long HEAP_NOISE_BYTES = 256 << 10;
    private static final long DIRECT_BYTES_PER_CYCLE = 64 << 10;
    /** Longer than a closing channel takes to drain its last work requests, so that settled counts are final. */
    private static final long SETTLED_MILLIS = 3_000;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    @Test
    @Timeout(value = 90, unit = TimeUnit.MINUTES) // the cycles set the length; every step has a bound of its own
    void connectEchoCloseLeavesNothingBehind(TestInfo test) throws Exception {
        long seed = TestSeed.of(test);
        int cycles = Integer.getInteger(CYCLES_PROPERTY, DEFAULT_CYCLES);
        int interval = Math.max(1, Math.min(SAMPLE_INTERVAL, cycles / 10));
        assertTrue(cycles >= 2 * interval, CYCLES_PROPERTY + ": " + cycles + " (expected: >= 2 samples)");

        AtomicInteger accepted = new AtomicInteger();
        AtomicInteger open = new AtomicInteger();
        ExceptionRecorder serverErrors = new ExceptionRecorder();
        Channel server = rdma.bind(rdma.server().childHandler(new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                accepted.incrementAndGet();
                open.incrementAndGet();
                ch.closeFuture().addListener(f -> open.decrementAndGet());
                ch.pipeline().addLast(EchoHandler.INSTANCE, serverErrors);
            }
        }));
        Bootstrap client = rdma.client();

        List<Sample> samples = new ArrayList<>();
        DirectGrowth directGrowth = new DirectGrowth();
        long start = System.nanoTime();
        for (int cycle = 1; cycle <= cycles; cycle++) {
            EchoProbe probe = new EchoProbe(seed + cycle, MESSAGE_SIZE);
            Channel channel = client.handler(probe).connect(server.localAddress()).sync().channel();
            probe.writeAll(channel);
            probe.assertEchoed(30);
            assertTrue(channel.close().await(30, TimeUnit.SECONDS), "cycle " + cycle + ": the client's close");
            int done = cycle;
            Await.until(() -> accepted.get() == done && open.get() == 0, 30, () -> "cycle " + done
                    + ": the server accepted " + accepted.get() + " connections, " + open.get() + " still open");
            directGrowth.afterCycle();
            if (cycle % interval == 0) {
                long cycleNanos = (System.nanoTime() - start) / interval;
                Sample sample = samples.isEmpty() ? Sample.settled(cycle, cycleNanos, directGrowth)
                        : Sample.matching(cycle, cycleNanos, directGrowth, samples.get(0));
                System.out.println(sample);
                samples.add(sample);
                directGrowth.restart();
                start = System.nanoTime();
            }
        }
        assertEquals(List.of(), serverErrors.exceptions(), "server exceptions");
        assertTrue(server.close().await(30, TimeUnit.SECONDS), "the server's close");

        Sample warm = samples.get(0);
        for (Sample sample : samples.subList(1, samples.size())) {
            assertEquals(warm.registeredBytes, sample.registeredBytes, () -> "registered bytes at cycle "
                    + sample.cycle + " against the warm-up sample: " + sample + "; " + warm);
            assertEquals(warm.nativeBytes, sample.nativeBytes, () -> "native memory of connections at cycle "
                    + sample.cycle + " against the warm-up sample: " + sample + "; " + warm);
            assertEquals(warm.registrations, sample.registrations, () -> "memory registrations at cycle "
                    + sample.cycle + " against the warm-up sample: " + sample + "; " + warm);
            assertEquals(warm.completionQueues, sample.completionQueues, () -> "live CQs at cycle "
                    + sample.cycle + " against the warm-up sample: " + sample + "; " + warm);
            assertEquals(warm.kernel, sample.kernel, () -> "the kernel's counts at cycle " + sample.cycle
                    + " against the warm-up sample: " + sample + "; " + warm);
        }
        Sample last = samples.get(samples.size() - 1);
        long allowed = HEAP_BYTES_PER_CYCLE * (last.cycle - warm.cycle) + HEAP_NOISE_BYTES;
        long growth = last.heapAfterGc - warm.heapAfterGc;
        assertTrue(growth < allowed, () -> "the heap after GC grew by " + growth + " bytes from cycle "
                + warm.cycle + " to " + last.cycle + ", " + (growth / (last.cycle - warm.cycle))
                + " per cycle; allowed: " + allowed);
        for (Sample sample : samples.subList(1, samples.size())) {
            assertTrue(sample.directCycles > 0 && sample.directPerCycle < DIRECT_BYTES_PER_CYCLE, () -> "direct "
                    + "memory left to the collector at cycle " + sample.cycle + ": closed connections' native "
                    + "memory is freed by the GC, not at close: " + sample);
        }
    }

    /** The state between two cycles, with no connection open. */
    private record Sample(int cycle, long cycleNanos, long heapAfterGc, long directBeforeGc, long directAfterGc,
                          long directPerCycle, int directCycles, long registeredBytes, long nativeBytes,
                          int registrations,
                          int completionQueues, long allocatorBytes, Map<String, Integer> kernel) {

        /** Samples once the transport's and the kernel's counts stayed the same for {@code SETTLED_MILLIS}. */
        static Sample settled(int cycle, long cycleNanos, DirectGrowth direct) throws Exception {
            Counts counts = Counts.now();
            long sameSince = System.nanoTime();
            long deadline = sameSince + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() - sameSince < TimeUnit.MILLISECONDS.toNanos(SETTLED_MILLIS)
                    && System.nanoTime() - deadline < 0) {
                Thread.sleep(100);
                Counts next = Counts.now();
                if (!next.equals(counts)) {
                    counts = next;
                    sameSince = System.nanoTime();
                }
            }
            return of(cycle, cycleNanos, direct, counts);
        }

        /** Samples once the counts equal {@code warm}'s, or after {@code SETTLED_MILLIS} with what they are. */
        static Sample matching(int cycle, long cycleNanos, DirectGrowth direct, Sample warm)
                throws Exception {
            Counts expected = new Counts(warm.registeredBytes, warm.nativeBytes, warm.registrations,
                    warm.completionQueues, warm.kernel);
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SETTLED_MILLIS);
            Counts counts = Counts.now();
            while (!counts.equals(expected) && System.nanoTime() - deadline < 0) {
                Thread.sleep(100);
                counts = Counts.now();
            }
            return of(cycle, cycleNanos, direct, counts);
        }

        private static Sample of(int cycle, long cycleNanos, DirectGrowth direct, Counts counts)
                throws Exception {
            long directBefore = directMemoryUsed();
            long heap = usedHeapAfterGc();
            return new Sample(cycle, cycleNanos, heap, directBefore, settledDirectMemoryUsed(), direct.perCycle(),
                    direct.cycles, counts.registeredBytes, counts.nativeBytes, counts.registrations,
                    counts.completionQueues,
                    RdmaByteBufAllocator.registeredBytes(), counts.kernel);
        }

        @Override
        public String toString() {
            return String.format("cycle %d: %.1f ms per cycle; heap after GC %d B; direct memory %d B before GC, "
                    + "%d B after, %d B per cycle left to the collector (%d cycles without one); transport: %d B in "
                    + "%d MRs, %d B of native memory, %d CQs, allocator %d B; kernel %s", cycle, cycleNanos / 1e6,
                    heapAfterGc, directBeforeGc, directAfterGc, directPerCycle, directCycles, registeredBytes,
                    registrations, nativeBytes,
                    completionQueues, allocatorBytes, kernel);
        }
    }

    /**
     * The growth of the JDK's direct memory in use from one cycle's end to the next, summed over the
     * cycles in which no collection ran: what connections leave for the collector to free.
     */
    private static final class DirectGrowth {
        private long lastUsed = -1;
        private long lastCollections;
        private long growth;
        private int cycles;

        void afterCycle() {
            long collections = collections();
            long used = directMemoryUsed();
            if (lastUsed >= 0 && collections == lastCollections) {
                growth += used - lastUsed;
                cycles++;
            }
            lastUsed = used;
            lastCollections = collections;
        }

        /** Starts over: the sample's collection freed what the last cycles left. */
        void restart() {
            lastUsed = -1;
            growth = 0;
            cycles = 0;
        }

        long perCycle() {
            return cycles == 0 ? 0 : growth / cycles;
        }

        private static long collections() {
            return ManagementFactory.getGarbageCollectorMXBeans().stream()
                    .mapToLong(GarbageCollectorMXBean::getCollectionCount).sum();
        }
    }

    /** The transport's and the kernel's counts of verbs objects. */
    private record Counts(long registeredBytes, long nativeBytes, int registrations, int completionQueues,
                          Map<String, Integer> kernel) {
        static Counts now() {
            DeviceResources.TransportCounts transport = DeviceResources.transportCounts();
            return new Counts(transport.registeredBytes(), transport.nativeBytes(), transport.registrations(),
                    transport.completionQueues(), DeviceResources.kernelCounts());
        }
    }

    /**
     * Returns the bytes of the objects on the heap that a full collection left: the least of a few,
     * since a reference queue or a finalizer may keep an object through the first. They are the class
     * histogram's total, not the heap's used bytes, which count the collector's partly filled regions
     * too and so move by hundreds of KiB from one full collection to the next with the same objects.
     */
    private static long usedHeapAfterGc() throws Exception {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            used = Math.min(used, liveHeapBytes());
        }
        return used;
    }

    /** Returns the total of the class histogram, which the JVM takes after a full collection. */
    private static long liveHeapBytes() throws Exception {
        String histogram = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {null}, new String[] {String[].class.getName()});
        for (String line : histogram.split("\n")) {
            String[] fields = line.trim().split("\\s+");
            if (fields.length == 3 && fields[0].equals("Total")) {
                return Long.parseLong(fields[2]);
            }
        }
        throw new IllegalStateException("no total in the class histogram: " + histogram);
    }

    /**
     * Returns the direct memory in use once the cleaners of collected buffers ran: they run on a thread
     * of their own after the collection, so the count is read until it stops falling.
     */
    private static long settledDirectMemoryUsed() throws InterruptedException {
        long used = directMemoryUsed();
        for (int i = 0; i < 50; i++) {
            Thread.sleep(100);
            long next = directMemoryUsed();
            if (next == used) {
                break;
            }
            used = next;
        }
        return used;
    }

    /** Returns the bytes of the JDK's direct buffers not yet freed. */
    private static long directMemoryUsed() {
        return ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(pool -> pool.getName().equals("direct"))
                .mapToLong(BufferPoolMXBean::getMemoryUsed).sum();
    }
}
