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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sentences of the Docker host check, on directories laid out as sysfs and /dev lay them out. */
class RdmaDockerHostTest {

    @TempDir
    Path root;

    @Test
    void noDeviceSaysHowToAddOne() {
        Optional<String> problem = RdmaDockerHost.localProblem(root.resolve("class"), root.resolve("dev"));
        assertTrue(problem.orElseThrow().contains("no RDMA device"), problem::get);
        assertTrue(problem.get().contains("rdma link add"), problem::get);
    }

    @Test
    void aDeviceWithoutAnActivePortSaysSo() throws IOException {
        port("rxe0", "1", "1: DOWN");
        Optional<String> problem = RdmaDockerHost.localProblem(root.resolve("class"), root.resolve("dev"));
        assertTrue(problem.orElseThrow().contains("[rxe0]"), problem::get);
        assertTrue(problem.get().contains("ACTIVE"), problem::get);
    }

    @Test
    void missingDeviceFilesNameTheModules() throws IOException {
        port("rxe0", "1", "4: ACTIVE");
        Files.createDirectories(root.resolve("dev"));
        Files.createFile(root.resolve("dev/uverbs0"));
        Optional<String> problem = RdmaDockerHost.localProblem(root.resolve("class"), root.resolve("dev"));
        assertTrue(problem.orElseThrow().contains("rdma_ucm"), problem::get);
    }

    @Test
    void anActiveDeviceWithItsFilesIsNoProblem() throws IOException {
        port("mlx5_0", "1", "1: DOWN");
        port("rxe0", "1", "4: ACTIVE");
        Files.createDirectories(root.resolve("dev"));
        Files.createFile(root.resolve("dev/rdma_cm"));
        Files.createFile(root.resolve("dev/uverbs1"));
        assertEquals(Optional.empty(), RdmaDockerHost.localProblem(root.resolve("class"), root.resolve("dev")));
    }

    @Test
    void containersGetRdmaCmAndEveryVerbsDevice() throws IOException {
        Path dev = Files.createDirectories(root.resolve("dev"));
        Files.createFile(dev.resolve("rdma_cm"));
        Files.createFile(dev.resolve("uverbs1"));
        Files.createFile(dev.resolve("uverbs0"));
        assertEquals(List.of(dev + "/rdma_cm", dev + "/uverbs0", dev + "/uverbs1"),
                RdmaContainer.localDevices(dev));
    }

    @Test
    void withoutLocalDevicesContainersGetTheUsualPair() {
        Path dev = root.resolve("absent");
        assertEquals(List.of(dev + "/rdma_cm", dev + "/uverbs0"), RdmaContainer.localDevices(dev));
    }

    private void port(String device, String port, String state) throws IOException {
        Path ports = Files.createDirectories(root.resolve("class").resolve(device).resolve("ports").resolve(port));
        Files.writeString(ports.resolve("state"), state + "\n");
    }
}
