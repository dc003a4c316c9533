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

import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaChannelOption;
import org.nettyrdma.testkit.RdmaTransportFixture;
import org.nettyrdma.testkit.TestSeed;
import org.nettyrdma.testkit.WritePlan;

/**
 * A stream written in random sizes from 1 byte to 4 MiB arrives unchanged and in order: sizes on both
 * sides of the Send threshold (Sends into receive slots, RDMA Writes with immediate into the ring,
 * in every mix one flush can hold), and bursts of hundreds of tiny writes that one flush coalesces.
 * Every byte is checked at its offset; the CRC32 and length are compared at both ends. The seed is
 * printed; {@code RDMA_TEST_SEED} replays a run.
 */
class RdmaRandomWriteTest {

    private static final long TOTAL = 40L << 20;
    private static final int MAX_WRITE = 4 << 20;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    @Test
    void randomWriteSizesArriveAsTheSameStream(TestInfo test) throws Exception {
        long seed = TestSeed.of(test);
        // Both sides' slot size is set, so that WritePlan knows the Send threshold. The client's high
        // water mark lets several large writes queue behind those in flight.
        OneWayTransfer transfer = OneWayTransfer.start(rdma, seed, WritePlan.of(seed, TOTAL, MAX_WRITE),
                server -> server.childOption(RdmaChannelOption.SLOT_SIZE, WritePlan.SLOT_SIZE),
                client -> client.option(RdmaChannelOption.SLOT_SIZE, WritePlan.SLOT_SIZE)
                        .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(4 << 20, 8 << 20)));
        transfer.assertDeliveredAndClose(TOTAL);
    }
}
