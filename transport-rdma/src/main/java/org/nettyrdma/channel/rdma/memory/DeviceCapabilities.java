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

import org.nettyrdma.channel.rdma.internal.RdmaNative;

/**
 * What an RDMA device reports about itself, read once when the transport opens it
 * ({@code ibv_query_device}, {@code ibv_query_port} of port 1, and the device's transport and node
 * type): the attributes that decide which verbs the transport posts there ({@link DeviceVerbs}) and
 * the limits it sizes its queues by. {@link #toString()} is the line the transport logs at the opening.
 *
 * <p>Immutable; {@link #read} takes the record {@link RdmaNative#queryDevice} writes, so a test can
 * describe a device it does not have by writing that record by hand.
 *
 * @param name           the device name, for example {@code rxe0}
 * @param transport      the transport the device speaks
 * @param linkLayer      the link layer of port 1 ({@code IBV_LINK_LAYER_*}: 1 InfiniBand, 2 Ethernet)
 * @param vendorId       {@code vendor_id} (rxe reports {@code 0xffffff})
 * @param capabilityFlags {@code device_cap_flags}
 * @param atomicCap      {@code atomic_cap}: {@link RdmaNative#ATOMIC_NONE} if the device runs no atomics
 * @param maxMw          {@code max_mw}: the memory windows it can allocate, 0 if it has none
 * @param maxSrq         {@code max_srq}: the shared receive queues it can make, 0 if it has none
 * @param maxSrqWr       {@code max_srq_wr}: the receives one shared receive queue holds
 * @param maxSge         {@code max_sge}: the scatter/gather entries of one Send or receive
 * @param maxSgeRd       {@code max_sge_rd}: the scatter entries one RDMA Read lands in
 * @param maxQpWr        {@code max_qp_wr}: the work requests one queue of a queue pair holds
 * @param maxCqe         {@code max_cqe}: the entries of one completion queue
 * @param maxMrSize      {@code max_mr_size}, unsigned
 * @param maxMessageSize {@code max_msg_sz} of port 1, unsigned
 */
public record DeviceCapabilities(String name, Transport transport, int linkLayer, int vendorId, int capabilityFlags,
                                 int atomicCap, int maxMw, int maxSrq, int maxSrqWr, int maxSge, int maxSgeRd,
                                 int maxQpWr, int maxCqe, long maxMrSize, int maxMessageSize) {

    /** {@code IBV_LINK_LAYER_ETHERNET}: an InfiniBand transport over it is RoCE. */
    static final int LINK_LAYER_ETHERNET = 2;

    /** The transport a device speaks, which decides verbs no attribute bit announces. */
    public enum Transport {
        /** InfiniBand's transport, over InfiniBand or over Ethernet (RoCE: mlx5, rxe, irdma in RoCE mode). */
        INFINIBAND("InfiniBand"),
        /** iWARP (siw, cxgb4, erdma, irdma in iWARP mode): no Write with immediate, no Send with immediate. */
        IWARP("iWARP"),
        /** Another one (usNIC, or one this library does not know). */
        OTHER("another transport");

        private final String label;

        Transport(String label) {
            this.label = label;
        }

        /** Returns the transport's usual name. */
        @Override
        public String toString() {
            return label;
        }

        /** Returns the transport of a device of {@code transportType} and {@code nodeType} (verbs' enums). */
        static Transport of(int transportType, int nodeType) {
            if (transportType == RdmaNative.TRANSPORT_IWARP || nodeType == RdmaNative.NODE_RNIC) {
                return IWARP;
            }
            return transportType == RdmaNative.TRANSPORT_IB ? INFINIBAND : OTHER;
        }
    }

    /** Reads the capabilities of device {@code name} from the {@link RdmaNative#DEVICE_ATTR_SIZE}-byte record. */
    public static DeviceCapabilities read(String name, ByteBuffer attr) {
        return new DeviceCapabilities(name,
                Transport.of(attr.getInt(RdmaNative.DEVICE_TRANSPORT_TYPE_OFFSET),
                        attr.getInt(RdmaNative.DEVICE_NODE_TYPE_OFFSET)),
                attr.getInt(RdmaNative.DEVICE_PORT_LINK_LAYER_OFFSET),
                attr.getInt(RdmaNative.DEVICE_VENDOR_ID_OFFSET),
                attr.getInt(RdmaNative.DEVICE_CAP_FLAGS_OFFSET),
                attr.getInt(RdmaNative.DEVICE_ATOMIC_CAP_OFFSET),
                attr.getInt(RdmaNative.DEVICE_MAX_MW_OFFSET),
                attr.getInt(RdmaNative.DEVICE_MAX_SRQ_OFFSET),
                attr.getInt(RdmaNative.DEVICE_MAX_SRQ_WR_OFFSET),
                attr.getInt(RdmaNative.DEVICE_MAX_SGE_OFFSET),
                attr.getInt(RdmaNative.DEVICE_MAX_SGE_RD_OFFSET),
                attr.getInt(RdmaNative.DEVICE_MAX_QP_WR_OFFSET),
                attr.getInt(RdmaNative.DEVICE_MAX_CQE_OFFSET),
                attr.getLong(RdmaNative.DEVICE_MAX_MR_SIZE_OFFSET),
                attr.getInt(RdmaNative.DEVICE_PORT_MAX_MSG_SIZE_OFFSET));
    }

    /** Returns {@code true} if the device runs RDMA atomics (compare-and-swap, fetch-and-add). */
    public boolean hasAtomics() {
        return atomicCap != RdmaNative.ATOMIC_NONE;
    }

    /** Returns {@code true} if the device can allocate type-2 memory windows. */
    public boolean hasType2Windows() {
        return maxMw > 0 && (capabilityFlags & RdmaNative.DEVICE_CAP_MEM_WINDOW_TYPE_2B) != 0;
    }

    /** Returns {@code true} if the device can make shared receive queues. */
    public boolean hasSharedReceiveQueues() {
        return maxSrq > 0 && maxSrqWr > 0;
    }

    /**
     * Returns {@code true} if the device posts RDMA Writes with immediate: every device of InfiniBand's
     * transport, RoCE's included, and none of iWARP's, whose wire protocol has no immediate data. No
     * attribute bit says so.
     */
    public boolean hasWriteWithImmediate() {
        return transport == Transport.INFINIBAND;
    }

    /** Says what the device reports, in one line a user can read. */
    @Override
    public String toString() {
        String over = transport != Transport.INFINIBAND ? ""
                : linkLayer == LINK_LAYER_ETHERNET ? " over Ethernet (RoCE)" : " over InfiniBand";
        return name + ": " + transport + over
                + ", vendor 0x" + Integer.toHexString(vendorId)
                + ", atomics " + (hasAtomics() ? "yes (atomic_cap " + atomicCap + ')' : "none")
                + ", memory windows " + maxMw + (hasType2Windows() ? " (type 2)" : "")
                + ", shared receive queues " + maxSrq + " of " + maxSrqWr + " receives"
                + ", scatter entries " + maxSge + " per Send, " + maxSgeRd + " per RDMA Read"
                + ", work requests " + maxQpWr + " per queue"
                + ", completion queue entries " + maxCqe
                + ", largest region " + Long.toUnsignedString(maxMrSize)
                + ", largest message " + Integer.toUnsignedString(maxMessageSize);
    }
}
