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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.nettyrdma.benchmark.ScaleRound.IdleStep;
import org.nettyrdma.benchmark.ScaleRound.StreamPoint;

/** The arithmetic and the verdicts of {@link ScaleReport}, on figures made up here: no device, no VM. */
class ScaleReportTest {

    private static final long MIB = 1 << 20;

    @Test
    void spreadIsTheMedianAndTheExtremesOfTheRoundsThatMeasured() {
        Spread odd = Spread.of(3, 1, Double.NaN, 2);
        assertEquals(2, odd.median());
        assertEquals(1, odd.min());
        assertEquals(3, odd.max());
        assertEquals(3, odd.rounds());
        assertEquals(2.5, Spread.of(1, 2, 3, 4).median());
        assertEquals("2.0 [1.0-3.0]", odd.format(1));
        assertTrue(Spread.of(Double.NaN).isEmpty());
        assertEquals("-", Spread.of().format(2));
    }

    @Test
    void slowestConnectionIsComparedWithTheFastestAndWithItsFairShare() {
        StreamPoint point = new StreamPoint(4, 4096, 4, 40, 5, 15, null);
        assertEquals(1.0 / 3, point.slowestToFastest(), 1e-9);
        // A fair share is 40 / 4 = 10 MB/s; the slowest has half of it.
        assertEquals(0.5, point.slowestShareOfFair(), 1e-9);
    }

    @Test
    void registeredPerIdleConnectionIsWhatTheRampAdded() {
        ScaleRound round = rdmaRound();
        assertEquals(1.5 * MIB, round.registeredPerIdle(round.idleStep(100)), 1);
    }

    @Test
    void idleTargetSaysByHowMuchItIsMissed() {
        String line = ScaleReport.idleTarget(rdmaRound());
        assertTrue(line.startsWith("MISSED"), line);
        assertTrue(line.contains("1.50 MiB per idle connection with 170 held, 24.00 x the target"), line);
    }

    @Test
    void rampThatStoppedBeforeACountMissesItWithTheError() {
        String line = ScaleReport.totalTarget(rdmaRound(), 1000, 128 * MIB);
        assertTrue(line.startsWith("MISSED"), line);
        assertTrue(line.contains("stopped at 170: registered memory limit reached"), line);
        assertTrue(ScaleReport.heldTarget(rdmaRound(), 10_000).startsWith("MISSED"));
    }

    @Test
    void countNotAskedForIsNotMeasured() {
        ScaleRound round = new ScaleRound("rdma", 1);
        round.idleBaseline = step(0, 0, 0);
        round.idle.add(step(1, 1, MIB));
        assertTrue(ScaleReport.totalTarget(round, 1000, 128 * MIB).startsWith("NOT MEASURED"));
        assertTrue(ScaleReport.heldTarget(round, 10_000).contains("--counts has no 10000"));
    }

    @Test
    void reportPrintsEveryTableAndTheTargets() {
        ScaleReport report = new ScaleReport(new int[] {1, 100, 400}, new int[] {1, 64}, new int[] {4096}, 16);
        for (int r = 1; r <= 3; r++) {
            ScaleRound rdma = rdmaRound();
            rdma.streams.add(new StreamPoint(1, 4096, 1, 30, 30, 30, null));
            rdma.streams.add(new StreamPoint(64, 4096, 64, 24, 0.1, 0.6, null));
            report.add(rdma);
            ScaleRound epoll = new ScaleRound("epoll", r);
            epoll.streams.add(new StreamPoint(1, 4096, 1, 80, 80, 80, null));
            epoll.streams.add(new StreamPoint(64, 4096, 64, 90, 1.2, 1.6, null));
            report.add(epoll);
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        report.print(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String printed = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(printed.contains("MISSED        64 active at 4096 B >= 0.9 x one alone: rdma 0.80 [0.80-0.80] x;"
                + " epoll 1.13 [1.13-1.13] x"), printed);
        assertTrue(printed.contains("MISSED        slowest of 64 active at 4096 B >= 0.5 of its fair share"), printed);
        assertTrue(printed.contains("at 170: registered memory limit reached"), printed);
    }

    /** A round whose ramp held 100 at 1.5 MiB each and stopped at 170 of 400. */
    private static ScaleRound rdmaRound() {
        ScaleRound round = new ScaleRound("rdma", 1);
        round.idleBaseline = step(0, 0, 2 * MIB);
        round.idle.add(step(1, 1, 2 * MIB + 3 * MIB / 2));
        round.idle.add(step(100, 100, 2 * MIB + 150 * MIB));
        round.idle.add(new IdleStep(400, 170, 2 * MIB + 255 * MIB, 255 * MIB, 262_000, 400_000,
                "registered memory limit reached"));
        return round;
    }

    private static IdleStep step(int asked, int held, long registered) {
        return new IdleStep(asked, held, registered, registered, registered / 1024, 100_000, null);
    }
}
