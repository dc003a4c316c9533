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

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The readings of one figure (a field of a {@code bench} line, such as {@code MBps}) of one program at one
 * size, round by round, and what {@link BenchmarkReport} makes of them: their median with its spread, and
 * ratios of medians. The rounds of one run are interleaved, so two readings of one round were taken minutes
 * apart at most, under the same load of the shared host: a ratio's spread pairs them. Immutable.
 */
final class Readings {

    /** No reading. */
    static final Readings NONE = new Readings(new TreeMap<>());

    /** Round, then reading; only rounds that measured the figure. */
    private final SortedMap<Integer, Double> byRound;

    private Readings(SortedMap<Integer, Double> byRound) {
        this.byRound = Collections.unmodifiableSortedMap(byRound);
    }

    /** Returns the readings of {@code byRound}, leaving out the NaNs (rounds without the figure). */
    static Readings of(Map<Integer, Double> byRound) {
        SortedMap<Integer, Double> measured = new TreeMap<>();
        byRound.forEach((round, reading) -> {
            if (!Double.isNaN(reading)) {
                measured.put(round, reading);
            }
        });
        return new Readings(measured);
    }

    /** Returns how many rounds measured the figure. */
    int rounds() {
        return byRound.size();
    }

    /** Returns the readings by round. */
    SortedMap<Integer, Double> byRound() {
        return byRound;
    }

    /** Returns the median over the rounds with the lowest and highest reading. */
    Figure figure() {
        Spread spread = spread();
        return spread.isEmpty() ? Figure.NONE : new Figure(spread.median(), spread.min(), spread.max(), spread.rounds());
    }

    /**
     * Returns this figure's median over {@code denominator}'s, with the lowest and highest ratio of two
     * readings of the same round; without such a pair, the ratio alone.
     */
    Figure over(Readings denominator) {
        double ratio = spread().median() / denominator.spread().median();
        if (Double.isNaN(ratio)) {
            return Figure.NONE;
        }
        double low = Double.NaN;
        double high = Double.NaN;
        int pairs = 0;
        for (Map.Entry<Integer, Double> reading : byRound.entrySet()) {
            Double other = denominator.byRound.get(reading.getKey());
            if (other != null) {
                double roundRatio = reading.getValue() / other;
                low = pairs == 0 ? roundRatio : Math.min(low, roundRatio);
                high = pairs == 0 ? roundRatio : Math.max(high, roundRatio);
                pairs++;
            }
        }
        return new Figure(ratio, low, high, pairs);
    }

    /** Returns the median over {@code denominator}, a figure read outside the rounds, with the spread scaled. */
    Figure over(double denominator) {
        Figure figure = figure();
        if (!figure.isMeasured() || Double.isNaN(denominator)) {
            return Figure.NONE;
        }
        return new Figure(figure.value() / denominator, figure.low() / denominator, figure.high() / denominator,
                figure.rounds());
    }

    private Spread spread() {
        return Spread.of(byRound.values().stream().mapToDouble(Double::doubleValue).toArray());
    }
}
