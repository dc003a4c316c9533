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

import org.HdrHistogram.Histogram;
import org.nettyrdma.example.Transport;

/**
 * A framework's HTTP server that answers {@code GET /hello} with {@link #BODY}, and a client of it,
 * each on event loops of its own, over one transport: what {@link FrameworkBenchmark} measures.
 * Used by one thread; every wait is bounded.
 */
interface HelloRig extends AutoCloseable {

    /** The path the server answers. */
    String PATH = "/hello";
    /** What the server answers. */
    String BODY = "hello";

    /** Makes the rig of one framework on a transport. */
    @FunctionalInterface
    interface Factory {
        /**
         * Starts a server on {@code host} and a client of it, over {@code transport}.
         *
         * @throws IllegalArgumentException if the framework has no binding for {@code transport}
         */
        HelloRig start(Transport transport, String host) throws Exception;
    }

    /**
     * Sends requests one after another on one keep-alive connection for {@code nanos} and returns their
     * round trips, in nanoseconds.
     *
     * @throws Exception if a request failed or was answered with anything but {@link #BODY}
     */
    Histogram roundTrips(long nanos) throws Exception;

    /**
     * Keeps one request in flight on each of {@code connections} connections for {@code nanos} and
     * returns how many were answered.
     *
     * @throws Exception if a request failed or was answered with anything but {@link #BODY}
     */
    long requests(int connections, long nanos) throws Exception;

    @Override
    void close() throws Exception;
}
