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

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import org.nettyrdma.testkit.ExceptionRecorder;
import org.nettyrdma.testkit.RdmaTransportFixture;
import org.nettyrdma.testkit.StreamDigest;
import org.nettyrdma.testkit.StreamReader;
import org.nettyrdma.testkit.StreamWriter;
import org.nettyrdma.testkit.TestStream;
import org.nettyrdma.testkit.WritePlan;

/**
 * A server and one client on a test's group, the client writing a {@link TestStream} by a
 * {@link WritePlan} and the server's one child reading it; both pipelines end in an
 * {@link ExceptionRecorder}. The caller adds options to either bootstrap.
 */
final class OneWayTransfer {

    final long seed;
    final Channel server;
    final Channel client;
    final Channel child;
    final StreamWriter writer;
    final StreamReader reader;
    final ExceptionRecorder clientErrors = new ExceptionRecorder();
    final ExceptionRecorder serverErrors = new ExceptionRecorder();

    private OneWayTransfer(RdmaTransportFixture rdma, long seed, WritePlan plan, UnaryOperator<ServerBootstrap> server,
                           UnaryOperator<Bootstrap> client) throws Exception {
        this.seed = seed;
        this.reader = new StreamReader(seed);
        this.writer = new StreamWriter(seed, plan);
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        this.server = rdma.bind(server.apply(rdma.server()).childHandler(new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(reader, serverErrors);
                accepted.complete(ch);
            }
        }));
        this.client = client.apply(rdma.client()).handler(RdmaTransportFixture.pipeline(writer, clientErrors))
                .connect(this.server.localAddress()).sync().channel();
        this.child = accepted.get(10, TimeUnit.SECONDS);
    }

    /** Connects and starts writing at once; returns when both ends have their channel. */
    static OneWayTransfer start(RdmaTransportFixture rdma, long seed, WritePlan plan,
                                UnaryOperator<ServerBootstrap> server, UnaryOperator<Bootstrap> client) throws Exception {
        return new OneWayTransfer(rdma, seed, plan, server, client);
    }

    /**
     * Waits for the writer to finish and asserts that the server read {@code total} bytes, the same
     * stream, and that no exception reached either pipeline; then closes both ends.
     */
    void assertDeliveredAndClose(long total) throws Exception {
        StreamDigest sent = writer.done().get(100, TimeUnit.SECONDS);
        StreamDigest received = reader.digestAt(sent.length()).get(30, TimeUnit.SECONDS);
        assertEquals(total, sent.length(), "bytes written, seed " + seed);
        assertEquals(sent, received, "the stream as the server read it, seed " + seed);
        assertEquals(List.of(), clientErrors.exceptions(), "client exceptions");
        assertEquals(List.of(), serverErrors.exceptions(), "server exceptions");
        client.close().sync();
        server.close().sync();
    }
}
