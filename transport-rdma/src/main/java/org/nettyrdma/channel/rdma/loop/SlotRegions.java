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
package org.nettyrdma.channel.rdma.loop;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.nettyrdma.channel.rdma.memory.RegisteredBuffer;

/**
 * The memory regions that a receive queue's slots live in: slot {@code n} lives in region
 * {@code n / regionSlots}, at {@code (n % regionSlots) * slotSize}. Each region is registered with
 * local write access only, since a peer reaches a slot by Send, never by key, and is registered and
 * deregistered whole when the book of slots ({@link SharedSlots}) asks.
 *
 * <p>The regions and bytes registered are counted process-wide, for the memory metrics.
 *
 * <p>Used on the loop's thread only.
 */
final class SlotRegions {

    private static final AtomicLong LIVE_BYTES = new AtomicLong();
    private static final AtomicInteger LIVE_REGIONS = new AtomicInteger();

    private final long pd;
    private final int regionSlots;
    private final int slotSize;
    /** What the regions are for, in the error a refused registration raises. */
    private final String purpose;
    /** The regions by index, {@code null} where one was deregistered. */
    private final List<RegisteredBuffer> regions = new ArrayList<>();
    /** A buffer over each region, the same index, for the connections to read their slots from. */
    private final List<ByteBuf> views = new ArrayList<>();

    /**
     * Creates the regions, none registered yet, of {@code regionSlots} slots of {@code slotSize} bytes
     * each in the protection domain {@code pd}; {@code purpose} names them in a refused registration.
     */
    SlotRegions(long pd, int regionSlots, int slotSize, String purpose) {
        this.pd = pd;
        this.regionSlots = regionSlots;
        this.slotSize = slotSize;
        this.purpose = purpose;
    }

    /** Returns the bytes of the receive slots registered now, process-wide. */
    static long liveBytes() {
        return LIVE_BYTES.get();
    }

    /** Returns the memory regions of receive slots registered now, process-wide. */
    static int liveRegions() {
        return LIVE_REGIONS.get();
    }

    /** Registers region {@code index}: the next one, or one deregistered before. */
    void register(int index) throws IOException {
        RegisteredBuffer region = new RegisteredBuffer(pd, regionSlots * slotSize, RegisteredBuffer.LOCAL_WRITE,
                purpose);
        LIVE_BYTES.addAndGet(region.size());
        LIVE_REGIONS.incrementAndGet();
        ByteBuf view = Unpooled.wrappedBuffer(region.buffer());
        if (index == regions.size()) {
            regions.add(region);
            views.add(view);
        } else {
            regions.set(index, region);
            views.set(index, view);
        }
    }

    /** Deregisters region {@code index}: the device writes into none of its slots any more. */
    void deregister(int index) {
        deregister(regions.set(index, null));
        views.set(index, null);
    }

    /** Returns the memory of the region that holds {@code slot}; the slot starts at {@link #offsetOf}. */
    ByteBuf viewOf(int slot) {
        return views.get(slot / regionSlots);
    }

    /** Returns the registered region that holds {@code slot}. */
    RegisteredBuffer regionOf(int slot) {
        return regions.get(slot / regionSlots);
    }

    /** Returns where {@code slot} starts in {@link #viewOf}. */
    int offsetOf(int slot) {
        return (slot % regionSlots) * slotSize;
    }

    /** Returns the address of {@code slot}, for a receive posted into it. */
    long addressOf(int slot) {
        return regions.get(slot / regionSlots).address() + offsetOf(slot);
    }

    /** Returns the local key of the region that holds {@code slot}. */
    int lkeyOf(int slot) {
        return regions.get(slot / regionSlots).lkey();
    }

    /** Deregisters every region: the queue is destroyed, so no device writes into them any more. */
    void close() {
        for (RegisteredBuffer region : regions) {
            if (region != null) {
                deregister(region);
            }
        }
        regions.clear();
        views.clear();
    }

    private static void deregister(RegisteredBuffer region) {
        region.close();
        LIVE_BYTES.addAndGet(-region.size());
        LIVE_REGIONS.decrementAndGet();
    }
}
