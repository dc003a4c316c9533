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
package org.nettyrdma.testsuite.frameworks.vertx;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.dns.AddressResolverOptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.nettyrdma.testkit.DeviceResources;
import org.nettyrdma.testkit.RdmaTestEnvironment;
import org.nettyrdma.testsuite.frameworks.NameServer;
import org.nettyrdma.vertx.RdmaVertx;

/**
 * One {@code Vertx} on the RDMA transport for a test class, as an application builds it, with two
 * event loops; closed after the class, when no verbs object it made may be left on the device.
 * Its resolver knows the device's address by two names: {@link #HOSTS_NAME} from the hosts entries
 * in its options, {@link #DNS_NAME} (and {@link #TRUNCATED_NAME}, answered with the TC flag) from a
 * {@link NameServer} it queries over UDP from its RDMA event loops.
 */
final class VertxOnRdma implements BeforeAllCallback, AfterAllCallback {

    /** The device's address by the resolver's hosts entries. */
    static final String HOSTS_NAME = "rdma-hosts.test";
    /** The device's address by the name server. */
    static final String DNS_NAME = "rdma-dns.test";
    /** The device's address by the name server, in an answer flagged as truncated. */
    static final String TRUNCATED_NAME = "rdma-truncated.test";
    /** What any wait on a Vert.x future may take under emulation before the test fails. */
    static final long TIMEOUT_SECONDS = 60;

    private DeviceResources.Snapshot before;
    private NameServer nameServer;
    private Vertx vertx;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        RdmaTestEnvironment.assumeDevice();
        before = DeviceResources.snapshot();
        String address = RdmaTestEnvironment.address().getHostAddress();
        nameServer = NameServer.start(Map.of(DNS_NAME, RdmaTestEnvironment.address(),
                TRUNCATED_NAME, RdmaTestEnvironment.address()), TRUNCATED_NAME);
        AddressResolverOptions resolver = new AddressResolverOptions()
                .setHostsValue(Buffer.buffer(address + ' ' + HOSTS_NAME + '\n'))
                .setServers(List.of("127.0.0.1:" + nameServer.address().getPort()))
                // The names are queried as given, not with the guest's search domains appended.
                .setSearchDomains(List.of())
                .setNdots(1);
        VertxOptions options = new VertxOptions().setEventLoopPoolSize(2).setAddressResolverOptions(resolver)
                // Under emulation a loop's turn can take seconds; Vert.x would log each as blocked.
                .setMaxEventLoopExecuteTime(10).setMaxEventLoopExecuteTimeUnit(TimeUnit.SECONDS);
        vertx = Vertx.builder().with(options).withTransport(RdmaVertx.transport()).build();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        try {
            if (vertx != null) {
                await(vertx.close());
            }
        } finally {
            if (nameServer != null) {
                nameServer.close();
            }
        }
        if (before != null) {
            DeviceResources.assertNoneLeftSince(before);
        }
    }

    Vertx vertx() {
        return vertx;
    }

    NameServer nameServer() {
        return nameServer;
    }

    /**
     * Returns the host the tests' clients and servers name: the address of the RDMA interface as text,
     * or over IPv6 ({@code RDMA_TEST_IPV6=1}) {@link #HOSTS_NAME}, which the resolver maps to it. With
     * an IPv6 literal as its host, Vert.x 5.0.7's HTTP/2 (h2c) and WebSocket clients fail ("Stream
     * reset", handshakes that never complete) on its own TCP transport as well (docs/vertx.md).
     */
    static String host() {
        InetAddress address = RdmaTestEnvironment.address();
        return address instanceof Inet6Address ? HOSTS_NAME : address.getHostAddress();
    }

    /** Waits for {@code future} for at most {@link #TIMEOUT_SECONDS}, and returns its result. */
    static <T> T await(Future<T> future) throws Exception {
        return future.await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }
}
