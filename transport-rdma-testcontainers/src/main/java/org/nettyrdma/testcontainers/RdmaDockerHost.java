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
package org.nettyrdma.testcontainers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.testcontainers.DockerClientFactory;

/**
 * Tells whether the Docker host can give containers RDMA, and if not, what to do about it.
 *
 * <p>The check looks at the machine itself when the Docker engine is local (a Unix socket): an RDMA
 * device with an active port, and the RDMA CM and verbs device files that {@link RdmaContainer} hands
 * to its containers. A remote engine's devices cannot be seen from here; there a missing device fails
 * the first container's start, with Docker's own message.
 */
public final class RdmaDockerHost {

    /** What to do when this machine has no RDMA device; the README of the project says more. */
    static final String HOW_TO_ADD_A_DEVICE = "load Soft-RoCE and add a device on the interface the"
            + " containers use (as root: `modprobe rdma_rxe rdma_ucm && rdma link add rxe0 type rxe netdev"
            + " eth0`), or run the tests where a kernel with rdma_rxe runs them (netty-rdma's rxe VM runner:"
            + " docker/rxe-vm/run with RXE_VM_DOCKER=1)";

    private RdmaDockerHost() {
    }

    /** Returns a sentence that says why containers cannot use RDMA here and what to do, or nothing. */
    public static Optional<String> problem() {
        DockerClientFactory docker = DockerClientFactory.instance();
        if (!docker.isDockerAvailable()) {
            return Optional.of("no Docker engine answers: start one (Testcontainers looks at DOCKER_HOST,"
                    + " then /var/run/docker.sock) on a host that has an RDMA device");
        }
        URI engine = docker.getTransportConfig().getDockerHost();
        if (!"unix".equals(engine.getScheme())) {
            return Optional.empty();
        }
        return localProblem(Paths.get("/sys/class/infiniband"), Paths.get(RdmaContainer.DEVICE_DIRECTORY));
    }

    /**
     * Throws {@link IllegalStateException} with the sentence of {@link #problem()} when containers
     * cannot use RDMA here.
     */
    public static void check() {
        Optional<String> problem = problem();
        if (problem.isPresent()) {
            throw new IllegalStateException(problem.get());
        }
    }

    /** The check of {@link #problem()} on this machine's sysfs class directory and device directory. */
    static Optional<String> localProblem(Path classDirectory, Path deviceDirectory) {
        List<String> devices = names(classDirectory);
        if (devices.isEmpty()) {
            return Optional.of("the Docker host has no RDMA device (" + classDirectory + " is empty or"
                    + " missing): " + HOW_TO_ADD_A_DEVICE);
        }
        boolean active = devices.stream().anyMatch(device -> hasActivePort(classDirectory.resolve(device)));
        if (!active) {
            return Optional.of("no port of the Docker host's RDMA devices " + devices + " is ACTIVE: bring up"
                    + " the network interface under the device (`ip link set DEV up`; `rdma link` shows it)");
        }
        boolean verbs = names(deviceDirectory).stream().anyMatch(name -> name.startsWith("uverbs"));
        if (!Files.exists(deviceDirectory.resolve("rdma_cm")) || !verbs) {
            return Optional.of("the Docker host has RDMA devices " + devices + " but no " + deviceDirectory
                    + "/rdma_cm or uverbs* files: load the user-space access modules (`modprobe rdma_ucm"
                    + " ib_uverbs`)");
        }
        return Optional.empty();
    }

    private static boolean hasActivePort(Path device) {
        Path ports = device.resolve("ports");
        return names(ports).stream().anyMatch(port -> {
            try {
                // The kernel writes e.g. "4: ACTIVE".
                return Files.readString(ports.resolve(port).resolve("state"), StandardCharsets.US_ASCII)
                        .contains("ACTIVE");
            } catch (IOException e) {
                return false;
            }
        });
    }

    private static List<String> names(Path directory) {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.map(entry -> entry.getFileName().toString()).sorted().collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + directory, e);
        }
    }
}
