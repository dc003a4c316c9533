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
import java.util.concurrent.TimeUnit;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.testkit.ExceptionRecorder;
import org.nettyrdma.testkit.RdmaTransportFixture;
import org.nettyrdma.testkit.StreamDigest;
import org.nettyrdma.testkit.StreamReader;
import org.nettyrdma.testkit.StreamWriter;
import org.nettyrdma.testkit.TestSeed;
import org.nettyrdma.testkit.WritePlan;

/**
 * Both ends write a stream at full speed at the same time. Each side's data and the credits it
 * returns for the other's share one queue pair each way, so a credit book that only moves with
 * data, or a side that waits for its own writes before it reads, would deadlock here; both streams
 * must arrive complete and unchanged.
 */
class RdmaFullDuplexTest {

    private static final long TOTAL = 12L << 20;
    private static final int MAX_WRITE = 1 << 20;
    private static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(1 << 20, 4 << 20);

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    @Test
    void bothDirectionsAtOnceDeliverBothStreams(TestInfo test) throws Exception {
        long seed = TestSeed.of(test);
        long clientSeed = seed;
        long serverSeed = ~seed;
        StreamWriter serverWriter = new StreamWriter(serverSeed, WritePlan.of(serverSeed, TOTAL, MAX_WRITE));
        StreamReader serverReader = new StreamReader(clientSeed);
        ExceptionRecorder serverErrors = new ExceptionRecorder();
        Channel server = rdma.bind(rdma.server()
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK)
                .childHandler(RdmaTransportFixture.pipeline(serverWriter, serverReader, serverErrors)));

        StreamWriter clientWriter = new StreamWriter(clientSeed, WritePlan.of(clientSeed, TOTAL, MAX_WRITE));
        StreamReader clientReader = new StreamReader(serverSeed);
        ExceptionRecorder clientErrors = new ExceptionRecorder();
        Channel client = rdma.client()
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK)
                .handler(RdmaTransportFixture.pipeline(clientWriter, clientReader, clientErrors))
                .connect(server.localAddress()).sync().channel();

        StreamDigest clientSent = clientWriter.done().get(100, TimeUnit.SECONDS);
        StreamDigest serverSent = serverWriter.done().get(100, TimeUnit.SECONDS);
        assertEquals(clientSent, serverReader.digestAt(clientSent.length()).get(30, TimeUnit.SECONDS),
                "client to server, seed " + seed);
        assertEquals(serverSent, clientReader.digestAt(serverSent.length()).get(30, TimeUnit.SECONDS),
                "server to client, seed " + seed);
        assertEquals(TOTAL, clientSent.length());
        assertEquals(TOTAL, serverSent.length());
        assertEquals(List.of(), clientErrors.exceptions(), "client exceptions");
        assertEquals(List.of(), serverErrors.exceptions(), "server exceptions");

        client.close().sync();
        server.close().sync();
    }
}
