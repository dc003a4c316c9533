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

import com.ibm.disni.util.NativeAffinity;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaProvider;
import com.ibm.disni.verbs.impl.NatIbvRecvWR;
import com.ibm.disni.verbs.impl.NatIbvSendWR;
import com.ibm.disni.verbs.impl.NatIbvSge;
import com.ibm.disni.verbs.impl.NativeDispatcher;
import com.ibm.disni.verbs.impl.SockAddrIn;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.function.Executable;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Checks the project's {@code libdisni.so} against DiSNI 2.1's unmodified jar and against
 * {@link RdmaNative}, without an RDMA device: DiSNI's start-up check, the behaviour of every native
 * for 0 handles (an {@link IOException} or the documented return value, never a crash; see
 * docs/native.md, "The contract"), and the calls that work without a device.
 */
class NativeContractTest {

    private static final short RDMA_PS_TCP = RdmaCm.RDMA_PS_TCP;
    private static final int IBV_QPT_RC = 2;
    private static final int IBV_ACCESS_REMOTE_WRITE = 2;
    // struct ibv_mw of libibverbs' ABI: context and pd pointers, then rkey, handle and type.
    private static final int IBV_MW_RKEY_OFFSET = 16;
    private static final int IBV_MW_TYPE_OFFSET = 24;
    private static final int IBV_MW_TYPE_1 = 1;
    private static final int IBV_MW_TYPE_2 = 2;

    /** Direct memory for out-parameters, so each 0-handle case fails on the handle, not the address. */
    private static ByteBuffer scratch;
    private static long scratchAddress;
    private static NativeDispatcher dispatcher;

    @BeforeAll
    static void loadLibrary() throws Exception {
        NativeLibrary.ensureLoaded();
        scratch = ByteBuffer.allocateDirect(4096).order(ByteOrder.nativeOrder());
        scratchAddress = RdmaNative.directBufferAddress(scratch);
        dispatcher = DisniNative.dispatcher();
    }

    @Test
    void disniProviderAcceptsTheLibraryAndAdaptsItsSizes() throws IOException {
        RdmaProvider provider = RdmaProvider.provider();
        assertNotNull(provider);
        assertEquals(32, provider.getVersion());
        // Java's defaults are 28 and 72; the start-up check adopts the native values.
        assertEquals(16, SockAddrIn.CSIZE);
        assertEquals(128, NatIbvSendWR.CSIZE);
        assertEquals(32, NatIbvRecvWR.CSIZE);
        assertEquals(16, NatIbvSge.CSIZE);
        assertEquals(48, IbvWC.CSIZE);
        assertEquals(40, NatIbvSendWR.REMOTEADDR_OFFSET);
        assertEquals(48, NatIbvSendWR.RKEY_OFFSET);
    }

    /** One dynamic test per NativeDispatcher native; the table must name all 48. */
    @TestFactory
    Stream<DynamicTest> everyDispatcherNativeHandlesZeroHandles() {
        NativeDispatcher d = dispatcher;
        long out = scratchAddress;
        Map<String, Executable> cases = new LinkedHashMap<>();
        // 2.A connection manager
        cases.put("_createEventChannel", NativeContractTest::createEventChannelMatchesHost);
        cases.put("_createId", () -> throwsIo(() -> d._createId(0, RDMA_PS_TCP)));
        cases.put("_createQP", () -> throwsIo(() -> d._createQP(0, 0, 0, 0, IBV_QPT_RC, 16, 16, 0)));
        cases.put("_bindAddr", () -> throwsIo(() -> d._bindAddr(0, out)));
        cases.put("_listen", () -> throwsIo(() -> d._listen(0, 16)));
        cases.put("_resolveAddr", () -> throwsIo(() -> d._resolveAddr(0, 0, out, 1000)));
        cases.put("_resolveRoute", () -> throwsIo(() -> d._resolveRoute(0, 1000)));
        cases.put("_getCmEvent", () -> assertEquals(-1, d._getCmEvent(0, out, out + 8, 0)));
        cases.put("_connect", () -> throwsIo(() -> d._connect(0, 7, 7, 0, (byte) 0)));
        cases.put("_accept", () -> throwsIo(() -> d._accept(0, 7, 7)));
        cases.put("_ackCmEvent", () -> assertEquals(0, d._ackCmEvent(0)));
        cases.put("_disconnect", () -> throwsIo(() -> d._disconnect(0)));
        cases.put("_destroyEventChannel", () -> assertEquals(-1, d._destroyEventChannel(0)));
        cases.put("_destroyCmId", () -> assertEquals(-1, d._destroyCmId(0)));
        cases.put("_destroyQP", () -> assertEquals(-1, d._destroyQP(0)));
        cases.put("_getSrcAddr", () -> assertEquals(-1, d._getSrcAddr(0, out)));
        cases.put("_getDstAddr", () -> assertEquals(-1, d._getDstAddr(0, out)));
        cases.put("_destroyEp", () -> assertEquals(-1, d._destroyEp(0)));
        // 2.B verbs
        cases.put("_allocPd", () -> throwsIo(() -> d._allocPd(0)));
        cases.put("_createCompChannel", () -> throwsIo(() -> d._createCompChannel(0)));
        cases.put("_createCQ", () -> throwsIo(() -> d._createCQ(0, 0, 16, 0)));
        cases.put("_modifyQP", () -> throwsIo(() -> d._modifyQP(0, 0)));
        cases.put("_regMr", () -> throwsIo(() -> d._regMr(0, out, 64, 7, out, out + 4, out + 8)));
        cases.put("_queryOdpSupport", () -> assertEquals(-1, d._queryOdpSupport(0)));
        cases.put("_expPrefetchMr", () -> assertEquals(-1, d._expPrefetchMr(0, out, 64)));
        cases.put("_deregMr", () -> throwsIo(() -> d._deregMr(0)));
        cases.put("_postSend", () -> throwsIo(() -> d._postSend(0, out)));
        cases.put("_postRecv", () -> throwsIo(() -> d._postRecv(0, out)));
        cases.put("_getCqEvent", () -> throwsIo(() -> d._getCqEvent(0, 0)));
        cases.put("_pollCQ", () -> throwsIo(() -> d._pollCQ(0, 1, out)));
        cases.put("_reqNotifyCQ", () -> throwsIo(() -> d._reqNotifyCQ(0, 0)));
        cases.put("_ackCqEvent", () -> assertEquals(-1, d._ackCqEvent(0, 1)));
        cases.put("_destroyCompChannel", () -> assertEquals(-1, d._destroyCompChannel(0)));
        cases.put("_deallocPd", () -> assertEquals(-1, d._deallocPd(0)));
        cases.put("_destroyCQ", () -> assertEquals(-1, d._destroyCQ(0)));
        // 2.C field look-ups
        cases.put("_getContext", () -> throwsIo(() -> d._getContext(0)));
        cases.put("_getQpNum", () -> throwsIo(() -> d._getQpNum(0)));
        cases.put("_getContextFd", () -> throwsIo(() -> d._getContextFd(0)));
        cases.put("_getContextNumCompVectors", () -> throwsIo(() -> d._getContextNumCompVectors(0)));
        cases.put("_getPdHandle", () -> throwsIo(() -> d._getPdHandle(0)));
        // 2.D sizes and version (rdma-core 44 on x86-64)
        cases.put("_getSockAddrInSize", () -> assertEquals(16, d._getSockAddrInSize()));
        cases.put("_getIbvRecvWRSize", () -> assertEquals(32, d._getIbvRecvWRSize()));
        cases.put("_getIbvSendWRSize", () -> assertEquals(128, d._getIbvSendWRSize()));
        cases.put("_getIbvSgeSize", () -> assertEquals(16, d._getIbvSgeSize()));
        cases.put("_getIbvWCSize", () -> assertEquals(48, d._getIbvWCSize()));
        cases.put("_getRemoteAddressOffset", () -> assertEquals(40, d._getRemoteAddressOffset()));
        cases.put("_getRKeyOffset", () -> assertEquals(48, d._getRKeyOffset()));
        cases.put("_getVersion", () -> assertEquals(32, d._getVersion()));

        assertEquals(nativeMethodNames(NativeDispatcher.class), new TreeSet<>(cases.keySet()));
        assertEquals(48, cases.size());
        return cases.entrySet().stream().map(e -> DynamicTest.dynamicTest(e.getKey(), e.getValue()));
    }

    /** One dynamic test per RdmaNative native; the table must name all of them. */
    @TestFactory
    Stream<DynamicTest> everyProjectNativeRejectsZeroHandles() {
        long out = scratchAddress;
        Map<String, Executable> cases = new LinkedHashMap<>();
        cases.put("directBufferAddress", () -> assertEquals(0, RdmaNative.directBufferAddress(null)));
        cases.put("eventChannelFd", () -> throwsIo(() -> RdmaNative.eventChannelFd(0)));
        cases.put("completionChannelFd", () -> throwsIo(() -> RdmaNative.completionChannelFd(0)));
        cases.put("pollCmEvent", () -> throwsIo(() -> RdmaNative.pollCmEvent(0, out)));
        cases.put("migrateId", () -> throwsIo(() -> RdmaNative.migrateId(0, 0)));
        cases.put("accept", () -> throwsIo(() -> RdmaNative.accept(0, 7, 0, 0)));
        cases.put("reject", () -> throwsIo(() -> RdmaNative.reject(0, 0, 0)));
        cases.put("createQp", () -> throwsIo(() -> RdmaNative.createQp(0, 0, 0, 0, 0, out)));
        cases.put("createSrq", () -> throwsIo(() -> RdmaNative.createSrq(0, 16)));
        cases.put("postSrqRecv", () -> throwsIo(() -> RdmaNative.postSrqRecv(0, out)));
        cases.put("destroySrq", () -> throwsIo(() -> RdmaNative.destroySrq(0)));
        cases.put("armSrqLimit", () -> throwsIo(() -> RdmaNative.armSrqLimit(0, 1)));
        cases.put("getAsyncEvent", () -> throwsIo(() -> RdmaNative.getAsyncEvent(0, 0, out)));
        cases.put("queryQpState", () -> throwsIo(() -> RdmaNative.queryQpState(0)));
        cases.put("setTypeOfService", () -> throwsIo(() -> RdmaNative.setTypeOfService(0, 0)));
        cases.put("setAddressFamilyOnly", () -> throwsIo(() -> RdmaNative.setAddressFamilyOnly(0, true)));
        cases.put("queryQpTrafficClass", () -> throwsIo(() -> RdmaNative.queryQpTrafficClass(0)));
        cases.put("modifyQpToError", () -> throwsIo(() -> RdmaNative.modifyQpToError(0)));
        cases.put("queryDevice", () -> throwsIo(() -> RdmaNative.queryDevice(0, out)));
        cases.put("deviceName", () -> throwsIo(() -> RdmaNative.deviceName(0)));
        cases.put("allocMw", () -> throwsIo(() -> RdmaNative.allocMw(0)));
        cases.put("mwRkey", () -> throwsIo(() -> RdmaNative.mwRkey(0)));
        cases.put("deallocMw", () -> throwsIo(() -> RdmaNative.deallocMw(0)));
        cases.put("postBindMw", () -> throwsIo(() -> RdmaNative.postBindMw(0, 7, true, 0, 0x101, 0, out, 64,
                IBV_ACCESS_REMOTE_WRITE)));
        cases.put("allocateMemory", () -> throwsIo(() -> RdmaNative.allocateMemory(0)));
        cases.put("freeMemory", () -> RdmaNative.freeMemory(0));
        cases.put("abandonContext", () -> throwsIo(() -> RdmaNative.abandonContext(0)));

        assertEquals(nativeMethodNames(RdmaNative.class), new TreeSet<>(cases.keySet()));
        return cases.entrySet().stream().map(e -> DynamicTest.dynamicTest(e.getKey(), e.getValue()));
    }

    @Test
    void theLoaderNativesAnswer() {
        assertEquals(NativeLibrary.ABI_VERSION, NativeLibrary.abiVersion());
        assertEquals(Set.of("abiVersion", "exportGlobally"), nativeMethodNames(NativeLibrary.class));
        assertEquals(Set.of("newDispatcher"), nativeMethodNames(DisniNative.class));
    }

    @Test
    void zeroHandleMessagesNameTheOperation() {
        IOException e = assertThrows(IOException.class, () -> dispatcher._bindAddr(0, scratchAddress));
        assertEquals("rdma_bind_addr failed: rdma_cm_id handle is 0", e.getMessage());
        e = assertThrows(IOException.class, () -> RdmaNative.createQp(1, 1, 1, 1, 0, 0));
        assertEquals("rdma_create_qp failed: QP cap record handle is 0", e.getMessage());
        e = assertThrows(IOException.class, () -> RdmaNative.getAsyncEvent(1, 0, 0));
        assertEquals("ibv_get_async_event failed: event record handle is 0", e.getMessage());
        e = assertThrows(IOException.class, () -> RdmaNative.armSrqLimit(0, 1));
        assertEquals("ibv_modify_srq failed: ibv_srq handle is 0", e.getMessage());
    }

    @Test
    void allocateMemoryIsDirectPageAlignedAndZeroed() throws IOException {
        ByteBuffer memory = RdmaNative.allocateMemory(5000);
        long address = RdmaNative.directBufferAddress(memory);
        try {
            assertTrue(memory.isDirect());
            assertEquals(5000, memory.capacity());
            assertEquals(0, address % 4096);
            for (int i = 0; i < memory.capacity(); i++) {
                assertEquals(0, memory.get(i), "byte " + i);
            }
            memory.put(4999, (byte) 7);
            assertEquals(7, memory.get(4999));
        } finally {
            RdmaNative.freeMemory(address);
        }
        IOException e = assertThrows(IOException.class, () -> RdmaNative.allocateMemory(-1));
        assertEquals("posix_memalign failed: Invalid argument (errno 22)", e.getMessage());
    }

    /**
     * A bind the device would fail asynchronously (taking the QP down) is refused at the call. The
     * window is a {@code struct ibv_mw} image, and the qp and mr handles are 1: the checks must come
     * before anything is posted.
     */
    @Test
    void postBindMwRefusesKeysTheDeviceWouldRefuse() throws IOException {
        ByteBuffer image = RdmaNative.allocateMemory(64).order(ByteOrder.nativeOrder());
        long mw = RdmaNative.directBufferAddress(image);
        try {
            image.putInt(IBV_MW_RKEY_OFFSET, 0x12345601);
            image.putInt(IBV_MW_TYPE_OFFSET, IBV_MW_TYPE_2);
            assertEquals(0x12345601, RdmaNative.mwRkey(mw));
            String invalid = "ibv_post_send(IBV_WR_BIND_MW) failed: Invalid argument (errno 22)";
            // The same key byte again, another window's index, a negative length.
            assertEquals(invalid, bindFails(mw, 0x12345601, 64));
            assertEquals(invalid, bindFails(mw, 0x12345702, 64));
            assertEquals(invalid, bindFails(mw, 0x12345602, -1));
            image.putInt(IBV_MW_TYPE_OFFSET, IBV_MW_TYPE_1);
            assertEquals("ibv_post_send(IBV_WR_BIND_MW) failed: not a type-2 memory window",
                    bindFails(mw, 0x12345602, 64));
            assertEquals(0x12345601, RdmaNative.mwRkey(mw), "a refused bind leaves the key alone");
        } finally {
            RdmaNative.freeMemory(mw);
        }
    }

    private static String bindFails(long mw, int rkey, long length) {
        return assertThrows(IOException.class, () -> RdmaNative.postBindMw(1, 7, true, mw, rkey, 1,
                scratchAddress, length, IBV_ACCESS_REMOTE_WRITE)).getMessage();
    }

    @Test
    void zeroOutSlotsLeaveCmEventsUntaken() {
        // An event taken from the channel could not be written anywhere, so none is taken.
        assertEquals(-1, dispatcher._getCmEvent(1, 0, scratchAddress, 0));
        assertEquals(-1, dispatcher._getCmEvent(1, scratchAddress, 0, 0));
    }

    @Test
    void modifyQpIsRefusedInsteadOfSendingGarbage() {
        // DiSNI passed an uninitialised ibv_qp_attr to the kernel; a non-zero handle must not be
        // dereferenced at all on this path.
        IOException e = assertThrows(IOException.class, () -> dispatcher._modifyQP(1, 0));
        assertEquals("ibv_modify_qp failed: modify QP not supported", e.getMessage());
    }

    @Test
    void pollCqWithoutRoomReturnsZero() throws IOException {
        assertEquals(0, dispatcher._pollCQ(1, 0, scratchAddress));
    }

    @Test
    void createEventChannelFailsWithoutRdmaDevice() throws IOException {
        assumeFalse(hasRdmaDevice(), "this host has an RDMA device");
        createEventChannelMatchesHost();
    }

    /** Runs only where an RDMA device exists (the rxe VM): the channel is usable and non-blocking. */
    @Test
    void eventChannelIsNonBlocking() throws IOException {
        assumeTrue(hasRdmaDevice(), "needs an RDMA device (/dev/infiniband/rdma_cm and /sys/class/infiniband)");
        long channel = dispatcher._createEventChannel();
        try {
            assertTrue(channel > 0);
            assertTrue(RdmaNative.eventChannelFd(channel) >= 0);
            // Non-blocking: an empty channel answers at once instead of hanging the test.
            assertEquals(-1, RdmaNative.pollCmEvent(channel, scratchAddress));
            assertEquals(-1, dispatcher._getCmEvent(channel, scratchAddress, scratchAddress + 8, 0));
            long id = dispatcher._createId(channel, RDMA_PS_TCP);
            assertTrue(id > 0);
            assertEquals(-1, dispatcher._getContext(id), "an unbound id has no device");
            assertEquals(-1, dispatcher._getSrcAddr(id, scratchAddress), "an unbound id has no address");
            assertThrows(IOException.class, () -> dispatcher._connect(id, 7, 7, 0, (byte) 0));
            assertEquals(0, dispatcher._destroyCmId(id));
        } finally {
            assertEquals(0, dispatcher._destroyEventChannel(channel));
        }
    }

    @Test
    void nativeAffinityRoundTrip() throws InterruptedException {
        // On a thread of its own, so the pinning cannot leak into other tests.
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread = new Thread(() -> {
            try {
                long mask = NativeAffinity.getAffinity();
                assertNotEquals(0L, mask);
                long single = Long.lowestOneBit(mask);
                NativeAffinity.setAffinity(single);
                assertEquals(single, NativeAffinity.getAffinity());
                NativeAffinity.setAffinity(mask);
                assertEquals(mask, NativeAffinity.getAffinity());
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "affinity-test");
        thread.start();
        thread.join();
        assertNull(failure.get(), () -> String.valueOf(failure.get()));
    }

    /** Without a device (as on the build host) an IOException, not a crash; with one, a channel. */
    private static void createEventChannelMatchesHost() throws IOException {
        if (hasRdmaDevice()) {
            long channel = dispatcher._createEventChannel();
            assertTrue(channel > 0);
            assertEquals(0, dispatcher._destroyEventChannel(channel));
        } else {
            IOException e = assertThrows(IOException.class, dispatcher::_createEventChannel);
            assertTrue(e.getMessage().startsWith("rdma_create_event_channel failed: "), e.getMessage());
        }
    }

    private static boolean hasRdmaDevice() {
        String[] devices = new File("/sys/class/infiniband").list();
        return new File("/dev/infiniband/rdma_cm").exists() && devices != null && devices.length > 0;
    }

    private static void throwsIo(Executable call) {
        assertThrows(IOException.class, call);
    }

    private static Set<String> nativeMethodNames(Class<?> type) {
        return Arrays.stream(type.getDeclaredMethods())
                .filter(m -> Modifier.isNative(m.getModifiers()))
                .map(Method::getName)
                .collect(Collectors.toCollection(TreeSet::new));
    }
}
