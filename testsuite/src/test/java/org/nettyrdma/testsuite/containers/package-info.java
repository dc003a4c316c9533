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
 * Device tests in containers: the example image's programs and perftest in Docker containers that
 * share the VM's RDMA device, started with Testcontainers and this project's test kit. Run by
 * {@code scripts/device-tests --suite containers}, in a VM with a Docker engine.
 */
package org.nettyrdma.testsuite.containers;
