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

import java.util.Locale;

/**
 * What {@link TransportBenchmark} measured for one message size over one transport. A phase that
 * failed has no figures ({@code null}) and says why in {@link #error()}. A MB is 2^20 bytes, as in
 * perftest.
 *
 * @param transport the transport's name: {@code rdma}, {@code nio} or {@code epoll}
 * @param size the message size in bytes
 * @param stream the streaming phase, or {@code null} if it failed
 * @param roundTrip the round-trip phase, or {@code null} if it failed
 * @param error why a phase failed, or {@code null}
 */
public record Result(String transport, int size, Stream stream, RoundTrip roundTrip, String error) {

    /**
     * One connection writing messages of one size one way as fast as it can.
     *
     * @param mibPerSecond MB (2^20 bytes) per second that arrived at the server
     * @param messages messages that arrived in the measured time
     * @param cpuMillisPerMib CPU time of the whole process per MB, in milliseconds
     * @param allocatedBytesPerMessage bytes the two event loop threads allocated per message
     * @param registeredBytesPerChannel memory registered with the device per channel (each connection
     *        has two: the client's and the server's), at the end of the phase; -1 for TCP
     * @param loopKernelShare the share of the event loop threads' CPU time spent in the kernel, NaN
     *        where unknown
     * @param creditStalls the writer's flushes that stopped for want of the reader's credit; -1 for TCP
     * @param copiedBytesPerMessage bytes the connection copied per message: the writer's into registered
     *        memory before sending ({@code RdmaChannelMetrics.copiedBytes()}) and the reader's out of
     *        receive memory ({@code receiveCopiedBytes()}); NaN where not counted (TCP)
     */
    public record Stream(double mibPerSecond, long messages, double cpuMillisPerMib, double allocatedBytesPerMessage,
                         long registeredBytesPerChannel, double loopKernelShare, long creditStalls,
                         double copiedBytesPerMessage) {
    }

    /**
     * One connection sending a message and waiting for its echo before sending the next.
     *
     * @param roundTrips round trips in the measured time
     * @param p50Micros the median round trip, in microseconds
     * @param p99Micros the 99th percentile, in microseconds
     * @param p999Micros the 99.9th percentile, in microseconds
     * @param cpuMicrosPerRoundTrip CPU time of the whole process per round trip, in microseconds
     * @param allocatedBytesPerRoundTrip bytes the two event loop threads allocated per round trip
     * @param wakeUpsPerRoundTrip completion channel wake-ups of the two event loops per round trip;
     *        NaN for TCP
     * @param completionsPerRoundTrip work completions the two event loops dispatched per round trip;
     *        NaN for TCP
     */
    public record RoundTrip(long roundTrips, double p50Micros, double p99Micros, double p999Micros,
                            double cpuMicrosPerRoundTrip, double allocatedBytesPerRoundTrip,
                            double wakeUpsPerRoundTrip, double completionsPerRoundTrip) {
    }

    /**
     * Returns the result as one line of {@code key=value} fields for scripts, {@code error=...} last since
     * its value has spaces: {@code bench transport=rdma size=64 MBps=12.30 ... rtt_p50_us=41.2 ...}.
     */
    public String toLine() {
        return toLine(0);
    }

    /**
     * Returns {@link #toLine()} with the measured round it belongs to after the size,
     * {@code bench transport=rdma size=64 round=2 ...}, or without one for {@code round} 0.
     */
    public String toLine(int round) {
        StringBuilder line = new StringBuilder("bench transport=").append(transport).append(" size=").append(size);
        if (round > 0) {
            line.append(" round=").append(round);
        }
        if (stream != null) {
            line.append(format(" MBps=%.2f messages=%d cpu_ms_per_MB=%.1f alloc_B_per_msg=%.1f",
                    stream.mibPerSecond, stream.messages, stream.cpuMillisPerMib, stream.allocatedBytesPerMessage));
            if (stream.registeredBytesPerChannel >= 0) {
                line.append(" registered_B_per_channel=").append(stream.registeredBytesPerChannel);
            }
            if (!Double.isNaN(stream.loopKernelShare)) {
                line.append(format(" loop_kernel_share=%.2f", stream.loopKernelShare));
            }
            if (stream.creditStalls >= 0) {
                line.append(" credit_stalls=").append(stream.creditStalls);
            }
            if (!Double.isNaN(stream.copiedBytesPerMessage)) {
                line.append(format(" copied_B_per_msg=%.1f", stream.copiedBytesPerMessage));
            }
        }
        if (roundTrip != null) {
            line.append(format(" rtt_p50_us=%.1f rtt_p99_us=%.1f rtt_p999_us=%.1f round_trips=%d cpu_us_per_rtt=%.1f"
                    + " alloc_B_per_rtt=%.1f", roundTrip.p50Micros, roundTrip.p99Micros, roundTrip.p999Micros,
                    roundTrip.roundTrips, roundTrip.cpuMicrosPerRoundTrip, roundTrip.allocatedBytesPerRoundTrip));
            if (!Double.isNaN(roundTrip.wakeUpsPerRoundTrip)) {
                line.append(format(" wakeups_per_rtt=%.2f completions_per_rtt=%.2f", roundTrip.wakeUpsPerRoundTrip,
                        roundTrip.completionsPerRoundTrip));
            }
        }
        if (error != null) {
            line.append(" error=").append(error.replace('\n', ' '));
        }
        return line.toString();
    }

    private static String format(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
