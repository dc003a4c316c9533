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
import java.util.List;

import org.junit.jupiter.api.Test;
import org.nettyrdma.benchmark.ScaleRound.CloseSample;
import org.nettyrdma.benchmark.ScaleRound.IdleStep;
import org.nettyrdma.benchmark.ScaleRound.StreamPoint;

/**
 * The arithmetic, the verdicts and the per-round lines of {@link ScaleReport}, on figures made up here: no
 * device, no VM.
 */
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

    @Test
    void roundPrintsItsOwnFiguresEachLineLedByTheRound() {
        ScaleRound rdma = rdmaRound();
        rdma.connects = 170;
        rdma.setUpP50Ms = 12.34;
        rdma.setUpP99Ms = 45.6;
        rdma.connectsPerSecond = 80.05;
        rdma.streams.add(new StreamPoint(64, 4096, 64, 24, 0.1, 0.6, null));
        rdma.streams.add(new StreamPoint(256, 4096, 0, Double.NaN, Double.NaN, Double.NaN, "connected 0 of 256"));
        rdma.roundTripAloneP50Us = 120.04;
        rdma.roundTripAloneP99Us = 300;
        rdma.roundTripBeside = 170;
        rdma.roundTripError = "beside 170 idle: no round trip completed";
        String[] lines = printRound(rdma).split("\\R");
        assertEquals(List.of(
                "round 1 rdma: idle baseline: held 0, registered 2.00 MiB, channel 2.00 MiB, VmPin 2.00 MiB,"
                        + " RSS 97.66 MiB",
                "round 1 rdma: idle 1: held 1, registered 3.50 MiB, channel 3.50 MiB, VmPin 3.50 MiB, RSS 97.66 MiB",
                "round 1 rdma: idle 100: held 100, registered 152.00 MiB, channel 152.00 MiB, VmPin 152.00 MiB,"
                        + " RSS 97.66 MiB",
                "round 1 rdma: idle 400: held 170, registered 257.00 MiB, channel 255.00 MiB, VmPin 255.86 MiB,"
                        + " RSS 390.63 MiB, stopped: registered memory limit reached",
                "round 1 rdma: set-up: 170 connects, p50 12.3 ms, p99 45.6 ms, 80.1 connects/s",
                "round 1 rdma: stream 64 x 4096 B: 64 connected, 24.00 MB/s, slowest 0.10, fastest 0.60 MB/s",
                "round 1 rdma: stream 256 x 4096 B: 0 connected, - MB/s, slowest -, fastest - MB/s;"
                        + " connected 0 of 256",
                "round 1 rdma: round trip: alone p50 120.0 us, p99 300.0 us; beside 170 idle p50 - us, p99 - us;"
                        + " beside 170 idle: no round trip completed"), List.of(lines));
    }

    @Test
    void roundThatEndedEarlySaysWhyFirstAndHasNoRegisteredMemoryWithoutRdma() {
        ScaleRound epoll = new ScaleRound("epoll", 2);
        epoll.error = "java.io.IOException: the server: scale-end the server's output ended";
        epoll.idle.add(new IdleStep(100, 100, -1, -1, 0, 200_000, null));
        String printed = printRound(epoll);
        assertTrue(printed.startsWith("round 2 epoll: ended early: java.io.IOException: the server: scale-end"),
                printed);
        assertTrue(printed.contains("round 2 epoll: idle 100: held 100, VmPin 0 B, RSS 195.31 MiB"), printed);
        assertTrue(printed.contains("round 2 epoll: set-up: 0 connects, p50 - ms, p99 - ms, - connects/s"), printed);
    }

    @Test
    void closeThatOnlyFellMeetsTheTargetWithItsPeakAndEnd() {
        ScaleRound round = closingRound(340_480, 300_000, 120_000, 0);
        assertEquals(Boolean.TRUE, round.onlyFellWhileClosing());
        String line = ScaleReport.closingTarget(round);
        assertTrue(line.startsWith("MET           while 10000 idle connections close at once, VmPin and registered"
                + " memory only fall: VmPin 332.50 MiB open, peak 332.50 MiB, 0 B after 1.5 s"), line);
    }

    @Test
    void closeThatPinnedMoreOnTheWayMissesTheTargetEvenIfItEndsLower() {
        // A close that registered as it went: 340,480 kB open, 590,848 kB and 718,848 kB on the way, 0 at the end.
        ScaleRound round = closingRound(340_480, 590_848, 718_848, 0);
        assertEquals(Boolean.FALSE, round.onlyFellWhileClosing());
        String line = ScaleReport.closingTarget(round);
        assertTrue(line.startsWith("MISSED"), line);
        assertTrue(line.contains("VmPin 332.50 MiB open, peak 702.00 MiB, 0 B after 1.5 s"), line);
        assertTrue(printRound(round).contains("round 1 rdma: closing 10000 idle at once, +0.5 s: held 5000,"
                + " registered 577.00 MiB, 3 regions, VmPin 577.00 MiB"), printRound(round));
    }

    @Test
    void closeWithOneReadingIsNotMeasured() {
        ScaleRound round = new ScaleRound("rdma", 1);
        round.closedAtOnce = 10;
        round.closing.add(new CloseSample(0, 10, MIB, 1, 1024));
        round.closingError = "java.io.IOException: the server gave no 'scale-memory' line";
        assertEquals(null, round.onlyFellWhileClosing());
        assertTrue(ScaleReport.closingTarget(round).startsWith("NOT MEASURED"));
        assertTrue(ScaleReport.closingTarget(round).endsWith("the server gave no 'scale-memory' line"));
    }

    /** A close of 10,000 idle connections read four times, with {@code VmPin} (kB) as given; registered follows it. */
    private static ScaleRound closingRound(long... vmPinKib) {
        ScaleRound round = new ScaleRound("rdma", 1);
        round.closedAtOnce = 10_000;
        for (int i = 0; i < vmPinKib.length; i++) {
            round.closing.add(new CloseSample(500L * i, 10_000 - 5_000 * i < 0 ? 0 : 10_000 - 5_000 * i,
                    vmPinKib[i] * 1024, 4 - i, vmPinKib[i]));
        }
        return round;
    }

    private static String printRound(ScaleRound round) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ScaleReport.printRound(round, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /** A round whose ramp held 100 at 1.5 MiB each and stopped at 170 of 400. */
    @Test
    void theConnectFloorIsReadFromItsLineAndJudgedAgainst() {
        ConnectFloor floor = ConnectFloor.parse(2, "connect-floor connects=1000 in_flight=16 seconds=4.000"
                + " connects_per_s=250.0 setup_p50_ms=60.500 setup_p99_ms=120.250");
        assertEquals(new ConnectFloor(2, 1000, 250.0, 60.5, 120.25, null), floor);
        assertTrue(ConnectFloor.parse(1, "connect-floor connects=x").error().startsWith("unreadable"));

        ScaleReport report = new ScaleReport(new int[] {1000}, new int[] {1}, new int[] {4096}, 16);
        assertTrue(report.connectFloorTarget().startsWith("NOT MEASURED"), report.connectFloorTarget());
        for (int r = 1; r <= 3; r++) {
            ScaleRound rdma = new ScaleRound("rdma", r);
            rdma.connects = 1000;
            rdma.connectsPerSecond = 150 + r; // 151, 152, 153: median 152
            report.add(rdma);
            report.addFloor(new ConnectFloor(r, 1000, 200 - r, 50, 90, null)); // 199, 198, 197: median 198
        }
        assertEquals("MISSED        rdma connects/s >= 0.8 x the raw RDMA CM floor's (rdma-cm): 152.0 against 198.0"
                + " connects/s, 0.77 x (medians)", report.connectFloorTarget());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        report.print(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String printed = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(printed.contains("  rdma-cm   "), printed);
        assertTrue(printed.contains("198.0 [197.0-199.0]"), printed);
    }

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
