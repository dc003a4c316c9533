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
 * The hello benchmark of Reactor Netty 1.3's HTTP server and client ({@link FrameworkBenchmark}),
 * over {@code RdmaLoopResources} and Reactor's own loop resources on epoll; its summary line starts
 * with {@code framework reactor-netty }.
 *
 * <pre>
 * java ... org.nettyrdma.benchmark.frameworks.ReactorHttpBenchmark --host 10.77.0.1 --rounds 3
 * </pre>
 */
public final class ReactorHttpBenchmark {

    private static final String USAGE = "usage: ReactorHttpBenchmark " + FrameworkBenchmark.USAGE_OPTIONS;

    private ReactorHttpBenchmark() {
    }

    /** Runs the benchmark and exits: 0 when every round measured, 1 when one failed, 3 when it hung. */
    public static void main(String[] args) {
        FrameworkBenchmark.fromArguments("reactor-netty", ReactorHelloRig::start, USAGE, args).main(System.out);
    }
}
