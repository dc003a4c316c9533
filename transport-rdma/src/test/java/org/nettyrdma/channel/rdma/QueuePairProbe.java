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

import java.util.concurrent.TimeUnit;

import org.nettyrdma.channel.rdma.connection.RdmaConnection;
import org.nettyrdma.channel.rdma.internal.RdmaNative;

/**
 * Asks the device what it made of a channel's queue pair, for device tests outside this package that
 * check what an option did to the connection. Reads on the channel's event loop, where the connection
 * lives.
 */
public final class QueuePairProbe {

    private QueuePairProbe() {
    }

    /**
     * Returns the traffic class in the address vector of {@code channel}'s queue pair: what its packets
     * carry ({@code IP_TOS}), or -1 without a GRH.
     *
     * @throws IllegalStateException if the channel has no connection
     */
    public static int trafficClass(RdmaSocketChannel channel) throws Exception {
        return channel.eventLoop().submit(() -> {
            RdmaConnection connection = channel.connection;
            if (connection == null) {
                throw new IllegalStateException(channel + " has no connection");
            }
            return RdmaNative.queryQpTrafficClass(connection.queuePair());
        }).get(30, TimeUnit.SECONDS);
    }
}
