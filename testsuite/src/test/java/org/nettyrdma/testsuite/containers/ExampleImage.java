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
package org.nettyrdma.testsuite.containers;

import java.time.Duration;

import org.nettyrdma.testcontainers.RdmaContainer;
import org.nettyrdma.testkit.RdmaTestEnvironment;
import org.testcontainers.containers.startupcheck.OneShotStartupCheckStrategy;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.ImagePullPolicy;

/**
 * The image the container tests run ({@code docker/image}: Debian's rdma-core, perftest, a Java 17
 * runtime and the project's examples, built in the VM from packages) and the containers made of it.
 * No image is ever pulled: the tests use the one the run built, or fail.
 */
final class ExampleImage {

    /** The image {@code docker/image/build-image} tags; {@code RDMA_TEST_IMAGE} names another. */
    static final String NAME = System.getenv().getOrDefault("RDMA_TEST_IMAGE", "netty-rdma/rxe-examples:latest");

    private static final ImagePullPolicy NEVER_PULL = image -> false;

    private ExampleImage() {
    }

    /** The address of the Docker host's RDMA interface, which containers on its network share. */
    static String address() {
        return RdmaTestEnvironment.address().getHostAddress();
    }

    /** A long-running container, started once its log has a line matching {@code readyLine}. */
    static RdmaContainer<?> service(String readyLine, String... command) {
        return new RdmaContainer<>(NAME)
                .withImagePullPolicy(NEVER_PULL)
                .withCommand(command)
                .waitingFor(Wait.forLogMessage(readyLine + "\\n", 1).withStartupTimeout(Duration.ofMinutes(2)));
    }

    /** A container that runs {@code command} to its end; {@code start()} fails unless it exits with 0. */
    static RdmaContainer<?> oneShot(String... command) {
        return new RdmaContainer<>(NAME)
                .withImagePullPolicy(NEVER_PULL)
                .withCommand(command)
                .withStartupCheckStrategy(new OneShotStartupCheckStrategy().withTimeout(Duration.ofMinutes(4)));
    }
}
