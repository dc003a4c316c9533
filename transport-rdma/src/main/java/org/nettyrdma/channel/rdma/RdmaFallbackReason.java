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
package org.nettyrdma.channel.rdma;

/**
 * Why an {@link RdmaSocketChannel} is carried by TCP instead of RDMA
 * ({@link RdmaSocketChannel#fallbackReason()}, {@link RdmaChannelOption#TCP_FALLBACK}).
 */
public enum RdmaFallbackReason {
    /** This process has no RDMA: no device, no RDMA CM, or no native library ({@link Rdma#unavailabilityCause()}). */
    NO_LOCAL_DEVICE("no RDMA device in this process"),
    /** No RDMA device reaches the peer's address (a loopback address, an address of a non-RDMA interface). */
    NO_ROUTE("no RDMA route to the address"),
    /** The peer's host has no RDMA listener at that port (a plain TCP server). */
    NO_RDMA_LISTENER("no RDMA listener at the address"),
    /**
     * RDMA CM got no answer: {@code UNREACHABLE}, or nothing within half of {@code CONNECT_TIMEOUT_MILLIS}.
     * The peer may still answer TCP where RoCE's packets are dropped on the way.
     */
    RDMA_UNREACHABLE("no answer over RDMA CM"),
    /** The peer declined RDMA for want of registered memory, and serves TCP. */
    PEER_DECLINED("the peer declined RDMA"),
    /** The RDMA device went away before the connect completed. */
    DEVICE_REMOVED("the RDMA device was removed"),
    /** An accepted channel: the peer connected over TCP. */
    PEER_USED_TCP("the peer connected over TCP");

    private final String description;

    RdmaFallbackReason(String description) {
        this.description = description;
    }

    /** Returns what the reason means, in a few words, for logs and error messages. */
    public String description() {
        return description;
    }
}
