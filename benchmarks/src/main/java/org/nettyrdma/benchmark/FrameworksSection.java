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
 * The frameworks' benchmarks in the demo's report: each prints one summary line
 * ({@code framework NAME key=median[min-max] ...}, {@code frameworks.FrameworkBenchmark}), listed here
 * as it came, without its first word, under a heading of its own.
 */
final class FrameworksSection implements ReportSection {

    private static final String KIND = "framework";

    private final List<String> lines = new ArrayList<>();

    @Override
    public boolean accepts(String line) {
        return line.startsWith(KIND + ' ');
    }

    @Override
    public void add(String line) {
        lines.add(line.substring(Math.min(line.length(), KIND.length() + 1)));
    }

    @Override
    public void render(StringBuilder out) {
        if (lines.isEmpty()) {
            return;
        }
        out.append("\nFrameworks over RDMA and epoll: median[min-max] of the rounds (docs/grpc.md, docs/vertx.md, "
                + "docs/reactor-netty.md)\n");
        for (String line : lines) {
            out.append("  ").append(line).append('\n');
        }
    }
}
