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
 * Vert.x 5's servers and clients, unchanged, on {@code RdmaVertx.transport()}: HTTP/1.1, h2c,
 * WebSockets, TCP, DNS, datagrams and domain sockets, what Vert.x's allocator costs, and a client that
 * reaches a server on Vert.x's epoll transport over TCP.
 */
package org.nettyrdma.testsuite.frameworks.vertx;
