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
import java.util.Arrays;
import java.util.List;

/**
 * A table of a text report: each column as wide as its widest cell, two spaces between columns, the
 * columns named at construction right-aligned (sizes, counts) and the others left-aligned (names, and
 * figures with their spread, whose medians then start in one column). Not thread-safe.
 */
final class TextTable {

    private final List<String[]> rows = new ArrayList<>();
    private final boolean[] rightAligned;

    /** Makes a table whose first row is {@code headings}; the columns {@code rightAligned} align right. */
    TextTable(String[] headings, int... rightAligned) {
        this.rightAligned = new boolean[headings.length];
        for (int column : rightAligned) {
            this.rightAligned[column] = true;
        }
        rows.add(headings.clone());
    }

    /** Adds a row of as many cells as there are headings. */
    void add(String... cells) {
        if (cells.length != rightAligned.length) {
            throw new IllegalArgumentException("cells: " + Arrays.toString(cells) + " (expected: "
                    + rightAligned.length + ")");
        }
        rows.add(cells.clone());
    }

    /** Appends the table, each line indented by two spaces, without trailing spaces. */
    void appendTo(StringBuilder out) {
        int[] widths = new int[rightAligned.length];
        for (String[] row : rows) {
            for (int column = 0; column < row.length; column++) {
                widths[column] = Math.max(widths[column], row[column].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder(" ");
            for (int column = 0; column < row.length; column++) {
                String padding = " ".repeat(widths[column] - row[column].length());
                line.append("  ").append(rightAligned[column] ? padding + row[column] : row[column] + padding);
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
    }
}
