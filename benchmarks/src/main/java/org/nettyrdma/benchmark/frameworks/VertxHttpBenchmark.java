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
package org.nettyrdma.benchmark.frameworks;

/**
 * The hello benchmark of Vert.x 5's HTTP server and client ({@link FrameworkBenchmark}), over
 * {@code RdmaVertx.transport()} and Vert.x's epoll transport; its summary line starts with
 * {@code framework vertx }.
 *
 * <pre>
 * java ... org.nettyrdma.benchmark.frameworks.VertxHttpBenchmark --host 10.77.0.1 --rounds 3
 * </pre>
 */
public final class VertxHttpBenchmark {

    private static final String USAGE = "usage: VertxHttpBenchmark " + FrameworkBenchmark.USAGE_OPTIONS;

    private VertxHttpBenchmark() {
    }

    /** Runs the benchmark and exits: 0 when every round measured, 1 when one failed, 3 when it hung. */
    public static void main(String[] args) {
        FrameworkBenchmark.fromArguments("vertx", VertxHelloRig::start, USAGE, args).main(System.out);
    }
}
