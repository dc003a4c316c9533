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
package org.nettyrdma.channel.rdma.memory;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.nettyrdma.channel.rdma.internal.RdmaNative;

/**
 * A device attribute record written by hand, as {@link RdmaNative#queryDevice} writes it, for a
 * device the test machine does not have: read with {@link DeviceCapabilities#read}. Each factory
 * starts from the attributes a device of that kind reports; the setters change one of them.
 */
final class DeviceRecord {

    private static final int MELLANOX = 0x02c9;
    private static final int SIW_VENDOR_ID = 0x626d74;
    private static final int ALIBABA = 0x1ded;
    private static final int ATOMIC_HCA = 1;
    private static final int NODE_CA = 1;
    private static final int LINK_LAYER_INFINIBAND = 1;
    private static final int LINK_LAYER_ETHERNET = 2;
    private static final int MEM_WINDOW = 1 << 17;

    private final String name;
    private final ByteBuffer attr = ByteBuffer.allocate(RdmaNative.DEVICE_ATTR_SIZE).order(ByteOrder.nativeOrder());

    private DeviceRecord(String name) {
        this.name = name;
    }

    /** Soft-RoCE as the project's VM reports it (docs/devices.md): everything, windows that do not confine. */
    static DeviceRecord rxe() {
        return new DeviceRecord("rxe0").transport(RdmaNative.TRANSPORT_IB, NODE_CA, LINK_LAYER_ETHERNET)
                .put(RdmaNative.DEVICE_VENDOR_ID_OFFSET, RdmaDevice.RXE_VENDOR_ID)
                .put(RdmaNative.DEVICE_CAP_FLAGS_OFFSET, MEM_WINDOW | RdmaNative.DEVICE_CAP_MEM_WINDOW_TYPE_2B)
                .put(RdmaNative.DEVICE_ATOMIC_CAP_OFFSET, ATOMIC_HCA)
                .put(RdmaNative.DEVICE_MAX_MW_OFFSET, 524287)
                .put(RdmaNative.DEVICE_MAX_SRQ_OFFSET, 917503)
                .put(RdmaNative.DEVICE_MAX_SRQ_WR_OFFSET, 1048576)
                .put(RdmaNative.DEVICE_PORT_MAX_MSG_SIZE_OFFSET, 8 << 20)
                .limits(32, 32, 1048576, 32767);
    }

    /** Soft-iWARP: iWARP, no windows, no atomics, one scatter entry per Read, shared receive queues. */
    static DeviceRecord siw() {
        return new DeviceRecord("siw0").transport(RdmaNative.TRANSPORT_IWARP, RdmaNative.NODE_RNIC, LINK_LAYER_ETHERNET)
                .put(RdmaNative.DEVICE_VENDOR_ID_OFFSET, SIW_VENDOR_ID)
                .put(RdmaNative.DEVICE_MAX_SRQ_OFFSET, 102400)
                .put(RdmaNative.DEVICE_MAX_SRQ_WR_OFFSET, 327680)
                .limits(6, 1, 32768, 3276800);
    }

    /** An iWARP device without shared receive queues, as the issue reports of Alibaba's erdma. */
    static DeviceRecord withoutSharedReceiveQueues() {
        return new DeviceRecord("erdma_0").transport(RdmaNative.TRANSPORT_IWARP, RdmaNative.NODE_RNIC, LINK_LAYER_ETHERNET)
                .put(RdmaNative.DEVICE_VENDOR_ID_OFFSET, ALIBABA)
                .limits(6, 1, 8192, 4194304);
    }

    /** A ConnectX over InfiniBand: windows that confine a peer, atomics, shared receive queues. */
    static DeviceRecord mlx5() {
        return new DeviceRecord("mlx5_0").transport(RdmaNative.TRANSPORT_IB, NODE_CA, LINK_LAYER_INFINIBAND)
                .put(RdmaNative.DEVICE_VENDOR_ID_OFFSET, MELLANOX)
                .put(RdmaNative.DEVICE_CAP_FLAGS_OFFSET, MEM_WINDOW | RdmaNative.DEVICE_CAP_MEM_WINDOW_TYPE_2B)
                .put(RdmaNative.DEVICE_ATOMIC_CAP_OFFSET, ATOMIC_HCA)
                .put(RdmaNative.DEVICE_MAX_MW_OFFSET, 16777216)
                .put(RdmaNative.DEVICE_MAX_SRQ_OFFSET, 8388608)
                .put(RdmaNative.DEVICE_MAX_SRQ_WR_OFFSET, 32767)
                .limits(30, 30, 32768, 4194303);
    }

    private DeviceRecord transport(int transportType, int nodeType, int linkLayer) {
        return put(RdmaNative.DEVICE_TRANSPORT_TYPE_OFFSET, transportType)
                .put(RdmaNative.DEVICE_NODE_TYPE_OFFSET, nodeType)
                .put(RdmaNative.DEVICE_PORT_LINK_LAYER_OFFSET, linkLayer)
                .put(RdmaNative.DEVICE_PORT_MAX_MSG_SIZE_OFFSET, 1 << 31);
    }

    private DeviceRecord limits(int maxSge, int maxSgeRd, int maxQpWr, int maxCqe) {
        attr.putLong(RdmaNative.DEVICE_MAX_MR_SIZE_OFFSET, -1L);
        return put(RdmaNative.DEVICE_MAX_SGE_OFFSET, maxSge)
                .put(RdmaNative.DEVICE_MAX_SGE_RD_OFFSET, maxSgeRd)
                .put(RdmaNative.DEVICE_MAX_QP_WR_OFFSET, maxQpWr)
                .put(RdmaNative.DEVICE_MAX_CQE_OFFSET, maxCqe);
    }

    /** Sets the int attribute at {@code offset} (an {@code RdmaNative.DEVICE_*_OFFSET}). */
    DeviceRecord put(int offset, int value) {
        attr.putInt(offset, value);
        return this;
    }

    /** Returns the capabilities the record describes. */
    DeviceCapabilities capabilities() {
        return DeviceCapabilities.read(name, attr);
    }

    /** Returns what the transport decides to post on the device the record describes. */
    DeviceVerbs verbs() {
        return DeviceVerbs.decide(capabilities());
    }
}
