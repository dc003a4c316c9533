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
package org.nettyrdma.channel.rdma.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import com.ibm.disni.util.MemoryUtils;

/**
 * One RDMA device as the process sees it: librdmacm's {@code ibv_context}, the protection domain all
 * of this transport's memory and queue pairs on the device share, and the limits the transport sizes
 * itself by.
 *
 * <p>librdmacm opens each device once per process, so the context is the key. The protection domain
 * lives as long as the process, as DiSNI's does: memory registered by one connection's allocator may
 * be sent on any other connection on the same device. Thread-safe.
 */
public final class RdmaDevice {

    private static final ConcurrentMap<Long, RdmaDevice> DEVICES = new ConcurrentHashMap<>();

    private final long context;
    private final long pd;
    private final String name;
    private final int maxQpWr;
    private final int maxCqe;
    private final int maxSge;

    private RdmaDevice(long context) throws IOException {
        this.context = context;
        this.name = RdmaNative.deviceName(context);
        ByteBuffer attr = ByteBuffer.allocateDirect(RdmaNative.DEVICE_ATTR_SIZE).order(ByteOrder.nativeOrder());
        RdmaNative.queryDevice(context, MemoryUtils.getAddress(attr));
        this.maxQpWr = attr.getInt(RdmaNative.DEVICE_MAX_QP_WR_OFFSET);
        this.maxCqe = attr.getInt(RdmaNative.DEVICE_MAX_CQE_OFFSET);
        this.maxSge = attr.getInt(RdmaNative.DEVICE_MAX_SGE_OFFSET);
        this.pd = DisniNative.dispatcher()._allocPd(context);
    }

    /** Returns the device of an {@code ibv_context*}, opening its protection domain on first use. */
    public static RdmaDevice of(long context) throws IOException {
        RdmaDevice device = DEVICES.get(context);
        if (device != null) {
            return device;
        }
        synchronized (DEVICES) {
            device = DEVICES.get(context);
            if (device == null) {
                device = new RdmaDevice(context);
                DEVICES.put(context, device);
            }
            return device;
        }
    }

    /** Returns the {@code ibv_context*}. */
    public long context() {
        return context;
    }

    /** Returns the {@code ibv_pd*} shared by this transport's objects on the device. */
    public long pd() {
        return pd;
    }

    /** Returns the device name, for example {@code rxe0}. */
    public String name() {
        return name;
    }

    /** Returns the most work requests one queue of a QP may hold. */
    public int maxQpWr() {
        return maxQpWr;
    }

    /** Returns the most entries a CQ may hold. */
    public int maxCqe() {
        return maxCqe;
    }

    /** Returns the most scatter/gather entries per work request. */
    public int maxSge() {
        return maxSge;
    }

    @Override
    public String toString() {
        return name;
    }
}
