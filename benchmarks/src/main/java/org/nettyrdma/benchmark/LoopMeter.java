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

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;

/**
 * Reads what the benchmark's event loops (or the threads of {@link VerbsPingPong}) cost: the process's CPU
 * time and the bytes the loops' threads allocated
 * ({@code com.sun.management.ThreadMXBean.getThreadAllocatedBytes}), which, in the steady state of a
 * connection, is the garbage the pipeline and the transport make. Thread-safe.
 */
final class LoopMeter {

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private final long[] threadIds;
    /**
     * The bytes one {@link #sample} allocates on the measured threads: 0, unless the caller is one of them,
     * whose own readings (their arrays, the sample) would otherwise count as the work's garbage.
     */
    private long sampleAllocatedBytes;

    private LoopMeter(long[] threadIds) {
        this.threadIds = threadIds;
    }

    /** Returns a meter of every event loop thread of {@code groups}, which it starts if they are not yet. */
    @SuppressWarnings("deprecation") // Thread.getId(): threadId() needs Java 19
    static LoopMeter of(EventLoopGroup... groups) throws InterruptedException, ExecutionException, TimeoutException {
        List<Long> ids = new ArrayList<>();
        for (EventLoopGroup group : groups) {
            for (EventExecutor executor : group) {
                ids.add(executor.submit(() -> Thread.currentThread().getId()).get(10, TimeUnit.SECONDS));
            }
        }
        return ofThreadIds(ids.stream().mapToLong(Long::longValue).toArray());
    }

    /**
     * Returns a meter of {@code threads}, which do the work themselves instead of event loops; if the
     * calling thread is one of them, it must be the one that takes the samples.
     */
    @SuppressWarnings("deprecation") // Thread.getId(): threadId() needs Java 19
    static LoopMeter of(Thread... threads) {
        LoopMeter meter = ofThreadIds(Arrays.stream(threads).mapToLong(Thread::getId).toArray());
        if (Arrays.asList(threads).contains(Thread.currentThread())) {
            meter.sampleAllocatedBytes = meter.ownAllocation();
        }
        return meter;
    }

    /** Returns what a sample allocates on the calling thread, once a first one has loaded what it needs. */
    private long ownAllocation() {
        if (!THREADS.isThreadAllocatedMemorySupported()) {
            return 0;
        }
        long bytes = 0;
        for (int i = 0; i < 2; i++) {
            long before = THREADS.getCurrentThreadAllocatedBytes();
            sample(0);
            bytes = THREADS.getCurrentThreadAllocatedBytes() - before;
        }
        return bytes;
    }

    private static LoopMeter ofThreadIds(long[] threadIds) {
        if (THREADS.isThreadAllocatedMemorySupported() && !THREADS.isThreadAllocatedMemoryEnabled()) {
            THREADS.setThreadAllocatedMemoryEnabled(true);
        }
        return new LoopMeter(threadIds);
    }

    /** Returns how many threads the meter reads. */
    int threads() {
        return threadIds.length;
    }

    /** Returns the current readings, with {@code count} (bytes or round trips) read by the caller. */
    Sample sample(long count) {
        long loopCpu = 0;
        long loopUser = 0;
        for (long id : threadIds) {
            long cpu = THREADS.getThreadCpuTime(id);
            long user = THREADS.getThreadUserTime(id);
            if (cpu < 0 || user < 0) {
                loopCpu = -1;
                break;
            }
            loopCpu += cpu;
            loopUser += user;
        }
        return new Sample(System.nanoTime(), count, OS.getProcessCpuTime(), allocatedBytes(), loopCpu, loopUser);
    }

    /**
     * Returns the bytes the measured threads allocated for their work between {@code start} and
     * {@code end}: without what taking the samples allocated, NaN where the JVM cannot tell.
     */
    double workAllocatedBytes(Sample start, Sample end) {
        return end.allocatedBytesSince(start) - sampleAllocatedBytes;
    }

    /** Returns the bytes the loops' threads allocated so far, or -1 where the JVM cannot tell. */
    private long allocatedBytes() {
        if (!THREADS.isThreadAllocatedMemorySupported()) {
            return -1;
        }
        long sum = 0;
        for (long bytes : THREADS.getThreadAllocatedBytes(threadIds)) {
            if (bytes < 0) {
                return -1;
            }
            sum += bytes;
        }
        return sum;
    }

    /**
     * One reading: when, how much work was done, CPU time of the process, bytes the loops allocated, and
     * the loops' own CPU time, all of it and in user mode ({@code loopCpuNanos} -1 where the JVM
     * cannot tell).
     */
    record Sample(long nanos, long count, long cpuNanos, long allocatedBytes, long loopCpuNanos, long loopUserNanos) {

        double secondsSince(Sample earlier) {
            return (nanos - earlier.nanos) / 1e9;
        }

        long countSince(Sample earlier) {
            return count - earlier.count;
        }

        double cpuNanosSince(Sample earlier) {
            return cpuNanos < 0 || earlier.cpuNanos < 0 ? Double.NaN : cpuNanos - earlier.cpuNanos;
        }

        /**
         * Returns the share of the loops' CPU time spent in the kernel since {@code earlier}: for RDMA
         * on rxe that is the device's own work (packets, checksums, copies), done in the poster's
         * system calls and in softirqs that interrupt it.
         */
        double loopKernelShareSince(Sample earlier) {
            if (loopCpuNanos < 0 || earlier.loopCpuNanos < 0 || loopCpuNanos == earlier.loopCpuNanos) {
                return Double.NaN;
            }
            double cpu = loopCpuNanos - earlier.loopCpuNanos;
            return (cpu - (loopUserNanos - earlier.loopUserNanos)) / cpu;
        }

        double allocatedBytesSince(Sample earlier) {
            return allocatedBytes < 0 || earlier.allocatedBytes < 0 ? Double.NaN
                    : allocatedBytes - earlier.allocatedBytes;
        }
    }
}
