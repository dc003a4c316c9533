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

import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.testkit.RdmaTransportFixture;
import org.nettyrdma.testkit.StreamReader;

/**
 * A server whose accepted channels read one stream with a {@link StreamReader}, and a client of it
 * that writes the stream: for tests that look at how the client's writes travel.
 */
record StreamPair(Channel server, RdmaSocketChannel client, BlockingQueue<RdmaSocketChannel> children) {

    /** Binds a server with {@code options} whose children read with {@code reader}, and connects a client. */
    static StreamPair connect(RdmaTransportFixture rdma, StreamReader reader, UnaryOperator<ServerBootstrap> options)
            throws InterruptedException {
        BlockingQueue<RdmaSocketChannel> children = new LinkedBlockingQueue<>();
        Channel server = rdma.bind(options.apply(rdma.server()).childHandler(new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                children.add((RdmaSocketChannel) ch);
                ch.pipeline().addLast(reader);
            }
        }));
        RdmaSocketChannel client = (RdmaSocketChannel) rdma.client().handler(new ChannelInboundHandlerAdapter())
                .connect(server.localAddress()).sync().channel();
        return new StreamPair(server, client, children);
    }

    /** Returns the next child the server accepted, waiting up to 10 s for it. */
    RdmaSocketChannel child() throws InterruptedException {
        RdmaSocketChannel child = children.poll(10, TimeUnit.SECONDS);
        assertNotNull(child, "the server accepted the client");
        return child;
    }

    /** Closes the client, then the server. */
    void close() throws InterruptedException {
        client.close().sync();
        server.close().sync();
    }
}
