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
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.Channel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nettyrdma.channel.rdma.RdmaChannelOption;
import org.nettyrdma.testkit.DeviceResources;
import org.nettyrdma.testkit.EchoHandler;
import org.nettyrdma.testkit.EchoProbe;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * The receive path of a device without shared receive queues, on the test device with
 * {@code -Dorg.nettyrdma.sharedReceiveQueue=never}: each connection posts its receive slots to its
 * queue pair's own receive queue (docs/decisions.md#receive-queue-of-the-queue-pair). Bytes of every
 * size class come back unchanged and in order whether the channels asked for their loop's shared queue
 * or not, no shared receive queue is made, and when both sides are closed nothing is left
 * ({@link RdmaTransportFixture}).
 */
class RdmaQueuePairReceiveTest {

    private static final String PROPERTY = "org.nettyrdma.sharedReceiveQueue";

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    private String before;

    @BeforeEach
    void turnSharedReceiveQueuesOff() {
        before = System.getProperty(PROPERTY);
        System.setProperty(PROPERTY, "never");
    }

    @AfterEach
    void restore() {
        if (before == null) {
            System.clearProperty(PROPERTY);
        } else {
            System.setProperty(PROPERTY, before);
        }
    }

    @ParameterizedTest(name = "SHARED_RECEIVE_QUEUE {0}")
    @ValueSource(booleans = {false, true})
    void echoesEverySizeClassWithoutASharedReceiveQueue(boolean asked) throws Exception {
        int queuesBefore = DeviceResources.kernelSharedReceiveQueues();
        Channel server = rdma.bind(rdma.server().childOption(RdmaChannelOption.SHARED_RECEIVE_QUEUE, asked)
                .childHandler(EchoHandler.INSTANCE));

        EchoProbe probe = new EchoProbe(7, 1, 100, 8175, 8176, 8177, 9000, 65536, 300_000, 3 << 20);
        Channel client = rdma.client().option(RdmaChannelOption.SHARED_RECEIVE_QUEUE, asked).handler(probe)
                .connect(server.localAddress()).sync().channel();
        assertTrue(client.isActive());
        probe.writeAll(client);
        probe.assertEchoed(60);
        assertEquals(queuesBefore, DeviceResources.kernelSharedReceiveQueues(),
                "no shared receive queue was made while both ends were connected");

        client.close().sync();
        server.close().sync();
    }
}
