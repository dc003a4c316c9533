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
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.model.Capability;
import com.github.dockerjava.api.model.Device;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Ulimit;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * A container that can use the Docker host's RDMA devices, as a process on that host can: it gets the
 * RDMA CM and verbs device files, {@code CAP_IPC_LOCK} and an unlimited memlock limit (registering
 * memory pins it), and the host's network.
 *
 * <p>Host networking is not a convenience: Soft-RoCE (rxe) sends its packets from a socket in the
 * host's initial network namespace, so a container in a network namespace of its own reaches no RDMA
 * peer on these kernels. Containers therefore talk to each other, and to the test JVM, over the
 * address of the host's RDMA interface, and no port is mapped: a wait strategy must look at the
 * container's log, not at a port.
 *
 * <pre>
 * &#64;Container
 * static RdmaContainer&lt;?&gt; server = new RdmaContainer&lt;&gt;(DockerImageName.parse("my/app:1"))
 *         .withCommand("my-server", "--bind", rdmaAddress)
 *         .waitingFor(Wait.forLogMessage(".*listening.*\\n", 1));
 * </pre>
 *
 * @param <SELF> the concrete type, as in {@link GenericContainer}
 */
public class RdmaContainer<SELF extends RdmaContainer<SELF>> extends GenericContainer<SELF> {

    /** Where Linux puts the RDMA device files. */
    public static final String DEVICE_DIRECTORY = "/dev/infiniband";

    private final List<String> devices = new ArrayList<>();

    /** A container of {@code image} with the RDMA devices this host has (see {@link #withRdmaDevices}). */
    public RdmaContainer(DockerImageName image) {
        super(image);
        devices.addAll(localDevices(Paths.get(DEVICE_DIRECTORY)));
        withNetworkMode("host");
        withCreateContainerCmdModifier(this::grantRdma);
    }

    /** As {@link #RdmaContainer(DockerImageName)}, with the image named as Docker names it. */
    public RdmaContainer(String image) {
        this(DockerImageName.parse(image));
    }

    /**
     * Replaces the device files the container gets, as paths on the Docker host. By default it gets
     * {@code rdma_cm} and every {@code uverbs*} device in {@value #DEVICE_DIRECTORY} when the Docker
     * host is this machine, or {@code rdma_cm} and {@code uverbs0} when this machine has none (a
     * remote Docker host).
     */
    public SELF withRdmaDevices(String... paths) {
        devices.clear();
        devices.addAll(List.of(paths));
        return self();
    }

    /** The device files the container gets, as paths on the Docker host. */
    public List<String> rdmaDevices() {
        return List.copyOf(devices);
    }

    private void grantRdma(CreateContainerCmd command) {
        HostConfig hostConfig = command.getHostConfig();
        if (hostConfig == null) {
            hostConfig = HostConfig.newHostConfig();
            command.withHostConfig(hostConfig);
        }
        List<Device> granted = new ArrayList<>();
        for (String path : devices) {
            granted.add(new Device("rwm", path, path));
        }
        hostConfig.withDevices(granted)
                .withCapAdd(Capability.IPC_LOCK)
                .withUlimits(List.of(new Ulimit("memlock", -1L, -1L)));
    }

    /** {@code rdma_cm} and the verbs devices in {@code directory}, or the usual pair when it has none. */
    static List<String> localDevices(Path directory) {
        List<String> found = new ArrayList<>();
        if (Files.isDirectory(directory)) {
            try (Stream<Path> files = Files.list(directory)) {
                files.map(file -> file.getFileName().toString())
                        .filter(name -> name.startsWith("uverbs"))
                        .sorted()
                        .forEach(name -> found.add(directory.resolve(name).toString()));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot list " + directory, e);
            }
        }
        if (found.isEmpty()) {
            found.add(directory.resolve("uverbs0").toString());
        }
        found.add(0, directory.resolve("rdma_cm").toString());
        return found;
    }
}
