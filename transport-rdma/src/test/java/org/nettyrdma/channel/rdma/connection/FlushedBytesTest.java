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
package org.nettyrdma.channel.rdma.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The outbound buffer as a flush sees it, without a device: staged bytes stay in the buffer while in
 * flight, a later flush skips them, and a completion takes out exactly what it delivered.
 */
class FlushedBytesTest {

    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final ChannelOutboundBuffer in = channel.unsafe().outboundBuffer();
    private final FlushedBytes flushed = new FlushedBytes();
    private final ByteBuf staged = Unpooled.buffer(64);

    @AfterEach
    void close() {
        staged.release();
        channel.finishAndReleaseAll();
    }

    private ChannelPromise write(String text) {
        ChannelPromise promise = channel.newPromise();
        ByteBuf buf = Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII);
        in.addMessage(buf, buf.readableBytes(), promise);
        return promise;
    }

    /** Stages up to {@code length} bytes of the current message, as one request, and returns its mark. */
    private long stage(int length) throws IOException {
        int copied = flushed.copyCurrent(staged, staged.writerIndex(), Math.min(length, flushed.currentLength()));
        staged.writerIndex(staged.writerIndex() + copied);
        flushed.posted();
        return flushed.mark();
    }

    @Test
    void bytesLeaveTheBufferWhenTheirRequestCompletes() throws Exception {
        ChannelPromise first = write("hello");
        ChannelPromise second = write("world!");
        in.addFlush();
        flushed.load(in);
        long firstMark = stage(5);
        long secondMark = stage(3);
        flushed.clear();
        assertTrue(flushed.hasInFlight());
        assertEquals(5, firstMark);
        assertEquals(8, secondMark);

        // The next flush starts past what is in flight: the rest of the second message.
        flushed.load(in);
        assertTrue(flushed.hasRemaining());
        assertEquals(3, flushed.currentLength());
        long thirdMark = stage(3);
        flushed.clear();
        assertEquals("helloworld!", staged.toString(StandardCharsets.US_ASCII));

        flushed.delivered(in, firstMark);
        assertTrue(first.isSuccess());
        assertFalse(second.isDone());
        flushed.delivered(in, secondMark);
        assertFalse(second.isDone(), "part of it is still in flight");
        flushed.delivered(in, thirdMark);
        assertTrue(second.isSuccess());
        assertFalse(flushed.hasInFlight());
        assertTrue(in.isEmpty());
    }

    @Test
    void aCompletionCoveredByALaterOneTakesNothingTwice() throws Exception {
        ChannelPromise promise = write("abcdef");
        in.addFlush();
        flushed.load(in);
        long early = stage(2);
        long late = stage(4);
        flushed.clear();
        flushed.delivered(in, late);
        assertTrue(promise.isSuccess());
        flushed.delivered(in, early);
        assertFalse(flushed.hasInFlight());
        assertEquals(6, flushed.mark());
    }

    @Test
    void withoutABufferTheCountsStillMove() throws Exception {
        write("abc");
        in.addFlush();
        flushed.load(in);
        long mark = stage(3);
        flushed.clear();
        flushed.delivered(null, mark);
        assertFalse(flushed.hasInFlight(), "a closed channel's completions still count");
    }

    @Test
    void emptyWritesAtTheHeadCompleteAtOnce() {
        ChannelPromise empty = channel.newPromise();
        in.addMessage(Unpooled.EMPTY_BUFFER, 0, empty);
        ChannelPromise full = write("x");
        in.addFlush();
        flushed.removeSent(in, 0);
        assertTrue(empty.isSuccess());
        assertFalse(full.isDone());
        assertFalse(flushed.isRemoving());
    }

    @Test
    void remainingAtMostCountsEveryUnstagedMessage() throws Exception {
        write("hello");
        write("world!");
        in.addFlush();
        flushed.load(in);
        assertTrue(flushed.remainingAtMost(11), "both messages fit inline together");
        assertFalse(flushed.remainingAtMost(10));
        stage(5);
        assertTrue(flushed.remainingAtMost(6), "only what is not staged counts");
        flushed.clear();
    }
}
