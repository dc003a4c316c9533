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
package org.nettyrdma.testsuite.transport;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ConnectException;
import java.util.concurrent.TimeUnit;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * A server pipeline that fails to take an accepted channel: the peer's connect is refused at once, not
 * left unanswered until its connect timeout, and the accepted channel's CM id is freed (the fixture
 * counts CM ids after the test).
 */
class RdmaAcceptTest {

    /** Far longer than the test waits: a connect that is not refused would still be waiting. */
    private static final int CONNECT_TIMEOUT_MILLIS = 120_000;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(1);

    /** Not {@code @Sharable}: {@code ServerBootstrap} can add it to one child only. */
    private static final class OneChildOnly extends ChannelInboundHandlerAdapter {
    }

    @Test
    void aChildTheServerPipelineFailsToRegisterIsRefusedAtOnce() throws Exception {
        Channel server = rdma.bind(rdma.server().childHandler(new OneChildOnly()));
        Channel first = null;
        try {
            first = rdma.client().handler(new ChannelInboundHandlerAdapter())
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, CONNECT_TIMEOUT_MILLIS)
                    .connect(server.localAddress()).sync().channel();

            // The second child cannot take the handler: ServerBootstrap's channelRead throws before it
            // registers the child.
            ChannelFuture second = rdma.client().handler(new ChannelInboundHandlerAdapter())
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, CONNECT_TIMEOUT_MILLIS)
                    .connect(server.localAddress());
            assertTrue(second.await(30, TimeUnit.SECONDS), "the second connect ended well before its timeout");
            assertFalse(second.isSuccess(), "a connect whose accepted channel was never registered");
            Throwable cause = second.cause();
            assertTrue(cause instanceof ConnectException && cause.getMessage().contains("connection refused"),
                    () -> "refused: " + cause);
            assertTrue(server.isActive(), "the listener is still up");
            assertTrue(first.isActive(), "the first connection is still up");
        } finally {
            if (first != null) {
                first.close().sync();
            }
            server.close().sync();
        }
    }
}
