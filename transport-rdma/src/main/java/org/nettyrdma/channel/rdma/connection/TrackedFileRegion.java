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

import java.io.IOException;
import java.nio.channels.WritableByteChannel;

import io.netty.channel.FileRegion;

/**
 * A {@link FileRegion} during its stay in an RDMA channel's outbound buffer, with the progress the
 * transport needs: the region's bytes are copied into registered memory ("staged") as credits allow,
 * and leave the outbound buffer only when the work requests that carry them complete.
 *
 * <p>Progress is counted in the region's own units, {@link #transferred()}, as its contract asks:
 * the transport stops calling {@code transferTo} once {@code transferred() >= count()}, and a region
 * may report more progress than the bytes it wrote (a framing region does), so what travels on the
 * wire is counted apart from these units. Reference counting is the wrapped region's.
 *
 * <p>Not thread-safe: used on the channel's event loop only.
 */
public final class TrackedFileRegion implements FileRegion {

    private final FileRegion region;
    /** The region's progress when it was written: it is sent from there. */
    private final long start;
    /** Units whose work requests completed. */
    private long completed;

    /** Tracks {@code region}, counting its progress from what it had transferred on entering the outbound buffer. */
    public TrackedFileRegion(FileRegion region) {
        this.region = region;
        this.start = region.transferred();
    }

    /** Returns the units this channel sends of the region. */
    long units() {
        return Math.max(0, region.count() - start);
    }

    /** Returns the units not staged yet. */
    long unstaged() {
        return Math.max(0, region.count() - region.transferred());
    }

    /** Returns the units whose work requests have not completed. */
    long uncompleted() {
        return units() - completed;
    }

    /** Returns {@code true} once every unit was staged. */
    boolean isStaged() {
        return region.transferred() >= region.count();
    }

    /** Accounts for completed work requests that carried {@code units} of this region. */
    void complete(long units) {
        completed += units;
    }

    /**
     * Copies the region's next bytes into {@code target} until it is full or the region is staged.
     *
     * @return the units of progress
     * @throws IOException from the region (a file shorter than the region's count), or if the region
     *                     makes no progress or reports progress without writing a byte
     */
    long stage(ByteBufTarget target) throws IOException {
        long before = region.transferred();
        while (target.writable() > 0 && region.transferred() < region.count()) {
            long position = region.transferred();
            int written = target.written();
            region.transferTo(target, position);
            if (region.transferred() == position && target.written() == written) {
                throw new IOException("FileRegion " + region + " made no progress at " + position + " of "
                        + region.count() + " bytes");
            }
        }
        if (target.written() == 0) {
            throw new IOException("FileRegion " + region + " reported progress without writing a byte");
        }
        return region.transferred() - before;
    }

    @Override
    public long position() {
        return region.position();
    }

    @Override
    @Deprecated
    public long transfered() {
        return region.transferred();
    }

    @Override
    public long transferred() {
        return region.transferred();
    }

    @Override
    public long count() {
        return region.count();
    }

    @Override
    public long transferTo(WritableByteChannel target, long position) throws IOException {
        return region.transferTo(target, position);
    }

    @Override
    public int refCnt() {
        return region.refCnt();
    }

    @Override
    public TrackedFileRegion retain() {
        region.retain();
        return this;
    }

    @Override
    public TrackedFileRegion retain(int increment) {
        region.retain(increment);
        return this;
    }

    @Override
    public TrackedFileRegion touch() {
        region.touch();
        return this;
    }

    @Override
    public TrackedFileRegion touch(Object hint) {
        region.touch(hint);
        return this;
    }

    @Override
    public boolean release() {
        return region.release();
    }

    @Override
    public boolean release(int decrement) {
        return region.release(decrement);
    }

    @Override
    public String toString() {
        return "TrackedFileRegion(" + region + ", completed: " + completed + ')';
    }
}
