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

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaChannelOption;
import org.nettyrdma.testkit.EchoHandler;
import org.nettyrdma.testkit.ExceptionRecorder;
import org.nettyrdma.testkit.RdmaTransportFixture;
import org.nettyrdma.testkit.StreamDigest;
import org.nettyrdma.testkit.StreamReader;
import org.nettyrdma.testkit.StreamWriter;
import org.nettyrdma.testkit.TestSeed;
import org.nettyrdma.testkit.WritePlan;

/**
 * 32 connections at once on a group of two {@code RdmaIoHandler} loops that serves both the server
 * and the clients: each client writes its own stream, the server echoes it, and every client gets
 * exactly its own stream back. So many queue pairs share each loop's completion queue and CM event
 * channel without a completion or event reaching the wrong connection.
 */
class RdmaManyConnectionsTest {

    private static final int CONNECTIONS = 32;
    private static final long BYTES_PER_CONNECTION = 768 << 10;
    private static final int MAX_WRITE = 256 << 10;
    private static final int HELLO_TIMEOUT_MILLIS = 60_000;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    @Test
    void everyConnectionGetsItsOwnStreamBack(TestInfo test) throws Exception {
        long seed = TestSeed.of(test);
        ExceptionRecorder serverErrors = new ExceptionRecorder();
        Set<EventLoop> serverLoops = ConcurrentHashMap.newKeySet();
        // The clients connect while the first of them already stream through the same two loops;
        // under emulation a HELLO then takes more than the default 10 s to be sent and polled.
        // This test is about routing; RdmaAdmissionTest covers the HELLO bound.
        Channel server = rdma.bind(rdma.server()
                .childOption(RdmaChannelOption.HELLO_TIMEOUT_MILLIS, HELLO_TIMEOUT_MILLIS)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        serverLoops.add(ch.eventLoop());
                        ch.pipeline().addLast(EchoHandler.INSTANCE, serverErrors);
                    }
                }));

        ExceptionRecorder clientErrors = new ExceptionRecorder();
        List<StreamWriter> writers = new ArrayList<>();
        List<StreamReader> readers = new ArrayList<>();
        List<ChannelFuture> connects = new ArrayList<>();
        for (int i = 0; i < CONNECTIONS; i++) {
            long streamSeed = seed + i;
            StreamWriter writer = new StreamWriter(streamSeed, WritePlan.of(streamSeed, BYTES_PER_CONNECTION, MAX_WRITE));
            StreamReader reader = new StreamReader(streamSeed);
            writers.add(writer);
            readers.add(reader);
            // The client's wait for the server's HELLO is its connect timeout: as long as the server's.
            connects.add(rdma.client().option(ChannelOption.CONNECT_TIMEOUT_MILLIS, HELLO_TIMEOUT_MILLIS)
                    .handler(RdmaTransportFixture.pipeline(writer, reader, clientErrors))
                    .connect(server.localAddress()));
        }
        List<Channel> clients = new ArrayList<>();
        for (ChannelFuture connect : connects) {
            clients.add(connect.sync().channel());
        }

        for (int i = 0; i < CONNECTIONS; i++) {
            StreamDigest sent = writers.get(i).done().get(100, TimeUnit.SECONDS);
            StreamDigest echoed = readers.get(i).digestAt(sent.length()).get(60, TimeUnit.SECONDS);
            assertEquals(BYTES_PER_CONNECTION, sent.length(), "connection " + i + ", seed " + seed);
            assertEquals(sent, echoed, "the echo of connection " + i + ", seed " + seed);
        }
        assertEquals(2, serverLoops.size(), "the accepted channels spread over both loops");
        assertEquals(List.of(), clientErrors.exceptions(), "client exceptions");
        assertEquals(List.of(), serverErrors.exceptions(), "server exceptions");

        for (Channel client : clients) {
            client.close().sync();
        }
        server.close().sync();
    }
}
