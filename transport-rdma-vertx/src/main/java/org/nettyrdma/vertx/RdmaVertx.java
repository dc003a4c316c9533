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
package org.nettyrdma.vertx;

import io.netty.util.internal.ObjectUtil;
import io.vertx.core.transport.Transport;
import org.nettyrdma.channel.rdma.Rdma;
import org.nettyrdma.channel.rdma.RdmaIoHandlerConfig;

/**
 * The RDMA transport for Vert.x 5:
 * <pre>{@code
 * Vertx vertx = Vertx.builder().withTransport(RdmaVertx.transport()).build();
 * }</pre>
 * Vert.x's event loops are then RDMA event loops ({@code RdmaIoHandler}), and its TCP, HTTP/1.1,
 * HTTP/2 and WebSocket servers and clients run over RDMA: they bind to and connect to the address of
 * an RDMA interface. What RDMA does not carry runs on the same loops through Netty's epoll channels:
 * Vert.x's UDP (its DNS resolver and its datagram sockets), over IP, and domain sockets
 * (docs/vertx.md).
 *
 * <p>Where RDMA cannot be used, building the {@code Vertx} fails with the reason instead of running on
 * NIO, which is what Vert.x does with an unavailable transport; {@link Transport#available()} and
 * {@link Transport#unavailabilityCause()} say so beforehand without throwing.
 */
public final class RdmaVertx {

    /** The transport's name, as {@link Transport#name()} reports it. */
    public static final String NAME = "rdma";

    private RdmaVertx() {
    }

    /** Returns the RDMA transport with the event loops' default tunables. */
    public static Transport transport() {
        return transport(new RdmaIoHandlerConfig());
    }

    /**
     * Returns the RDMA transport whose event loops have the tunables of {@code loopConfig} (polling,
     * completion queue sizes), copied now.
     */
    public static Transport transport(RdmaIoHandlerConfig loopConfig) {
        ObjectUtil.checkNotNull(loopConfig, "loopConfig");
        return new Selection(new RdmaVertxTransport(loopConfig));
    }

    /**
     * Returns the error Vert.x gets instead of its event loops when RDMA cannot be used here, with
     * {@code cause} ({@code Rdma.unavailabilityCause()}) as its cause.
     */
    static IllegalStateException unavailable(Throwable cause) {
        return new IllegalStateException("the RDMA transport is unavailable: " + cause.getMessage()
                + " (Vert.x would run on NIO instead; check RdmaVertx.transport().available() to choose "
                + "another transport)", cause);
    }

    /** What {@code VertxBuilder.withTransport} takes: the name, availability and the SPI implementation. */
    private static final class Selection implements Transport {
        private final RdmaVertxTransport implementation;

        Selection(RdmaVertxTransport implementation) {
            this.implementation = implementation;
        }

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public boolean available() {
            return Rdma.isAvailable();
        }

        @Override
        public Throwable unavailabilityCause() {
            return Rdma.unavailabilityCause();
        }

        @Override
        public io.vertx.core.spi.transport.Transport implementation() {
            return implementation;
        }

        @Override
        public String toString() {
            return "RdmaVertx.transport(" + (available() ? "available" : "unavailable") + ')';
        }
    }
}
