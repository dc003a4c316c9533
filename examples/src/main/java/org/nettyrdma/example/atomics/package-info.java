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
 * A counter and a lock shared by several clients in a server's memory, updated with RDMA atomics
 * (fetch-and-add, compare-and-swap) and, under the lock, a plain word read and written back with RDMA
 * Read and Write: the server's CPU takes no part. RDMA only.
 */
package org.nettyrdma.example.atomics;
