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
import java.net.InetAddress;
import java.net.InetSocketAddress;

import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import org.nettyrdma.channel.rdma.internal.RdmaNative;

/**
 * The passive side of a raw-verbs benchmark's connections ({@link VerbsPingPong}, {@link VerbsWriteStream},
 * {@link IsolationCost}): an RDMA CM id listening on an address of the RDMA device, on a port the system
 * picks, which hands out connect requests one at a time, as {@link VerbsQueuePair}s or as bare ids. The
 * role that takes one ({@link VerbsPeer#accept}, {@link VerbsWriteSink}, {@link IsolationTarget}) posts
 * its receives, then accepts. Used by one thread at a time.
 */
final class VerbsListener implements AutoCloseable {

    private final RdmaEventChannel cmChannel;
    private final RdmaCmId id;

    private VerbsListener(RdmaEventChannel cmChannel, RdmaCmId id) {
        this.cmChannel = cmChannel;
        this.id = id;
    }

    /** Listens on {@code host}, on a port of the system's choice, for one connect request at a time. */
    static VerbsListener listen(InetAddress host) throws IOException {
        return listen(host, 1);
    }

    /** Listens on {@code host}, on a port of the system's choice, with room for {@code backlog} requests. */
    static VerbsListener listen(InetAddress host, int backlog) throws IOException {
        RdmaEventChannel cmChannel = RdmaEventChannel.createEventChannel();
        RdmaCmId id = cmChannel.createId(RdmaCm.RDMA_PS_TCP);
        id.bindAddr(new InetSocketAddress(host, 0));
        id.listen(backlog);
        return new VerbsListener(cmChannel, id);
    }

    /** Returns the address and port the listener is bound to. */
    InetSocketAddress address() throws IOException {
        return (InetSocketAddress) id.getSource();
    }

    /** Returns the verbs context of the device the listener is bound to. */
    IbvContext context() throws IOException {
        return id.getVerbs();
    }

    /**
     * Waits for the next connect request and returns its end, not yet accepted: the caller posts its
     * receives, then calls {@link VerbsQueuePair#accept()}. The arguments are those of
     * {@link VerbsQueuePair#resolve}.
     */
    VerbsQueuePair nextRequest(int sendDepth, int receiveDepth, int maxInline, int pollBatch) throws IOException {
        RdmaCmId child = nextRequestId();
        // The new id's events come on the listener's channel; on a channel of its own, the end that owns
        // it can wait for its disconnect without knowing about the listener (DiSNI has no rdma_migrate_id).
        RdmaEventChannel childChannel = RdmaEventChannel.createEventChannel();
        RdmaNative.migrateId(Verbs.handle(child), Verbs.handle(childChannel));
        return new VerbsQueuePair(childChannel, child, sendDepth, receiveDepth, maxInline, pollBatch);
    }

    /**
     * Waits for the next connect request and returns its id, not yet accepted, whose later events
     * ({@link #expect}) come on this listener's channel.
     */
    RdmaCmId nextRequestId() throws IOException {
        return VerbsQueuePair.expect(cmChannel, RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_REQUEST).getConnIdPriv();
    }

    /** Waits for the next event on this listener's channel, which must be of {@code type}. */
    void expect(RdmaCmEvent.EventType type) throws IOException {
        VerbsQueuePair.expect(cmChannel, type);
    }

    /** Destroys the listening id and its event channel; every accepted end must be closed first. */
    @Override
    public void close() throws IOException {
        int destroyed = id.destroyId();
        int channelDestroyed = cmChannel.destroyEventChannel();
        if (destroyed != 0 || channelDestroyed != 0) {
            throw new IOException("rdma_destroy_id: " + destroyed + ", rdma_destroy_event_channel: "
                    + channelDestroyed);
        }
    }
}
