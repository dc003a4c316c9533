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

import java.util.Arrays;
import java.util.Locale;

/**
 * The median of a figure over the rounds of one run, with its lowest and highest reading: a difference
 * smaller than the spread is no difference (docs/benchmark.md, how a change is judged). Rounds that
 * did not measure the figure are left out; with none left the spread is empty.
 */
public final class Spread {

    private final double median;
    private final double min;
    private final double max;
    private final int rounds;

    private Spread(double median, double min, double max, int rounds) {
        this.median = median;
        this.min = min;
        this.max = max;
        this.rounds = rounds;
    }

    /** Returns the spread of {@code readings}, leaving out {@code NaN}s (rounds without the figure). */
    public static Spread of(double... readings) {
        double[] measured = Arrays.stream(readings).filter(reading -> !Double.isNaN(reading)).sorted().toArray();
        int n = measured.length;
        if (n == 0) {
            return new Spread(Double.NaN, Double.NaN, Double.NaN, 0);
        }
        // An even count takes the mean of the middle two, as a median does.
        double median = n % 2 == 1 ? measured[n / 2] : (measured[n / 2 - 1] + measured[n / 2]) / 2;
        return new Spread(median, measured[0], measured[n - 1], n);
    }

    /** Returns the median reading, {@code NaN} when empty. */
    public double median() {
        return median;
    }

    /** Returns the lowest reading, {@code NaN} when empty. */
    public double min() {
        return min;
    }

    /** Returns the highest reading, {@code NaN} when empty. */
    public double max() {
        return max;
    }

    /** Returns how many rounds measured the figure. */
    public int rounds() {
        return rounds;
    }

    /** Returns {@code true} if no round measured the figure. */
    public boolean isEmpty() {
        return rounds == 0;
    }

    /** Returns {@code median [min-max]} with {@code decimals} decimals, or {@code -} when empty. */
    public String format(int decimals) {
        if (isEmpty()) {
            return "-";
        }
        String number = "%." + decimals + 'f';
        return String.format(Locale.ROOT, number + " [" + number + '-' + number + ']', median, min, max);
    }
}
