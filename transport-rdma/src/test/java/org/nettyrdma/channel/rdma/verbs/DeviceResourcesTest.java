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
package org.nettyrdma.channel.rdma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.nettyrdma.channel.rdma.verbs.ConnectedPair.handle;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.nettyrdma.channel.rdma.internal.DisniNative;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.testkit.RdmaTestEnvironment;

/**
 * Opens the device and makes each verbs object once: through DiSNI where DiSNI can, through the
 * project's own JNI class for what DiSNI lacks (fds, device attributes, QP capabilities).
 */
class DeviceResourcesTest {

    private static final int PORT_ACTIVE = 4;

    @BeforeEach
    void requireDevice() {
        RdmaTestEnvironment.assumeDevice();
    }

    @Test
    void bindingToTheDeviceAddressOpensTheDevice() throws Exception {
        try (BoundId bound = new BoundId()) {
            IbvContext context = bound.id.getVerbs();
            assertNotNull(context, "an id bound to the device's address has a verbs context");
            long contextHandle = handle(context);
            String expectedName = RdmaTestEnvironment.deviceName();
            if (expectedName != null) {
                assertEquals(expectedName, RdmaNative.deviceName(contextHandle));
            }

            ByteBuffer attr = ByteBuffer.allocateDirect(RdmaNative.DEVICE_ATTR_SIZE).order(ByteOrder.nativeOrder());
            RdmaNative.queryDevice(contextHandle, MemoryUtils.getAddress(attr));
            assertEquals(PORT_ACTIVE, attr.getInt(RdmaNative.DEVICE_PORT_STATE_OFFSET), "port 1 is ACTIVE");
            int mtu = attr.getInt(RdmaNative.DEVICE_PORT_ACTIVE_MTU_OFFSET);
            assertTrue(mtu >= 256 && mtu <= 4096 && Integer.bitCount(mtu) == 1, "active MTU " + mtu);
            assertTrue(attr.getInt(RdmaNative.DEVICE_MAX_QP_WR_OFFSET) >= 1024, "max_qp_wr");
            assertTrue(attr.getInt(RdmaNative.DEVICE_MAX_SGE_OFFSET) >= 4, "max_sge");
            assertTrue(attr.getInt(RdmaNative.DEVICE_MAX_CQE_OFFSET) >= 1024, "max_cqe");
            // An unsigned 64-bit value: rxe reports 2^64 - 1.
            long maxMrSize = attr.getLong(RdmaNative.DEVICE_MAX_MR_SIZE_OFFSET);
            assertTrue(Long.compareUnsigned(maxMrSize, 1L << 30) >= 0, "max_mr_size " + Long.toUnsignedString(maxMrSize));
            assertTrue(attr.getInt(RdmaNative.DEVICE_PHYS_PORT_COUNT_OFFSET) >= 1, "ports");
        }
    }

    @Test
    void protectionDomainCompletionChannelCqAndMemoryRegion() throws Exception {
        try (BoundId bound = new BoundId()) {
            assertTrue(RdmaNative.eventChannelFd(handle(bound.channel)) > 2, "CM event channel fd");
            int fd = RdmaNative.completionChannelFd(handle(bound.completionChannel));
            assertTrue(fd > 2, "completion channel fd " + fd);
            assertEquals(0, bound.completionChannel.getFd(), "DiSNI itself never learns the fd (why RdmaNative has it)");

            ByteBuffer buffer = ByteBuffer.allocateDirect(64 * 1024);
            IbvMr mr = bound.pd.regMr(buffer, IbvMr.IBV_ACCESS_LOCAL_WRITE | IbvMr.IBV_ACCESS_REMOTE_WRITE)
                    .execute().free().getMr();
            assertEquals(MemoryUtils.getAddress(buffer), mr.getAddr());
            assertEquals(buffer.capacity(), mr.getLength());
            assertNotEquals(0, mr.getLkey());
            assertNotEquals(0, mr.getRkey());
            mr.deregMr().execute().free();
        }
    }

    @Test
    void createQpReportsTheGrantedCapabilities() throws Exception {
        try (BoundId bound = new BoundId()) {
            ByteBuffer cap = ByteBuffer.allocateDirect(RdmaNative.QP_CAP_SIZE).order(ByteOrder.nativeOrder());
            cap.putInt(RdmaNative.QP_CAP_MAX_SEND_WR_OFFSET, 100)
                    .putInt(RdmaNative.QP_CAP_MAX_RECV_WR_OFFSET, 50)
                    .putInt(RdmaNative.QP_CAP_MAX_SEND_SGE_OFFSET, 2)
                    .putInt(RdmaNative.QP_CAP_MAX_RECV_SGE_OFFSET, 1)
                    .putInt(RdmaNative.QP_CAP_MAX_INLINE_DATA_OFFSET, 64);
            long qp = RdmaNative.createQp(handle(bound.id), handle(bound.pd), handle(bound.cq), handle(bound.cq), 0,
                    MemoryUtils.getAddress(cap));
            assertNotEquals(0, qp);
            // A provider may round capacities up, never down.
            assertTrue(cap.getInt(RdmaNative.QP_CAP_MAX_SEND_WR_OFFSET) >= 100, "max_send_wr");
            assertTrue(cap.getInt(RdmaNative.QP_CAP_MAX_RECV_WR_OFFSET) >= 50, "max_recv_wr");
            assertTrue(cap.getInt(RdmaNative.QP_CAP_MAX_SEND_SGE_OFFSET) >= 2, "max_send_sge");
            assertTrue(cap.getInt(RdmaNative.QP_CAP_MAX_INLINE_DATA_OFFSET) >= 64, "max_inline_data");
            assertTrue(RdmaNative.queryQpState(qp) >= 0, "a fresh QP has a state");
            // DiSNI's RdmaCmId.destroyQP only knows QPs it made itself; its native takes any id with a QP.
            assertEquals(0, DisniNative.dispatcher()._destroyQP(handle(bound.id)), "destroy QP");
        }
    }

    /**
     * An id bound to the device's address, with a PD, a completion channel and a CQ on its device;
     * closing frees them in order and asserts that each destroy succeeded.
     */
    private static final class BoundId implements AutoCloseable {
        final RdmaEventChannel channel;
        final RdmaCmId id;
        final IbvPd pd;
        final IbvCompChannel completionChannel;
        final IbvCQ cq;

        BoundId() throws Exception {
            channel = RdmaEventChannel.createEventChannel();
            id = channel.createId(RdmaCm.RDMA_PS_TCP);
            id.bindAddr(RdmaTestEnvironment.anyPort());
            IbvContext context = id.getVerbs();
            pd = context.allocPd();
            completionChannel = context.createCompChannel();
            cq = context.createCQ(completionChannel, 256, 0);
        }

        @Override
        public void close() throws Exception {
            assertEquals(0, cq.destroyCQ(), "destroy CQ");
            assertEquals(0, completionChannel.destroyCompChannel(), "destroy completion channel");
            assertEquals(0, pd.deallocPd(), "deallocate PD");
            assertEquals(0, id.destroyId(), "destroy id");
            assertEquals(0, channel.destroyEventChannel(), "destroy event channel");
        }
    }
}
