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
package org.nettyrdma.channel.rdma.connection;

import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.memory.DeviceVerbs;
import org.nettyrdma.channel.rdma.memory.RdmaDevice;

/**
 * Decides whether a connection opens a receive ring to its peer, that is whether the peer may RDMA
 * Write into this process at all (docs/security.md). A ring is opened only through a memory window
 * bound to the connection's queue pair, so only on a device where such a window confines the peer
 * ({@link DeviceVerbs#windowsConfinePeers()}); elsewhere, rxe among them, the connection announces no
 * ring and takes everything by Send, and no key of this process ever reaches a peer. A device without
 * type-2 windows or without Writes with immediate (iWARP) cannot carry a ring at all
 * ({@link DeviceVerbs#hostsRings()}): there no connection opens one, whatever is asked.
 *
 * <p>The system property {@value #PROPERTY} overrides the choice for every device that can carry a
 * ring: {@code auto} (the default) as above, {@code never} for no ring anywhere, {@code always} for a
 * ring even on a device where any peer can invalidate windows, which is safe only if every peer of the
 * process is trusted. It is read at each connection, so a test can change it between connections.
 */
final class RingPolicy {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RingPolicy.class);

    /** The system property that overrides the choice: {@code auto}, {@code always} or {@code never}. */
    static final String PROPERTY = "org.nettyrdma.ring";
    private static final String AUTO = "auto";

    /** Devices whose choice was logged: once per device and process is enough. */
    private static final Set<String> LOGGED = ConcurrentHashMap.newKeySet();

    private RingPolicy() {
        // static methods only
    }

    /**
     * Returns {@code true} if a connection on {@code device} opens a ring to its peer; logs the choice
     * for a device whose windows do not confine a peer, once per device (a warning if it opens one).
     *
     * @throws IllegalArgumentException if {@value #PROPERTY} has a value other than the three above
     */
    static boolean opensRing(RdmaDevice device) {
        String mode = System.getProperty(PROPERTY, AUTO);
        DeviceVerbs verbs = device.verbs();
        boolean opens = opensRing(mode, verbs.windowsConfinePeers(), verbs.hostsRings());
        if (!verbs.hostsRings()) {
            if (!AUTO.equals(mode.trim().toLowerCase(Locale.ROOT)) && LOGGED.add(device.name())) {
                logger.info("-D{}={}: the RDMA device {} cannot carry a ring ({}): its connections open none",
                        PROPERTY, mode, device.name(), verbs);
            }
        } else if (!verbs.windowsConfinePeers() && LOGGED.add(device.name())) {
            if (opens) {
                logger.warn("-D{}={}: connections on the RDMA device {} open their ring through a memory window, "
                        + "which on this device does not confine a peer: any peer can invalidate it and, on rxe, "
                        + "crash the kernel (docs/security.md)", PROPERTY, mode, device.name());
            } else {
                // Debug, not info: on rxe this is every process's normal case, not news to its user.
                logger.debug("the RDMA device {} (vendor id 0x{}) has no memory windows that confine a peer: its "
                        + "connections open no ring and take data by Send only (docs/security.md)", device.name(),
                        Integer.toHexString(device.vendorId()));
            }
        }
        return opens;
    }

    /**
     * Returns {@code true} if a connection opens a ring under {@code mode} (the value of
     * {@value #PROPERTY}) on a device whose windows do or do not confine a peer.
     *
     * @throws IllegalArgumentException if {@code mode} is not {@code auto}, {@code always} or {@code never}
     */
    static boolean opensRing(String mode, boolean windowsConfinePeers) {
        return opensRing(mode, windowsConfinePeers, true);
    }

    /**
     * Returns {@code true} if a connection opens a ring under {@code mode} on a device whose windows do
     * or do not confine a peer and which can or cannot carry a ring at all: one that cannot opens none,
     * since its ring would need a verb it lacks.
     *
     * @throws IllegalArgumentException if {@code mode} is not {@code auto}, {@code always} or {@code never}
     */
    static boolean opensRing(String mode, boolean windowsConfinePeers, boolean hostsRings) {
        switch (mode.trim().toLowerCase(Locale.ROOT)) {
            case AUTO:
                return windowsConfinePeers && hostsRings;
            case "always":
                return hostsRings;
            case "never":
                return false;
            default:
                throw new IllegalArgumentException("-D" + PROPERTY + '=' + mode + " (expected: auto, always or never)");
        }
    }
}
