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

import java.nio.channels.ClosedChannelException;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.testkit.Await;
import org.nettyrdma.testkit.RdmaTransportFixture;
import org.nettyrdma.testkit.StreamReader;
import org.nettyrdma.testkit.StreamWriter;
import org.nettyrdma.testkit.TestSeed;
import org.nettyrdma.testkit.WritePlan;

/**
 * A connection closed by either end while a large transfer is in flight ends as a close, not as an
 * error: no exception reaches either pipeline, every write promise completes (the writes not
 * delivered fail with {@link ClosedChannelException}, none hangs), both channels end closed, what the
 * server read is an unchanged prefix of the stream, and no verbs object or buffer is left.
 */
class RdmaCloseMidTransferTest {

    private static final long TOTAL = 32L << 20;
    private static final int MAX_WRITE = 1 << 20;
    /** The server has read this much when the test closes one end. */
    private static final long CLOSE_AFTER = 1 << 20;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    @Test
    void clientClosesWhileWriting(TestInfo test) throws Exception {
        OneWayTransfer transfer = startTransfer(TestSeed.of(test));
        long confirmedAtClose = transfer.writer.confirmedBytes();
        transfer.client.close().await(30, TimeUnit.SECONDS);
        assertEndedAsAClose(transfer);
        // What the client's device delivered before it closed, the server's pipeline still reads.
        assertTrue(transfer.reader.receivedBytes() >= confirmedAtClose, () -> "the server read "
                + transfer.reader.receivedBytes() + " bytes, but " + confirmedAtClose
                + " were confirmed delivered before the close");
    }

    @Test
    void serverClosesTheChildWhileTheClientWrites(TestInfo test) throws Exception {
        OneWayTransfer transfer = startTransfer(TestSeed.of(test));
        transfer.child.close().await(30, TimeUnit.SECONDS);
        assertEndedAsAClose(transfer);
    }

    private OneWayTransfer startTransfer(long seed) throws Exception {
        // A high water mark, so that many writes are queued and in flight when the close comes.
        OneWayTransfer transfer = OneWayTransfer.start(rdma, seed, WritePlan.of(seed, TOTAL, MAX_WRITE),
                server -> server,
                client -> client.option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(4 << 20, 8 << 20)));
        Await.until(() -> transfer.reader.receivedBytes() >= CLOSE_AFTER, 60,
                () -> "the server read only " + transfer.reader.receivedBytes() + " bytes");
        return transfer;
    }

    private static void assertEndedAsAClose(OneWayTransfer transfer) throws Exception {
        StreamWriter writer = transfer.writer;
        StreamReader reader = transfer.reader;
        assertTrue(transfer.client.closeFuture().await(30, TimeUnit.SECONDS), "the client channel closed");
        assertTrue(transfer.child.closeFuture().await(30, TimeUnit.SECONDS), "the server's child channel closed");
        Await.until(() -> writer.pendingWrites() == 0, 30,
                () -> writer.pendingWrites() + " write promises never completed");
        assertTrue(writer.queuedBytes() < TOTAL, "the close came before the writer was done");
        for (Throwable failure : writer.writeFailures()) {
            assertTrue(failure instanceof ClosedChannelException, () -> "a write failed with " + failure);
        }
        assertFalse(writer.writeFailures().isEmpty(), "writes pending at the close failed");
        assertEquals(List.of(), transfer.clientErrors.exceptions(), "exceptions in the client's pipeline");
        assertEquals(List.of(), transfer.serverErrors.exceptions(), "exceptions in the server's pipeline");
        assertFalse(reader.errors().isCompletedExceptionally(), () -> "the server read a wrong byte, seed "
                + transfer.seed + ": " + reader.errors().handle((d, e) -> e).join());
        assertTrue(reader.receivedBytes() <= writer.queuedBytes(), "the server read more than was written");
        transfer.server.close().sync();
    }
}
