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

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.nettyrdma.channel.rdma.verbs.ConnectedPair.handle;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvWC;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.nettyrdma.channel.rdma.internal.DisniNative;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.testkit.DeviceResources;
import org.nettyrdma.testkit.RdmaTestEnvironment;

/**
 * A type-2 memory window as the isolation of one connection's receive ring from the other
 * connections of a shared PD, on raw verbs: the ring is registered without remote access and made
 * writable only through a window bound to one QP.
 *
 * <p>Each refused Write is printed with what both sides saw (the writer's completion, both QPs'
 * states, the target's completions, any CM event), since that is what a transport has to handle.
 */
class MemoryWindowTest {

    private static final int QP_STATE_INIT = 1;
    private static final int QP_STATE_RTS = 3;
    private static final int QP_STATE_ERR = 6;
    private static final int WC_BIND_MW = 5;
    private static final int WC_RECV_RDMA_WITH_IMM = 129;
    /** The ring's registration: local writes and windows over it, no remote access of its own. */
    private static final int RING_ACCESS = IbvMr.IBV_ACCESS_LOCAL_WRITE | RdmaNative.ACCESS_MW_BIND;
    private static final int RING_SIZE = 256 * 1024;
    private static final int WINDOW_OFFSET = 64 * 1024;
    private static final int WINDOW_LENGTH = 64 * 1024;
    private static final int LENGTH = 8192;
    private static final int SOURCE = 0;

    @BeforeEach
    void requireDevice() {
        RdmaTestEnvironment.assumeDevice();
    }

    /** (a) Without REMOTE_WRITE the ring's own rkey opens nothing: only a window can. */
    @Test
    void ringRegisteredWithoutRemoteWriteRefusesItsOwnRkey() throws Exception {
        try (ConnectedPair pair = ConnectedPair.connect(1);
             Ring ring = new Ring(pair.server.pd)) {
            byte[] before = ring.read(WINDOW_OFFSET, LENGTH);
            DataTransferTest.fill(pair.client.buffer, SOURCE, LENGTH, 1);
            pair.client.postWriteWithImmediate(21, SOURCE, LENGTH, ring.address(WINDOW_OFFSET), ring.mr.getRkey(), 21);

            assertRefused("(a) Write with the ring MR's own rkey", pair, pair.client.awaitCompletions(1).get(0));
            assertArrayEquals(before, ring.read(WINDOW_OFFSET, LENGTH), "the ring is unchanged");
        }
    }

    /**
     * Connection A's window takes A's peer's Writes; connection B, whose server side shares A's PD,
     * is refused with A's rkey and address, and A neither sees nor suffers anything of it. Freeing
     * the window then makes its rkey worthless to A's peer too.
     */
    @Test
    void windowAnswersOnlyThePeerOfItsQp() throws Exception {
        try (ConnectedPair a = ConnectedPair.connect(3);
             ConnectedPair b = ConnectedPair.connect(1, a.server.pd, ConnectedPair.ServerStep.NONE,
                     ConnectedPair.ServerStep.NONE);
             Ring ring = new Ring(a.server.pd)) {
            ring.allocateWindow();
            int rkey = ring.bind(a.server, 31, WINDOW_OFFSET, WINDOW_LENGTH);
            assertEquals(WC_BIND_MW, a.server.awaitSuccess(31).getOpcode());
            assertEquals(rkey, RdmaNative.mwRkey(ring.mw), "a posted bind sets the window's rkey");
            assertNotEquals(ring.mr.getRkey(), rkey);

            // (b) A's peer writes through the window.
            byte[] data = DataTransferTest.fill(a.client.buffer, SOURCE, LENGTH, 2);
            a.client.postWriteWithImmediate(32, SOURCE, LENGTH, ring.address(WINDOW_OFFSET), rkey, 0x32);
            a.client.awaitSuccess(32);
            IbvWC received = a.server.awaitSuccess(2000);
            assertEquals(WC_RECV_RDMA_WITH_IMM, received.getOpcode());
            assertEquals(0x32, received.getImm_data());
            assertArrayEquals(data, ring.read(WINDOW_OFFSET, LENGTH), "(b) the bytes landed in the window");

            // (c) B's peer, same address and rkey, another QP of the same PD.
            DataTransferTest.fill(b.client.buffer, SOURCE, LENGTH, 3);
            b.client.postWriteWithImmediate(33, SOURCE, LENGTH, ring.address(WINDOW_OFFSET), rkey, 0x33);
            assertRefused("(c) connection B writing with A's window rkey", b, b.client.awaitCompletions(1).get(0));
            assertArrayEquals(data, ring.read(WINDOW_OFFSET, LENGTH), "A's bytes are unchanged");
            System.out.println("(c) meanwhile on A: " + describe(a, List.of()));
            assertEquals(QP_STATE_RTS, a.server.qpState(), "A's server QP");
            assertEquals(QP_STATE_RTS, a.client.qpState(), "A's client QP");
            assertEquals(List.of(), a.server.pollOnce(), "A's server saw no completion");

            byte[] more = DataTransferTest.fill(a.client.buffer, SOURCE, LENGTH, 4);
            a.client.postWriteWithImmediate(34, SOURCE, LENGTH, ring.address(WINDOW_OFFSET + LENGTH), rkey, 0x34);
            a.client.awaitSuccess(34);
            assertEquals(0x34, a.server.awaitSuccess(2001).getImm_data());
            assertArrayEquals(more, ring.read(WINDOW_OFFSET + LENGTH, LENGTH), "A keeps working");

            // (e) A freed window's rkey is refused, also to the peer it was bound for.
            ring.deallocateWindow();
            DataTransferTest.fill(a.client.buffer, SOURCE, LENGTH, 5);
            a.client.postWriteWithImmediate(35, SOURCE, LENGTH, ring.address(WINDOW_OFFSET), rkey, 0x35);
            assertRefused("(e) A's peer writing after deallocMw", a, a.client.awaitCompletions(1).get(0));
            assertArrayEquals(data, ring.read(WINDOW_OFFSET, LENGTH), "the ring is unchanged");
        }
    }

    /**
     * (d) What bounds a Write through a window, here one over the second half of the ring's MR. Past the
     * MR's end, or across it, the Write is refused. Inside the MR but before the window, rxe takes it:
     * its responder checks the range of the MR under a window, not the window's own, so on rxe a window
     * confines a peer to the QP it is bound to, not to part of an MR. The transport's ring is one MR of
     * its own with the window over all of it, which this does not weaken.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(OutsideWrite.class)
    void writeOutsideTheWindow(OutsideWrite write) throws Exception {
        try (ConnectedPair pair = ConnectedPair.connect(1);
             Ring ring = new Ring(pair.server.pd)) {
            ring.allocateWindow();
            int rkey = ring.bind(pair.server, 41, RING_SIZE / 2, RING_SIZE / 2);
            pair.server.awaitSuccess(41);
            byte[] before = ring.read(0, RING_SIZE);
            byte[] data = DataTransferTest.fill(pair.client.buffer, SOURCE, LENGTH, 6);
            pair.client.postWriteWithImmediate(42, SOURCE, LENGTH, ring.address(write.offset), rkey, 0x42);
            IbvWC wc = pair.client.awaitCompletions(1).get(0);

            boolean rxe = RdmaNative.deviceName(handle(pair.server.id.getVerbs())).startsWith("rxe");
            if (write == OutsideWrite.INSIDE_THE_MR_BEFORE_THE_WINDOW && rxe) {
                System.out.println("(d) " + write + " on rxe: writer " + describe(List.of(wc)) + "; "
                        + describe(pair, pair.server.pollOnce()));
                assertEquals(WcStatus.SUCCESS.ordinal(), wc.getStatus(), "rxe checks the MR's range, not the"
                        + " window's: if it now refuses, windows may cover part of an MR");
                assertArrayEquals(data, ring.read(write.offset, LENGTH));
            } else {
                assertRefused("(d) " + write, pair, wc);
                assertArrayEquals(before, ring.read(0, RING_SIZE), "the ring is unchanged");
            }
        }
    }

    /** Where {@link #writeOutsideTheWindow} writes {@link #LENGTH} bytes, by offset in the ring. */
    enum OutsideWrite {
        INSIDE_THE_MR_BEFORE_THE_WINDOW(RING_SIZE / 2 - LENGTH),
        ACROSS_THE_END_OF_THE_MR(RING_SIZE - LENGTH / 2),
        PAST_THE_END_OF_THE_MR(RING_SIZE);

        final int offset;

        OutsideWrite(int offset) {
            this.offset = offset;
        }
    }

    /**
     * (f) A bind is refused while the QP is not ready to send and works from the moment
     * {@code rdma_accept} returns (the passive side's QP is then in RTS, before its ESTABLISHED); then
     * the teardown that frees everything: the window first, while its QP and its MR still exist. rxe
     * refuses to deregister an MR under a bound window; and destroying the QP under a bound window
     * (not done here) holds {@code ibv_destroy_qp} until the kernel's wait for the window's reference
     * on the QP times out, with a warning from {@code __rxe_cleanup}, although everything is freed in
     * the end.
     */
    @Test
    void bindOnceTheQpCanSendAndFreeTheWindowFirst() throws Exception {
        Map<String, Integer> before = DeviceResources.kernelCounts();
        Ring[] rings = new Ring[1];
        try (ConnectedPair pair = ConnectedPair.connect(2, null, server -> {
            Ring ring = new Ring(server.pd);
            rings[0] = ring;
            ring.allocateWindow();
            assertEquals(QP_STATE_INIT, server.qpState());
            IOException early = assertThrows(IOException.class,
                    () -> ring.bind(server, 51, 0, RING_SIZE));
            System.out.println("(f) bind before rdma_accept, QP in INIT: " + early.getMessage());
            assertTrue(early.getMessage().contains("not ready to send"), early.getMessage());
        }, server -> {
            assertEquals(QP_STATE_RTS, server.qpState(), "the passive side's QP once rdma_accept returned");
            int rkey = rings[0].bind(server, 52, 0, RING_SIZE);
            System.out.println("(f) bind right after rdma_accept, QP in RTS: posted, rkey " + hex(rkey));
        })) {
            Ring ring = rings[0];
            try {
                IbvWC bound = pair.server.awaitSuccess(52);
                assertEquals(WC_BIND_MW, bound.getOpcode());
                Thread.sleep(100);
                assertEquals(List.of(), pair.server.pollOnce(), "nothing but the bind completed");

                byte[] data = DataTransferTest.fill(pair.client.buffer, SOURCE, LENGTH, 7);
                pair.client.postWriteWithImmediate(53, SOURCE, LENGTH, ring.address(0), RdmaNative.mwRkey(ring.mw),
                        0x53);
                pair.client.awaitSuccess(53);
                assertEquals(0x53, pair.server.awaitSuccess(2000).getImm_data());
                assertArrayEquals(data, ring.read(0, LENGTH));

                // The dispatcher's call, not DiSNI's IbvMr: that one counts itself closed even when refused.
                IOException busy = assertThrows(IOException.class,
                        () -> DisniNative.dispatcher()._deregMr(handle(ring.mr)));
                System.out.println("(f) deregistering the MR under a bound window: " + busy.getMessage());
                ring.deallocateWindow();
                assertEquals(QP_STATE_RTS, pair.server.qpState(), "freeing the window leaves the QP alone");
            } finally {
                ring.close();
            }
        }
        Map<String, Integer> after = DeviceResources.kernelCounts();
        System.out.println("(f) rdma resource show, before the test " + before + ", after it " + after
                + " (windows are not counted there: the PD's deallocation, refused while one is left, stands"
                + " for them)");
        assertEquals(before, after, "verbs objects left on the device");
    }

    /**
     * Prints what both sides of {@code pair} saw after the client's Write came back with
     * {@code wc}, and asserts that it was refused as a remote access error.
     */
    private static void assertRefused(String what, ConnectedPair pair, IbvWC wc) throws Exception {
        // The writer's completion arrives after the target answered; a moment more lets the target's
        // own completions and any CM event surface.
        Thread.sleep(200);
        System.out.println(what + ": writer " + describe(List.of(wc)) + "; " + describe(pair, pair.server.pollOnce()));
        assertEquals(WcStatus.REM_ACCESS_ERR.ordinal(), wc.getStatus(),
                () -> "status " + WcStatus.name(wc.getStatus()));
        assertEquals(QP_STATE_ERR, pair.client.qpState(), "the writer's QP is in the error state");
    }

    private static String describe(ConnectedPair pair, List<IbvWC> targetCompletions) throws IOException {
        List<String> events = new ArrayList<>();
        for (CmEventReader reader : List.of(pair.clientEvents, pair.serverEvents)) {
            for (CmEvent event = reader.poll(); event != null; event = reader.poll()) {
                events.add((reader == pair.clientEvents ? "client " : "server ") + event);
            }
        }
        return "writer QP state " + pair.client.qpState() + ", target QP state " + pair.server.qpState()
                + ", target completions " + describe(targetCompletions) + ", CM events " + events;
    }

    private static String describe(List<IbvWC> completions) {
        List<String> parts = new ArrayList<>();
        for (IbvWC wc : completions) {
            // Only these: DiSNI's poll copies the other fields from successful completions alone.
            parts.add("{wr_id " + wc.getWr_id() + ' ' + WcStatus.name(wc.getStatus())
                    + (wc.getStatus() == 0 ? " opcode " + wc.getOpcode() : "") + '}');
        }
        return parts.toString();
    }

    private static String hex(int value) {
        return "0x" + Integer.toHexString(value);
    }

    /**
     * A receive ring as the transport would hold it: native memory freed when the ring closes,
     * registered {@link #RING_ACCESS} in a connection's PD, and at most one type-2 window over it.
     * Closing frees the window, then the MR, then the memory.
     */
    private static final class Ring implements AutoCloseable {
        final IbvPd pd;
        final ByteBuffer memory;
        final long address;
        final IbvMr mr;
        long mw;

        Ring(IbvPd pd) throws IOException {
            this.pd = pd;
            memory = RdmaNative.allocateMemory(RING_SIZE);
            address = MemoryUtils.getAddress(memory);
            mr = pd.regMr(memory, RING_ACCESS).execute().free().getMr();
        }

        long address(int offset) {
            return address + offset;
        }

        byte[] read(int offset, int length) {
            return DataTransferTest.read(memory, offset, length);
        }

        void allocateWindow() throws IOException {
            mw = RdmaNative.allocMw(handle(pd));
        }

        /** Posts a signaled bind of the window on {@code endpoint}'s QP; returns the window's new rkey. */
        int bind(VerbsEndpoint endpoint, long wrId, int offset, int length) throws IOException {
            int current = RdmaNative.mwRkey(mw);
            // ibv_inc_rkey: only the low byte is the consumer's.
            int rkey = (current & 0xffff_ff00) | ((current + 1) & 0xff);
            RdmaNative.postBindMw(handle(endpoint.qp), wrId, true, mw, rkey, handle(mr), address(offset), length,
                    IbvMr.IBV_ACCESS_REMOTE_WRITE);
            return rkey;
        }

        void deallocateWindow() throws IOException {
            long window = mw;
            mw = 0;
            if (window != 0) {
                RdmaNative.deallocMw(window);
            }
        }

        @Override
        public void close() throws IOException {
            try {
                deallocateWindow();
                mr.deregMr().execute().free();
            } finally {
                RdmaNative.freeMemory(address);
            }
        }
    }
}
