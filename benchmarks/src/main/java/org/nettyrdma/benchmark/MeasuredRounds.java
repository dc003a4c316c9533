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

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;

/**
 * The measured passes a benchmark program runs after its one warm-up, each under a round number: a
 * count of them, one after the other ({@code --rounds 3}), or one for each line {@code round N} read from
 * standard input ({@code --rounds stdin}). {@code scripts/demo} writes those lines: every program of the
 * demo warms up once in a JVM of its own, then the programs take turns, round by round, so that a drift
 * of the shared host's load falls on all of them alike (docs/benchmark.md#rounds). Used by one thread.
 */
final class MeasuredRounds {

    /** The option's part of a program's usage line. */
    static final String USAGE = "[--rounds N|stdin, default 1: measured passes after the one warm-up; stdin: one for"
            + " each line \"round N\" on standard input]";

    private static final String ROUND = "round ";

    /** The lines that start each round, or {@code null} for a count. */
    private final BufferedReader lines;
    private final int count;
    private int next = 1;

    private MeasuredRounds(BufferedReader lines, int count) {
        this.lines = lines;
        this.count = count;
    }

    /**
     * Returns the rounds {@code --rounds} asks for: {@code stdin} reads them from {@code stdin}, a number
     * is a count.
     *
     * @throws IllegalArgumentException if {@code value} is neither
     */
    static MeasuredRounds parse(String value, InputStream stdin) {
        if ("stdin".equals(value)) {
            return fromLines(new InputStreamReader(stdin, StandardCharsets.UTF_8));
        }
        try {
            return count(Integer.parseInt(value));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--rounds: " + value + " (expected: a count >= 1, or stdin)");
        }
    }

    /** Returns rounds 1 to {@code count}, one after the other. */
    static MeasuredRounds count(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("rounds: " + count + " (expected: >= 1)");
        }
        return new MeasuredRounds(null, count);
    }

    /** Returns one round for each line {@code round N} that {@code lines} holds, N its number. */
    static MeasuredRounds fromLines(Reader lines) {
        return new MeasuredRounds(new BufferedReader(lines), 0);
    }

    /**
     * Returns the number of the next round, or 0 when there is none: the count ran out, or the input
     * ended. Waits for the input's next line, as long as the other programs' rounds take.
     *
     * @throws IOException if the input cannot be read or has a line that is not {@code round N}
     */
    int next() throws IOException {
        if (lines == null) {
            return next <= count ? next++ : 0;
        }
        for (String line; (line = lines.readLine()) != null; ) {
            String text = line.strip();
            if (text.isEmpty()) {
                continue;
            }
            int round = text.startsWith(ROUND) ? number(text.substring(ROUND.length()).strip()) : 0;
            if (round < 1) {
                throw new IOException("standard input: \"" + line + "\" (expected: round N, N >= 1)");
            }
            return round;
        }
        return 0;
    }

    private static int number(String text) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
