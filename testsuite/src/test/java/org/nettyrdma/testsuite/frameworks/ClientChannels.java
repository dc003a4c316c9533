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
package org.nettyrdma.testsuite.frameworks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.netty.channel.Channel;
import org.nettyrdma.channel.rdma.RdmaFallbackReason;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;

/**
 * The socket channels a framework's client connected on, each taken where that framework lets a
 * user see it, so that a test can say which carrier the framework's traffic ran on and why. Channels
 * may be added from any thread.
 */
public final class ClientChannels {

    private final Set<Channel> channels = ConcurrentHashMap.newKeySet();

    /** Adds {@code channel}, a socket channel the client connected on. */
    public void add(Channel channel) {
        channels.add(channel);
    }

    /**
     * Asserts that the client connected, and only on channels of this transport that TCP carries for
     * {@code reason}.
     */
    public void assertCarriedByTcp(RdmaFallbackReason reason) {
        assertFalse(channels.isEmpty(), "the client connected on no channel");
        for (Channel channel : channels) {
            RdmaSocketChannel socket = assertInstanceOf(RdmaSocketChannel.class, channel, "the client's channel");
            assertEquals(reason, socket.fallbackReason(), "why TCP carries " + socket);
        }
    }
}
