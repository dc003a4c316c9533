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
package org.nettyrdma.testsuite.frameworks.reactor;

import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.netty.channel.Channel;
import io.netty.channel.socket.SocketChannel;
import io.netty.resolver.HostsFileEntriesResolver;
import io.netty.resolver.dns.DnsAddressResolverGroup;
import io.netty.resolver.dns.SingletonDnsServerAddressStreamProvider;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.nettyrdma.channel.rdma.RdmaIoHandlerConfig;
import org.nettyrdma.reactor.RdmaLoopResources;
import org.nettyrdma.testkit.DeviceResources;
import org.nettyrdma.testkit.RdmaTestEnvironment;
import org.nettyrdma.testsuite.frameworks.NameServer;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.transport.NameResolverProvider;

/**
 * {@link RdmaLoopResources} of two event loops for a test class, as an application makes them, and a
 * connection pool of its own for the class's clients; disposed after the class, when no verbs object
 * they made may be left on the device. The device's address has two names: {@link #HOSTS_NAME}, from
 * the hosts entries {@link #resolver} gives a client, and {@link #DNS_NAME}, from a {@link NameServer}
 * that client's resolver queries over UDP from the RDMA event loops.
 */
final class ReactorOnRdma implements BeforeAllCallback, AfterAllCallback {

    /** The device's address by the hosts entries of {@link #resolver}. */
    static final String HOSTS_NAME = "rdma-hosts.test";
    /** The device's address by the name server. */
    static final String DNS_NAME = "rdma-dns.test";
    /** What any wait on Reactor may take under emulation before the test fails. */
    static final Duration TIMEOUT = Duration.ofSeconds(60);

    private DeviceResources.Snapshot before;
    private NameServer nameServer;
    private RdmaLoopResources loops;
    private ConnectionProvider connections;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        RdmaTestEnvironment.assumeDevice();
        before = DeviceResources.snapshot();
        nameServer = NameServer.start(Map.of(DNS_NAME, RdmaTestEnvironment.address()), null);
        loops = RdmaLoopResources.create("test", 2, true, new RdmaIoHandlerConfig());
        connections = ConnectionProvider.create("rdma-test", 8);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        try {
            if (connections != null) {
                connections.disposeLater().block(TIMEOUT);
            }
            if (loops != null) {
                loops.disposeLater(Duration.ZERO, TIMEOUT).block(TIMEOUT);
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

    RdmaLoopResources loops() {
        return loops;
    }

    ConnectionProvider connections() {
        return connections;
    }

    NameServer nameServer() {
        return nameServer;
    }

    /**
     * What a client's {@code resolver(...)} takes for the two names: the hosts entry for
     * {@link #HOSTS_NAME}, and the name server, asked for the names as given, for the others. The
     * resolver's datagram channel comes from the loop resources.
     */
    void resolver(NameResolverProvider.NameResolverSpec spec) {
        InetAddress address = RdmaTestEnvironment.address();
        HostsFileEntriesResolver hosts = (name, types) -> name.equals(HOSTS_NAME) ? address : null;
        spec.hostsFileEntriesResolver(hosts).dnsAddressResolverGroupProvider(builder -> new DnsAddressResolverGroup(
                builder.nameServerProvider(new SingletonDnsServerAddressStreamProvider(nameServer.address()))
                        .searchDomains(List.of()).ndots(1)));
    }

    /** Returns the address of the RDMA interface, as text. */
    static String host() {
        return RdmaTestEnvironment.address().getHostAddress();
    }

    /** Returns the socket channel that carries {@code channel}: itself, or the parent of an HTTP/2 stream's. */
    static Channel socketOf(Channel channel) {
        for (Channel c = channel; c != null; c = c.parent()) {
            if (c instanceof SocketChannel) {
                return c;
            }
        }
        throw new AssertionError("no socket channel under " + channel);
    }
}
