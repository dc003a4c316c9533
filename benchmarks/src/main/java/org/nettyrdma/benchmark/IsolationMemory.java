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
package org.nettyrdma.benchmark;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import org.nettyrdma.channel.rdma.RdmaByteBufAllocator;
import org.nettyrdma.channel.rdma.internal.RdmaNative;

/**
 * What {@code connections} connections of a design sharing {@code slabs} slabs hold, as one round of
 * {@link IsolationCost} measured it: the kernel's MR and PD counts, the windows, the registered bytes,
 * the pinned and unreclaimable kernel memory, and the median time to register the slabs.
 */
record IsolationMemory(int memoryRegions, int protectionDomains, int windows, long registeredBytes,
                       long pinnedKib, long kernelSlabKib, double slabRegistrationMillis) {

    /**
     * Registers the memory of {@code connections} connections of {@code design} on {@code server}'s device
     * and the {@code slabs} slabs of {@code slabMemory} they send from, counts it, and frees it again.
     */
    static IsolationMemory measure(IsolationServer server, IsolationDesign design, int connections,
                                   ByteBuffer slabMemory, int slabs) throws IOException {
        Map<String, Integer> countsBefore = KernelCounts.of(server.deviceName);
        long pinnedBefore = KernelCounts.procKib("/proc/self/status", "VmPin");
        long kernelSlabBefore = KernelCounts.procKib("/proc/meminfo", "SUnreclaim");
        List<IbvPd> pds = new ArrayList<>();
        List<IbvMr> mrs = new ArrayList<>();
        List<Long> windows = new ArrayList<>();
        List<ByteBuffer> buffers = new ArrayList<>();
        double[] slabMillis = new double[design.ownsProtectionDomain() ? connections : 1];
        long registered = 0;
        try {
            if (!design.ownsProtectionDomain()) {
                slabMillis[0] = registerSlabs(server.sharedPd, slabMemory, slabs, mrs);
            }
            for (int i = 0; i < connections; i++) {
                IbvPd pd = server.sharedPd;
                if (design.ownsProtectionDomain()) {
                    pd = server.context.allocPd();
                    pds.add(pd);
                    slabMillis[i] = registerSlabs(pd, slabMemory, slabs, mrs);
                } else {
                    windows.add(RdmaNative.allocMw(Verbs.handle(pd)));
                }
                for (int bytes : new int[] {IsolationCost.SLOTS_BYTES, IsolationCost.RING_BYTES,
                        IsolationCost.SEND_BYTES}) {
                    ByteBuffer buffer = RdmaNative.allocateMemory(bytes);
                    buffers.add(buffer);
                    mrs.add(pd.regMr(buffer, IbvMr.IBV_ACCESS_LOCAL_WRITE).execute().free().getMr());
                }
            }
            for (IbvMr mr : mrs) {
                registered += mr.getLength();
            }
            Map<String, Integer> counts = KernelCounts.of(server.deviceName);
            return new IsolationMemory(counts.get("mr") - countsBefore.get("mr"),
                    counts.get("pd") - countsBefore.get("pd"), windows.size(), registered,
                    KernelCounts.procKib("/proc/self/status", "VmPin") - pinnedBefore,
                    KernelCounts.procKib("/proc/meminfo", "SUnreclaim") - kernelSlabBefore,
                    IsolationReport.median(slabMillis));
        } finally {
            // Windows before the MRs under them, MRs before their PD.
            for (long window : windows) {
                RdmaNative.deallocMw(window);
            }
            for (IbvMr mr : mrs) {
                mr.deregMr().execute().free();
            }
            for (IbvPd pd : pds) {
                Verbs.deallocate(pd);
            }
            for (ByteBuffer buffer : buffers) {
                RdmaNative.freeMemory(MemoryUtils.getAddress(buffer));
            }
        }
    }

    /** Registers every slab in {@code pd} as the send pool does (no remote access); returns the milliseconds. */
    private static double registerSlabs(IbvPd pd, ByteBuffer slabMemory, int slabs, List<IbvMr> mrs)
            throws IOException {
        long start = System.nanoTime();
        for (int slab = 0; slab < slabs; slab++) {
            ByteBuffer memory = slabMemory.slice(slab * RdmaByteBufAllocator.SLAB_SIZE, RdmaByteBufAllocator.SLAB_SIZE);
            mrs.add(pd.regMr(memory, 0).execute().free().getMr());
        }
        return (System.nanoTime() - start) / 1e6;
    }
}
