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

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.FileRegion;
import io.netty.util.AbstractReferenceCounted;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Staging a file region into registered memory in windows, as a flush does, without a device. */
class TrackedFileRegionTest {

    @TempDir
    Path dir;

    @Test
    void stagesTheRegionWindowByWindowFromItsOffset() throws IOException {
        byte[] content = new byte[100_000];
        new Random(7).nextBytes(content);
        File file = write(content);
        int offset = 1234;
        int count = 70_000;
        TrackedFileRegion region = new TrackedFileRegion(
                new DefaultFileRegion(new RandomAccessFile(file, "r").getChannel(), offset, count));
        ByteBuf sendBuffer = Unpooled.directBuffer(count);
        ByteBufTarget target = new ByteBufTarget();
        int staged = 0;
        try {
            while (!region.isStaged()) {
                int window = Math.min(9_000, (int) region.unstaged());
                long units = region.stage(target.reset(sendBuffer, staged, window));
                assertEquals(window, target.written());
                assertEquals(window, units);
                staged += window;
            }
            assertEquals(count, staged);
            byte[] sent = new byte[count];
            sendBuffer.getBytes(0, sent);
            assertArrayEquals(Arrays.copyOfRange(content, offset, offset + count), sent);
            assertEquals(count, region.uncompleted());
            region.complete(count);
            assertEquals(0, region.uncompleted());
        } finally {
            sendBuffer.release();
            region.release();
        }
    }

    @Test
    void aRegionLongerThanItsFileFailsWithIOException() throws IOException {
        File file = write(new byte[1000]);
        TrackedFileRegion region = new TrackedFileRegion(
                new DefaultFileRegion(new RandomAccessFile(file, "r").getChannel(), 0, 2000));
        ByteBuf sendBuffer = Unpooled.directBuffer(2000);
        try {
            ByteBufTarget target = new ByteBufTarget();
            assertEquals(1000, region.stage(target.reset(sendBuffer, 0, 1000)));
            assertThrows(IOException.class, () -> region.stage(target.reset(sendBuffer, 1000, 1000)));
        } finally {
            sendBuffer.release();
            region.release();
        }
    }

    @Test
    void stopsCallingARegionOnceItReportsItselfTransferred() throws IOException {
        // A framing region may count more progress than the bytes it writes: one byte for 16 units.
        FramingRegion framing = new FramingRegion();
        TrackedFileRegion region = new TrackedFileRegion(framing);
        ByteBuf sendBuffer = Unpooled.directBuffer(64);
        try {
            ByteBufTarget target = new ByteBufTarget();
            assertEquals(16, region.stage(target.reset(sendBuffer, 0, 16)));
            assertEquals(1, target.written());
            assertTrue(region.isStaged());
            assertEquals(1, framing.calls);
        } finally {
            sendBuffer.release();
        }
    }

    @Test
    void aRegionThatMakesNoProgressFails() {
        FramingRegion stuck = new FramingRegion();
        stuck.stuck = true;
        TrackedFileRegion region = new TrackedFileRegion(stuck);
        ByteBuf sendBuffer = Unpooled.directBuffer(64);
        try {
            IOException e = assertThrows(IOException.class,
                    () -> region.stage(new ByteBufTarget().reset(sendBuffer, 0, 16)));
            assertTrue(e.getMessage().contains("no progress"), e.getMessage());
            assertFalse(region.isStaged());
        } finally {
            sendBuffer.release();
        }
    }

    private File write(byte[] content) throws IOException {
        Path file = Files.createTempFile(dir, "region", ".bin");
        Files.write(file, content);
        return file.toFile();
    }

    /** Writes one byte and reports all 16 units transferred, or nothing when stuck. */
    private static final class FramingRegion extends AbstractReferenceCounted implements FileRegion {
        int calls;
        boolean stuck;
        private long transferred;

        @Override
        public long position() {
            return 0;
        }

        @Override
        public long count() {
            return 16;
        }

        @Override
        public long transferred() {
            return transferred;
        }

        @Override
        @Deprecated
        public long transfered() {
            return transferred;
        }

        @Override
        public long transferTo(WritableByteChannel target, long position) throws IOException {
            calls++;
            if (stuck) {
                return 0;
            }
            int written = target.write(ByteBuffer.wrap(new byte[] {0x42}));
            transferred = count();
            return written;
        }

        @Override
        protected void deallocate() {
        }

        @Override
        public FileRegion retain() {
            super.retain();
            return this;
        }

        @Override
        public FileRegion retain(int increment) {
            super.retain(increment);
            return this;
        }

        @Override
        public FileRegion touch() {
            return this;
        }

        @Override
        public FileRegion touch(Object hint) {
            return this;
        }
    }
}
