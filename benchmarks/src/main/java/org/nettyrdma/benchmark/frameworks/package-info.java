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

/**
 * Benchmarks of RPC and web frameworks over RDMA and over epoll side by side: the framework's own echo
 * or hello service, run as a user of the framework would run it, with only the transport switched:
 * gRPC-java ({@link org.nettyrdma.benchmark.frameworks.GrpcEchoBenchmark}), Vert.x 5
 * ({@link org.nettyrdma.benchmark.frameworks.VertxHttpBenchmark}) and Reactor Netty 1.3
 * ({@link org.nettyrdma.benchmark.frameworks.ReactorHttpBenchmark}).
 */
package org.nettyrdma.benchmark.frameworks;
