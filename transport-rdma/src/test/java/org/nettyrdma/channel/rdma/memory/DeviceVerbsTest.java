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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.nettyrdma.channel.rdma.internal.RdmaNative;

/**
 * Which verbs the transport posts on a device, decided from what the device reports: on devices this
 * machine does not have, described by hand ({@link DeviceRecord}).
 */
class DeviceVerbsTest {

    @Test
    void rxePostsAtomicsAndSharedReceivesButOpensNoRingSinceItsWindowsDoNotConfine() {
        DeviceVerbs verbs = DeviceRecord.rxe().verbs();
        assertTrue(verbs.atomics());
        assertTrue(verbs.sharedReceiveQueues());
        assertTrue(verbs.hostsRings(), "windows and Writes with immediate: -Dorg.nettyrdma.ring=always may open one");
        assertFalse(verbs.windowsConfinePeers());
        assertFalse(verbs.opensRings());
    }

    @Test
    void siwPostsNeitherRingsNorAtomics() {
        DeviceCapabilities siw = DeviceRecord.siw().capabilities();
        assertEquals(DeviceCapabilities.Transport.IWARP, siw.transport());
        assertFalse(siw.hasWriteWithImmediate());
        assertEquals(1, siw.maxSgeRd());
        DeviceVerbs verbs = DeviceVerbs.decide(siw);
        assertFalse(verbs.hostsRings(), "no windows and no immediate data: not even -Dorg.nettyrdma.ring=always");
        assertFalse(verbs.opensRings());
        assertFalse(verbs.atomics());
        assertTrue(verbs.sharedReceiveQueues());
        assertTrue(DeviceVerbs.READ_SCATTER_ENTRIES <= siw.maxSgeRd(), "a Read lands in as many entries as siw allows");
    }

    @Test
    void iwarpCarriesNoRingEvenWithWindowsThatConfine() {
        // cxgb4 and irdma have windows; iWARP has no Write with immediate to announce what landed.
        DeviceVerbs verbs = DeviceRecord.siw()
                .put(RdmaNative.DEVICE_MAX_MW_OFFSET, 1024)
                .put(RdmaNative.DEVICE_CAP_FLAGS_OFFSET, RdmaNative.DEVICE_CAP_MEM_WINDOW_TYPE_2B)
                .verbs();
        assertTrue(verbs.windowsConfinePeers());
        assertFalse(verbs.hostsRings());
        assertFalse(verbs.opensRings());
    }

    @Test
    void onlyIwarpWritesNeedAConfirmation() {
        assertTrue(DeviceRecord.rxe().verbs().writeCompletionsConfirmPlacement(), "RoCE: the responder acknowledges");
        assertTrue(DeviceRecord.mlx5().verbs().writeCompletionsConfirmPlacement());
        assertFalse(DeviceRecord.siw().verbs().writeCompletionsConfirmPlacement(), "iWARP: complete once sent");
    }

    @Test
    void onlyIwarpNudgesTheHello() {
        assertFalse(DeviceRecord.rxe().verbs().nudgesHello());
        assertFalse(DeviceRecord.mlx5().verbs().nudgesHello());
        assertTrue(DeviceRecord.siw().verbs().nudgesHello());
    }

    @Test
    void theNodeTypeAloneMarksAnIwarpDevice() {
        assertEquals(DeviceCapabilities.Transport.IWARP, DeviceRecord.mlx5()
                .put(RdmaNative.DEVICE_TRANSPORT_TYPE_OFFSET, -1)
                .put(RdmaNative.DEVICE_NODE_TYPE_OFFSET, RdmaNative.NODE_RNIC)
                .capabilities().transport());
        assertEquals(DeviceCapabilities.Transport.OTHER, DeviceRecord.mlx5()
                .put(RdmaNative.DEVICE_TRANSPORT_TYPE_OFFSET, -1)
                .capabilities().transport());
    }

    @Test
    void aDeviceWithoutSharedReceiveQueuesIsToldApart() {
        DeviceVerbs verbs = DeviceRecord.withoutSharedReceiveQueues().verbs();
        assertFalse(verbs.sharedReceiveQueues());
        assertFalse(verbs.atomics());
        assertFalse(verbs.opensRings());
        // A queue count without receives is no queue either.
        assertFalse(DeviceRecord.mlx5().put(RdmaNative.DEVICE_MAX_SRQ_WR_OFFSET, 0).verbs().sharedReceiveQueues());
    }

    @Test
    void mlx5PostsEverything() {
        DeviceVerbs verbs = DeviceRecord.mlx5().verbs();
        assertTrue(verbs.opensRings());
        assertTrue(verbs.atomics());
        assertTrue(verbs.sharedReceiveQueues());
    }

    @Test
    void windowsCountOnlyWhereTheDeviceCanAllocateThem() {
        // The type-2 flag without a window to allocate carries no ring.
        DeviceVerbs verbs = DeviceRecord.mlx5().put(RdmaNative.DEVICE_MAX_MW_OFFSET, 0).verbs();
        assertFalse(verbs.hostsRings());
        assertFalse(verbs.windowsConfinePeers());
    }

    @Test
    void anOperationTheDeviceCannotRunNamesTheDeviceAndWhatItLacks() {
        UnsupportedOperationException e = DeviceRecord.siw().verbs()
                .unsupported("a compare-and-swap", "atomics", "atomic_cap NONE");
        assertEquals("a compare-and-swap cannot run on the RDMA device siw0: it has no atomics "
                + "(atomic_cap NONE; docs/devices.md)", e.getMessage());
    }

    @Test
    void theLogLinesSayWhatTheDeviceReportedAndWhatTheTransportPosts() {
        String rxe = DeviceRecord.rxe().capabilities().toString();
        assertTrue(rxe.startsWith("rxe0: InfiniBand over Ethernet (RoCE), vendor 0xffffff, atomics yes"), rxe);
        assertTrue(rxe.contains("memory windows 524287 (type 2)"), rxe);
        assertTrue(rxe.contains("largest region 18446744073709551615, largest message 8388608"), rxe);
        String siw = DeviceRecord.siw().verbs().toString();
        assertTrue(siw.contains("(1 scatter entry of 1 allowed)"), siw);
        assertTrue(siw.contains("rings (Writes with immediate): no, no type-2 memory windows"), siw);
        assertTrue(siw.contains("atomics: no, atomic_cap NONE"), siw);
        String noSrq = DeviceRecord.withoutSharedReceiveQueues().verbs().toString();
        assertTrue(noSrq.endsWith("shared receive queues: no, max_srq 0"), noSrq);
        assertTrue(DeviceRecord.rxe().verbs().toString().contains("no, its windows do not confine a peer"));
    }
}
