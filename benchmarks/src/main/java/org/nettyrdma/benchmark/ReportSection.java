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

/**
 * A section of {@link BenchmarkReport} for result lines of its own, mostly of a kind of their own named by
 * the line's first word (the frameworks' benchmarks print {@code framework} lines): it takes those lines
 * and renders after the transport's targets, before the examples. A section that has no line renders
 * nothing.
 */
interface ReportSection {

    /** Returns {@code true} if {@code line} (without surrounding spaces) is this section's. */
    boolean accepts(String line);

    /** Takes one of this section's lines. */
    void add(String line);

    /** Appends the section, its heading first after a blank line, or nothing when it has no line. */
    void render(StringBuilder out);
}
