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

import java.util.ArrayList;
import java.util.List;

/**
 * The figures of one transport in one round of {@link ScaleBenchmark}: one server process, from its
 * start to its end. A figure that was not measured is {@code NaN}, and the step that failed says why.
 * Filled by the benchmark's thread, then read by {@link ScaleReport}.
 */
final class ScaleRound {

    /** A figure of the idle ramp: {@code asked} connections wanted, {@code held} open at the server. */
    record IdleStep(int asked, int held, long registeredBytes, long channelBytes, long vmPinKib, long rssKib,
                    String error) {

        /** Returns {@code true} if the ramp stopped here short of {@code asked}. */
        boolean stopped() {
            return error != null;
        }
    }

    /**
     * A reading of the server while the idle ramp's connections close, {@code millis} after they were all
     * asked to (the first, at 0, just before): its open sink connections, its registered bytes and memory
     * regions (every kind), and its {@code VmPin}.
     */
    record CloseSample(long millis, int children, long registeredBytes, long regions, long vmPinKib) {
    }

    /**
     * A figure of the streams: {@code connected} of {@code active} wanted wrote {@code size}-byte messages;
     * MB/s (2^20 bytes) read at the server, all together and by the slowest and the fastest connection.
     */
    record StreamPoint(int active, int size, int connected, double aggregateMBps, double slowestMBps,
                       double fastestMBps, String error) {

        double slowestToFastest() {
            return fastestMBps > 0 ? slowestMBps / fastestMBps : Double.NaN;
        }

        /** Returns the slowest connection's MB/s over its fair share, the aggregate divided by the connections. */
        double slowestShareOfFair() {
            return aggregateMBps > 0 ? slowestMBps / (aggregateMBps / connected) : Double.NaN;
        }
    }

    final String transport;
    final int round;
    /** Why the round ended early (the server did not start, a step threw), or {@code null}. */
    String error;

    double roundTripAloneP50Us = Double.NaN;
    double roundTripAloneP99Us = Double.NaN;
    double roundTripBesideP50Us = Double.NaN;
    double roundTripBesideP99Us = Double.NaN;
    /** How many idle connections were open beside the second round trip. */
    int roundTripBeside;
    String roundTripError;

    /** The server before the ramp: the round-trip connection only. */
    IdleStep idleBaseline;
    final List<IdleStep> idle = new ArrayList<>();
    double setUpP50Ms = Double.NaN;
    double setUpP99Ms = Double.NaN;
    double connectsPerSecond = Double.NaN;
    long connects;

    final List<StreamPoint> streams = new ArrayList<>();
    /** The connections the idle ramp held when they all closed at once, and the server's readings meanwhile. */
    int closedAtOnce;
    final List<CloseSample> closing = new ArrayList<>();
    /** Why the readings while closing stopped early, or {@code null}. */
    String closingError;

    ScaleRound(String transport, int round) {
        this.transport = transport;
        this.round = round;
    }

    /** Returns the step of the ramp that asked for {@code asked}, or {@code null} if the ramp never got there. */
    IdleStep idleStep(int asked) {
        return idle.stream().filter(step -> step.asked() == asked).findFirst().orElse(null);
    }

    /** Returns the point of {@code active} connections at {@code size}, or {@code null}. */
    StreamPoint stream(int active, int size) {
        return streams.stream().filter(point -> point.active() == active && point.size() == size).findFirst()
                .orElse(null);
    }

    /**
     * Returns {@code true} if {@code VmPin} and the registered bytes never rose from one reading to the next
     * while the idle connections closed, {@code false} if one did, {@code null} with fewer than two readings.
     */
    Boolean onlyFellWhileClosing() {
        if (closing.size() < 2) {
            return null;
        }
        for (int i = 1; i < closing.size(); i++) {
            CloseSample before = closing.get(i - 1);
            CloseSample after = closing.get(i);
            if (after.vmPinKib() > before.vmPinKib() || after.registeredBytes() > before.registeredBytes()) {
                return false;
            }
        }
        return true;
    }

    /** Returns the registered bytes per idle connection at {@code step}: what the ramp added, over what it held. */
    double registeredPerIdle(IdleStep step) {
        if (step == null || idleBaseline == null || step.held() == 0 || step.registeredBytes() < 0) {
            return Double.NaN;
        }
        return (double) (step.registeredBytes() - idleBaseline.registeredBytes()) / step.held();
    }
}
