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
package org.nettyrdma.testsuite.wire;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.nettyrdma.testkit.RdmaTestEnvironment;

/**
 * The other host and the files through which this one talks to {@code scripts/two-hosts}, in the
 * run directory {@code $RDMA_WIRE_RUN_DIR} that both guests share:
 * <ul>
 *   <li>{@code ready}: the peer's services listen ({@code scripts/lib/wire-peer} writes it);</li>
 *   <li>{@code peer-exited}: the peer's VM ended before it was asked to (the script writes its exit status);</li>
 *   <li>{@code power-off}: this host asks the script to power the peer's VM off, as a power cut;</li>
 *   <li>{@code powered-off}: the script says that the peer's VM is gone.</li>
 * </ul>
 * The scripts and this class are the only ones to touch them; every wait for one has a deadline.
 */
final class TwoHosts {

    /** The peer's address on the wire; set by {@code scripts/two-hosts}. */
    static final String PEER_VARIABLE = "RDMA_TEST_PEER_ADDRESS";
    static final String RUN_DIR_VARIABLE = "RDMA_WIRE_RUN_DIR";
    /** Where the peer's echo server listens: the examples' {@code EchoServer} at its default port. */
    static final int ECHO_PORT = 8007;
    /** Where the peer's {@link StreamSinkServer} listens. */
    static final int STREAM_PORT = 8008;

    /** Less than the launcher's default timeout of a lifecycle method (junit-platform.properties). */
    private static final long READY_SECONDS = 100;
    private static final long POLL_MILLIS = 100;

    private TwoHosts() {
    }

    /**
     * Aborts the calling test unless there is a peer host and an RDMA device here, then waits until the
     * peer's services are up.
     */
    static void assumePeer() throws InterruptedException {
        assumeTrue(System.getenv(PEER_VARIABLE) != null, "needs a second host across a wire: run scripts/two-hosts,"
                + " or set " + PEER_VARIABLE + " to the address of a host running scripts/lib/wire-peer");
        RdmaTestEnvironment.assumeDevice();
        Path dir = runDirectory();
        if (dir != null) {
            awaitFile(dir.resolve("ready"), READY_SECONDS, "the peer host did not say that its services listen");
        }
    }

    /** Returns the peer's address on the wire. */
    static InetAddress peerAddress() {
        try {
            return InetAddress.getByName(System.getenv(PEER_VARIABLE));
        } catch (UnknownHostException e) {
            throw new IllegalStateException(PEER_VARIABLE + " is not an address", e);
        }
    }

    static InetSocketAddress peer(int port) {
        return new InetSocketAddress(peerAddress(), port);
    }

    /** Returns the run directory shared with {@code scripts/two-hosts}, or {@code null} without one. */
    static Path runDirectory() {
        String dir = System.getenv(RUN_DIR_VARIABLE);
        return dir == null ? null : Path.of(dir);
    }

    /** Asks {@code scripts/two-hosts} to power the peer's VM off and waits until it is gone. */
    static void powerOffPeer(long timeoutSeconds) throws IOException, InterruptedException {
        Path dir = runDirectory();
        Files.writeString(dir.resolve("power-off"), "power-off\n");
        awaitFile(dir.resolve("powered-off"), timeoutSeconds, "the peer host was not powered off");
    }

    /** Waits for {@code file}; fails early if the peer's VM ended on its own. */
    private static void awaitFile(Path file, long timeoutSeconds, String failure) throws InterruptedException {
        Path exited = file.resolveSibling("peer-exited");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (!Files.exists(file)) {
            if (Files.exists(exited)) {
                fail(failure + ": its VM ended (" + read(exited) + "); its output is in scripts/two-hosts' output");
            }
            if (System.nanoTime() - deadline > 0) {
                fail(failure + " within " + timeoutSeconds + " s (no " + file + ")");
            }
            Thread.sleep(POLL_MILLIS);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file).strip();
        } catch (IOException e) {
            return "unreadable: " + e;
        }
    }
}
