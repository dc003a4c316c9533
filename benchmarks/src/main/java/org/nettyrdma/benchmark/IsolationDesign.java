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

import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import org.nettyrdma.channel.rdma.internal.RdmaNative;

/**
 * The two ways {@link IsolationCost} compares of keeping a connection's receive ring out of the other
 * connections' reach, in the order the tables show them; each says where a connection's registrations
 * go and how its peer gets in.
 */
enum IsolationDesign {

    /**
     * One PD per device; the ring is registered without remote access, and a type-2 memory window bound
     * to the connection's QP is the only way in, for that QP's peer only.
     */
    WINDOW("(i) window", "3 reg_mr + alloc_mw + bind") {
        @Override
        IbvPd protectionDomain(IsolationServer server) {
            return server.sharedPd;
        }

        @Override
        int ringAccess() {
            return IbvMr.IBV_ACCESS_LOCAL_WRITE | RdmaNative.ACCESS_MW_BIND;
        }

        @Override
        long ownVerbs(IsolationSetUp setUp) {
            return setUp.registrations() + setUp.allocMw() + setUp.bind();
        }
    },

    /**
     * A PD per connection: the connection's ring, receive slots and send buffer are registered in a PD of
     * its own, and so must be every slab of the shared send pool that the connection sends from.
     */
    PD_PER_CONNECTION("(ii) PD per connection", "alloc_pd + 3 reg_mr + create QP") {
        @Override
        IbvPd protectionDomain(IsolationServer server) throws IOException {
            return server.context.allocPd();
        }

        @Override
        int ringAccess() {
            return IbvMr.IBV_ACCESS_LOCAL_WRITE | IbvMr.IBV_ACCESS_REMOTE_WRITE;
        }

        @Override
        long ownVerbs(IsolationSetUp setUp) {
            return setUp.allocPd() + setUp.registrations() + setUp.createQp();
        }
    };

    /** The design's name in the tables. */
    final String label;
    /** The verbs of a connection's set-up that differ between the designs, as the tables name them. */
    final String ownVerbsLabel;

    IsolationDesign(String label, String ownVerbsLabel) {
        this.label = label;
        this.ownVerbsLabel = ownVerbsLabel;
    }

    /** Returns the designs in the order round {@code round} measures them: alternating, the first round as listed. */
    static IsolationDesign[] order(int round) {
        return round % 2 == 1 ? values() : new IsolationDesign[] {PD_PER_CONNECTION, WINDOW};
    }

    /** Returns the PD a new connection's registrations and QP go in: the server's shared one, or a new one. */
    abstract IbvPd protectionDomain(IsolationServer server) throws IOException;

    /** Returns {@code true} if the connection's PD is its own, to be deallocated with it. */
    boolean ownsProtectionDomain() {
        return this == PD_PER_CONNECTION;
    }

    /** Returns {@code true} if the peer writes through a window bound over the ring rather than the ring's MR. */
    boolean bindsWindow() {
        return this == WINDOW;
    }

    /** Returns the access flags of the ring's MR: the window design's ring has no remote access of its own. */
    abstract int ringAccess();

    /** Returns the nanoseconds {@code setUp} spent in the verbs {@link #ownVerbsLabel} names. */
    abstract long ownVerbs(IsolationSetUp setUp);
}
