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
package org.nettyrdma.benchmark;

import java.net.InetSocketAddress;
import java.util.Objects;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import org.nettyrdma.channel.rdma.RdmaFallbackReason;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;

/**
 * One way a client reaches a server in {@link FallbackBenchmark}: the client's bootstrap (its loops,
 * channel class and options), the server's address, and how the client's channel must be carried: by
 * RDMA, or by TCP for a given reason. A client of another transport is not checked; its server's
 * children are ({@link FallbackServers}).
 *
 * @param name the path's name in the report
 * @param carrier how the report says the connection is carried
 * @param client the client's bootstrap, without a handler
 * @param server the address the client connects to
 * @param expected the client's {@link RdmaSocketChannel#fallbackReason()}: {@code null} for RDMA
 */
record FallbackPath(String name, String carrier, Bootstrap client, InetSocketAddress server,
                    RdmaFallbackReason expected) {

    /** Returns a path whose client of this transport must be carried by RDMA. */
    static FallbackPath overRdma(String name, Bootstrap client, InetSocketAddress server) {
        return new FallbackPath(name, carrier(null), client, server, null);
    }

    /** Returns a path whose client of this transport must fall back to TCP for {@code reason}. */
    static FallbackPath fallingBack(String name, Bootstrap client, InetSocketAddress server,
                                    RdmaFallbackReason reason) {
        return new FallbackPath(name, carrier(reason), client, server, reason);
    }

    /** Returns a path whose client is a plain TCP client, carried by TCP as it always is. */
    static FallbackPath overTcp(String name, String carrier, Bootstrap client, InetSocketAddress server) {
        return new FallbackPath(name, carrier, client, server, null);
    }

    /** Returns how a channel of this transport with {@code reason} is carried: {@code RDMA} or {@code TCP (REASON)}. */
    static String carrier(RdmaFallbackReason reason) {
        return reason == null ? "RDMA" : "TCP (" + reason + ")";
    }

    /** Returns the connects of this path, each checked with {@link #check(Channel)}. */
    SequentialConnects connects() {
        return new SequentialConnects(client, server, this::check);
    }

    /**
     * Checks that a client channel of this transport is carried as this path expects.
     *
     * @throws IllegalStateException if it is not
     */
    void check(Channel channel) {
        if (!(channel instanceof RdmaSocketChannel)) {
            return;
        }
        RdmaFallbackReason reason = ((RdmaSocketChannel) channel).fallbackReason();
        if (!Objects.equals(reason, expected)) {
            throw new IllegalStateException("the client is carried by " + carrier(reason) + ", expected " + carrier);
        }
    }
}
