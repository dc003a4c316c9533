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
 * One figure of {@link BenchmarkReport}: the median of a reading over the rounds of one run, or the ratio of
 * two such medians, with its spread (the lowest and highest reading; for a ratio, the lowest and highest
 * ratio of two readings of one round) and how many rounds measured it. A figure measured once, or outside
 * the rounds (perftest's), has no spread. Nothing measured is {@link #NONE}.
 *
 * @param value the median, or the ratio of two medians; NaN when nothing was measured
 * @param low the lowest reading, or NaN without a spread
 * @param high the highest reading, or NaN without a spread
 * @param rounds how many rounds measured it: 0 for a figure from outside the rounds
 */
record Figure(double value, double low, double high, int rounds) {

    /** Nothing measured. */
    static final Figure NONE = new Figure(Double.NaN, Double.NaN, Double.NaN, 0);

    /** Returns a figure read once, outside the rounds, as perftest's are. */
    static Figure single(double value) {
        return new Figure(value, Double.NaN, Double.NaN, 0);
    }

    /** Returns {@code true} if the figure has a value. */
    boolean isMeasured() {
        return !Double.isNaN(value) && !Double.isInfinite(value);
    }

    /**
     * Returns {@code median (low-high)} with {@code decimals} decimals, only the median where there is no
     * spread (one reading), or {@code -} when nothing was measured.
     */
    String format(int decimals) {
        if (!isMeasured()) {
            return "-";
        }
        String number = "%." + decimals + 'f';
        if (Double.isNaN(low) || Double.isNaN(high) || rounds <= 1) {
            return String.format(Locale.ROOT, number, value);
        }
        return String.format(Locale.ROOT, number + " (" + number + '-' + number + ')', value, low, high);
    }
}
