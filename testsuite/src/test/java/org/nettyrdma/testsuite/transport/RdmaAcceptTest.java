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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ConnectException;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.testkit.ExceptionRecorder;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * What a client sees of a server that takes its connection badly. A server pipeline that fails to take
 * an accepted channel: the peer's connect is refused at once, not left unanswered until its connect
 * timeout, and the accepted channel's CM id is freed (the fixture counts CM ids after the test). A
 * server that accepts and closes at once: the connect succeeds and the channel then ends, as over TCP.
 */
class RdmaAcceptTest {

    /**
     * Connects to a server that closes each child as it becomes active. The client's CM reports the
     * close as {@code DISCONNECTED}, or as {@code REJECTED} where the server's CM had not yet seen the
     * connection established when its id went; which one is the kernel's timing, not the test's.
     */
    private static final int CLOSED_AT_ONCE = 20;

    /** Far longer than the test waits: a connect that is not refused would still be waiting. */
    private static final int CONNECT_TIMEOUT_MILLIS = 120_000;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(1);

    /** Not {@code @Sharable}: {@code ServerBootstrap} can add it to one child only. */
    private static final class OneChildOnly extends ChannelInboundHandlerAdapter {
    }

    /** Closes the channel as soon as it is active. */
    @ChannelHandler.Sharable
    private static final class CloseWhenActive extends ChannelInboundHandlerAdapter {
        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            ctx.close();
        }
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

    /**
     * The server answered the client's {@code HELLO} before it closed, so the {@code HELLO} is in the
     * client's completion queue ahead of whatever the CM reports of the close: the connect succeeds,
     * and the channel then closes without an exception, whichever event the client's CM gives.
     */
    @Test
    void aServerThatClosesAtOnceLetsTheConnectSucceedThenEnds() throws Exception {
        Channel server = rdma.bind(rdma.server().childHandler(new CloseWhenActive()));
        try {
            for (int i = 0; i < CLOSED_AT_ONCE; i++) {
                ExceptionRecorder errors = new ExceptionRecorder();
                ChannelFuture connect = rdma.client().handler(errors)
                        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, CONNECT_TIMEOUT_MILLIS)
                        .connect(server.localAddress());
                assertTrue(connect.await(30, TimeUnit.SECONDS), "connect " + i + " ended");
                int attempt = i;
                assertTrue(connect.isSuccess(), () -> "connect " + attempt + " to a server that accepted it: "
                        + connect.cause());
                assertTrue(connect.channel().closeFuture().await(30, TimeUnit.SECONDS),
                        "connection " + i + " closed after the server's close");
                assertEquals(List.of(), errors.exceptions(), "exceptions of connection " + i);
            }
            assertTrue(server.isActive(), "the listener is still up");
        } finally {
            server.close().sync();
        }
    }
}
