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

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import com.ibm.disni.verbs.RdmaEventChannel;

/**
 * Peers that connect to a server over RDMA CM and then never say a word: what a stranger does to
 * hold a server's resources. Each has its own event channel, id and queue pair; they share one
 * protection domain and one completion queue, since they post nothing.
 *
 * <p>Used from the test thread only; every wait has a deadline.
 */
public final class SilentPeers implements AutoCloseable {

    private final List<Peer> peers = new ArrayList<>();
    private IbvPd pd;
    private IbvCompChannel completionChannel;
    private IbvCQ cq;

    private static final class Peer {
        final RdmaEventChannel channel;
        final CmEventReader events;
        final RdmaCmId id;
        boolean disconnected;

        Peer(RdmaEventChannel channel) throws Exception {
            this.channel = channel;
            this.events = new CmEventReader(channel);
            this.id = channel.createId(RdmaCm.RDMA_PS_TCP);
        }
    }

    private SilentPeers() {
    }

    /** Connects {@code count} silent peers to {@code server}, one after the other; returns once all are established. */
    public static SilentPeers connect(InetSocketAddress server, int count) throws Exception {
        SilentPeers silent = new SilentPeers();
        try {
            for (int i = 0; i < count; i++) {
                silent.connectOne(server);
            }
        } catch (Throwable t) {
            try {
                silent.close();
            } catch (Throwable suppressed) {
                t.addSuppressed(suppressed);
            }
            throw t;
        }
        return silent;
    }

    private void connectOne(InetSocketAddress server) throws Exception {
        Peer peer = new Peer(RdmaEventChannel.createEventChannel());
        peers.add(peer);
        peer.id.resolveAddr(null, server, 2000);
        peer.events.expect(RdmaCmEventType.ADDR_RESOLVED);
        peer.id.resolveRoute(2000);
        peer.events.expect(RdmaCmEventType.ROUTE_RESOLVED);
        if (pd == null) {
            IbvContext context = peer.id.getVerbs();
            pd = context.allocPd();
            completionChannel = context.createCompChannel();
            cq = context.createCQ(completionChannel, 16, 0);
        }
        IbvQPInitAttr attr = new IbvQPInitAttr();
        attr.cap().setMax_send_wr(1);
        attr.cap().setMax_recv_wr(1);
        attr.cap().setMax_send_sge(1);
        attr.cap().setMax_recv_sge(1);
        attr.setQp_type(IbvQP.IBV_QPT_RC);
        attr.setSend_cq(cq);
        attr.setRecv_cq(cq);
        peer.id.createQP(pd, attr);
        RdmaConnParam connect = new RdmaConnParam();
        connect.setRetry_count(ConnectedPair.RETRY_COUNT);
        connect.setRnr_retry_count(ConnectedPair.RNR_RETRY_COUNT);
        peer.id.connect(connect);
        peer.events.expect(RdmaCmEventType.ESTABLISHED);
    }

    /** Returns how many peers the server has disconnected so far (without waiting). */
    public int disconnected() throws Exception {
        int count = 0;
        for (Peer peer : peers) {
            if (!peer.disconnected) {
                CmEvent event = peer.events.poll();
                if (event != null && event.type() == RdmaCmEventType.DISCONNECTED.ordinal()) {
                    peer.disconnected = true;
                } else if (event != null) {
                    throw new AssertionError("a silent peer got " + event + " (expected: DISCONNECTED)");
                }
            }
            if (peer.disconnected) {
                count++;
            }
        }
        return count;
    }

    /** Waits until the server has disconnected every peer. */
    public void awaitAllDisconnected(long timeout, TimeUnit unit) throws Exception {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        int count;
        while ((count = disconnected()) < peers.size()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(count + " of " + peers.size() + " silent peers were disconnected within "
                        + timeout + ' ' + unit);
            }
            Thread.sleep(20);
        }
    }

    /** Returns the number of peers. */
    public int size() {
        return peers.size();
    }

    /** Frees every peer's verbs objects, asserting each destroy succeeded. */
    @Override
    public void close() throws Exception {
        for (Peer peer : peers) {
            if (!peer.disconnected) {
                peer.id.disconnect();
            }
            if (peer.id.getQp() != null) {
                assertEquals(0, peer.id.destroyQP(), "destroy QP");
            }
            assertEquals(0, peer.id.destroyId(), "destroy id");
            assertEquals(0, peer.channel.destroyEventChannel(), "destroy event channel");
        }
        peers.clear();
        if (pd != null) {
            assertEquals(0, cq.destroyCQ(), "destroy CQ");
            assertEquals(0, completionChannel.destroyCompChannel(), "destroy completion channel");
            assertEquals(0, pd.deallocPd(), "deallocate PD");
            pd = null;
        }
    }
}
