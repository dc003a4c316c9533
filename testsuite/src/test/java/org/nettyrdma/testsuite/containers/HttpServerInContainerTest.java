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

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import io.netty.channel.EventLoopGroup;
import org.junit.jupiter.api.Test;
import org.nettyrdma.example.Transport;
import org.nettyrdma.example.http.HttpHelloClient;
import org.nettyrdma.testcontainers.RdmaContainer;
import org.nettyrdma.testcontainers.RequiresRdmaDockerHost;
import org.nettyrdma.testkit.RdmaTestEnvironment;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * The HTTP example's server in a container, and this JVM its client over RDMA: every GET is answered
 * 200 with the greeting, as from a server on the same machine.
 */
@RequiresRdmaDockerHost
@Testcontainers
class HttpServerInContainerTest {

    private static final int PORT = 8181;

    @Container
    static final RdmaContainer<?> SERVER = ExampleImage.service(".*http server over .*",
            "run-example", "http.HttpHelloServer", "--transport", "rdma", "--host", ExampleImage.address(),
            "--port", Integer.toString(PORT));

    @Test
    void theTestJvmGetsAnswersFromTheContainer() throws Exception {
        RdmaTestEnvironment.assumeDevice();
        EventLoopGroup group = Transport.RDMA.newEventLoopGroup(1);
        try {
            long nanos = HttpHelloClient.get(group, Transport.RDMA,
                    new InetSocketAddress(ExampleImage.address(), PORT), 50);
            System.out.printf("50 GETs over RDMA from the test JVM to the container: %d ms%n",
                    TimeUnit.NANOSECONDS.toMillis(nanos));
        } finally {
            group.shutdownGracefully().sync();
        }
        assertTrue(SERVER.isRunning(), "the server still runs: " + SERVER.getLogs());
    }
}
