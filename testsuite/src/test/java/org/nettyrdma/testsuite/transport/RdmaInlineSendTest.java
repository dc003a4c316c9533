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
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nettyrdma.channel.rdma.RdmaChannelMetrics;
import org.nettyrdma.channel.rdma.RdmaChannelOption;
import org.nettyrdma.channel.rdma.RdmaIoHandlerConfig;
import org.nettyrdma.channel.rdma.RdmaLoopMetrics;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.testkit.EchoHandler;
import org.nettyrdma.testkit.EchoProbe;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * Sends posted inline: the channel posts Sends inline up to the size asked for (none when 0 is
 * asked for), and messages just under, at and just over the inline limit, each its own Send, echo back
 * unchanged, as do the control messages and {@code HELLO}s around them.
 */
class RdmaInlineSendTest {

    /** The transport's {@code HEADER_SIZE}: an inline Send carries it in front of the payload. */
    private static final int HEADER = 16;

    /** Loops that never poll, so that every completion of the echo wakes them. */
    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2, new RdmaIoHandlerConfig().setAdaptivePollMicros(0));

    @ParameterizedTest(name = "MAX_INLINE_DATA={0}")
    @ValueSource(ints = {0, 128, 256})
    void messagesAroundTheInlineLimitEchoUnchanged(int maxInline) throws Exception {
        Channel server = rdma.bind(rdma.server().childHandler(EchoHandler.INSTANCE)
                .childOption(RdmaChannelOption.MAX_INLINE_DATA, maxInline));
        int limit = Math.max(maxInline - HEADER, 1);
        // Each piece its own flush, so that each is a Send of its own size.
        EchoProbe probe = new EchoProbe(maxInline, 1, limit - 1, limit, limit + 1, 2 * limit + 3);
        RdmaSocketChannel client = (RdmaSocketChannel) rdma.client()
                .option(RdmaChannelOption.MAX_INLINE_DATA, maxInline)
                .handler(probe)
                .connect(server.localAddress()).sync().channel();
        // rxe grants up to 512 bytes; what was asked for bounds it, 0 included.
        assertEquals(maxInline, client.metrics().maxInlineData(), "largest inline Send");
        probe.writeAll(client);
        probe.assertEchoed(60);
        // Every piece is smaller than a slot: one Send each, copied, and the echo comes back by Send too.
        RdmaChannelMetrics metrics = client.metrics();
        assertEquals(probe.nonEmptyPieces(), metrics.sends(), () -> "one Send per flush: " + metrics);
        assertEquals(probe.totalBytes(), metrics.sendBytes(), () -> "bytes sent: " + metrics);
        assertEquals(probe.totalBytes(), metrics.copiedBytes(), () -> "Sends copy: " + metrics);
        assertEquals(0, metrics.rdmaWrites(), () -> "no RDMA Write: " + metrics);
        assertEquals(probe.totalBytes(), metrics.receivedBytes(), () -> "bytes echoed: " + metrics);
        assertTrue(metrics.receivedSends() > 0 && metrics.controlMessages() > 0, () -> "HELLO counted: " + metrics);
        // The client's loop carries this test's channels only (the fixture's group is per test): it
        // dispatched a completion for each of the client's receives and for its last Send at least.
        RdmaLoopMetrics loop = client.loopMetrics();
        assertTrue(loop.completions() > metrics.receivedSends(), () -> "receives and sends completed: " + loop);
        assertTrue(loop.wakeUps() > 0 && loop.arms() > 0, () -> "the loop waited and was woken: " + loop);
        assertEquals(0, loop.busyPolls(), () -> "no polling asked for: " + loop);

        client.close().sync();
        server.close().sync();
    }
}
