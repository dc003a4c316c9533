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
 * A benchmark of one Netty pipeline over RDMA, NIO and epoll: throughput, round-trip latency, CPU time,
 * allocation and registered memory; its floor, the same stream and round trip in plain Java on raw
 * verbs; and the cost of keeping connections out of each other's memory. Measurement code, not an
 * example: the floor reaches below the transport's public API.
 */
package org.nettyrdma.benchmark;
