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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import org.junit.jupiter.api.Test;

/**
 * The options' defaults. The water marks: bytes count against them until the device completes them, so
 * they follow {@code SO_SNDBUF} (a quarter of it, the low mark 32 KiB below) until the user chooses
 * marks, and then stay where the user put them. Ring data copied, the credit wait bounded, one
 * address's share of registered memory.
 */
class RdmaSocketChannelConfigTest {

    @Test
    void waterMarksFollowTheSendBufferByDefault() {
        RdmaSocketChannelConfig config = new RdmaSocketChannel().config();
        assertMarks(224 << 10, 256 << 10, config);

        config.setOption(ChannelOption.SO_SNDBUF, 4 << 20);
        assertMarks((1 << 20) - (32 << 10), 1 << 20, config);

        // The smallest send buffer: Netty's own default marks.
        config.setOption(ChannelOption.SO_SNDBUF, 1);
        assertMarks(32 << 10, 64 << 10, config);
    }

    @Test
    void ringDataIsCopiedUnlessTheUserChoosesInPlace() {
        RdmaSocketChannelConfig config = new RdmaSocketChannel().config();
        assertEquals(Boolean.FALSE, config.getOption(RdmaChannelOption.RECEIVE_IN_PLACE));
        assertTrue(config.setOption(RdmaChannelOption.RECEIVE_IN_PLACE, true));
        assertTrue(config.isReceiveInPlace());
        assertEquals(Boolean.TRUE, config.getOptions().get(RdmaChannelOption.RECEIVE_IN_PLACE));
    }

    @Test
    void writesWaitForCreditAMinuteByDefault() {
        RdmaSocketChannelConfig config = new RdmaSocketChannel().config();
        assertEquals(60_000, config.getOption(RdmaChannelOption.CREDIT_TIMEOUT_MILLIS));
        assertTrue(config.setOption(RdmaChannelOption.CREDIT_TIMEOUT_MILLIS, 0));
        assertEquals(0, config.getCreditTimeoutMillis(), "0: no bound");
        assertEquals(0, config.getOptions().get(RdmaChannelOption.CREDIT_TIMEOUT_MILLIS));
    }

    @Test
    void oneAddressMayHoldAQuarterOfTheRegisteredMemoryLimitByDefault() {
        RdmaServerSocketChannelConfig config = new RdmaServerSocketChannel().config();
        assertEquals(RdmaMemoryMetrics.snapshot().limitBytes() / 2,
                config.getOption(RdmaChannelOption.MAX_REGISTERED_MEMORY_PER_ADDRESS));
        assertTrue(config.setOption(RdmaChannelOption.MAX_REGISTERED_MEMORY_PER_ADDRESS, 1L << 20));
        assertEquals(1L << 20, config.getMaxRegisteredMemoryPerAddress());
    }

    @Test
    void waterMarksTheUserChoseStay() {
        RdmaSocketChannelConfig config = new RdmaSocketChannel().config();
        config.setOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(8 << 10, 16 << 10));
        config.setOption(ChannelOption.SO_SNDBUF, 4 << 20);
        assertMarks(8 << 10, 16 << 10, config);
    }

    @Test
    @SuppressWarnings("deprecation")
    void aHighMarkSetAloneAlsoStays() {
        RdmaSocketChannelConfig config = new RdmaSocketChannel().config();
        config.setWriteBufferHighWaterMark(2 << 20);
        config.setSendBufferSize(128 << 10);
        assertMarks(224 << 10, 2 << 20, config);
    }

    private static void assertMarks(int low, int high, RdmaSocketChannelConfig config) {
        assertEquals(low, config.getWriteBufferLowWaterMark(), "low water mark");
        assertEquals(high, config.getWriteBufferHighWaterMark(), "high water mark");
    }
}
