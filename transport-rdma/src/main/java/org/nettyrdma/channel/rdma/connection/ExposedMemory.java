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
package org.nettyrdma.channel.rdma.connection;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.Set;

import org.nettyrdma.channel.rdma.memory.ProtectionDomain;

/**
 * The memory a connection lets its peer reach by key: the connection's own protection domain, where
 * a key works on its queue pair alone, and the regions exposed in it, each revoked when the
 * connection closes if its holder has not revoked it before (docs/one-sided.md).
 *
 * <p>Threading: the channel's event loop only.
 */
public final class ExposedMemory {

    /** The connection's own protection domain; {@code null} in the device's shared one, where nothing is exposed. */
    private final ProtectionDomain ownPd;
    /** Revokes each region exposed and not yet revoked, in the order they were exposed. */
    private final Set<Runnable> regions = new LinkedHashSet<>();

    ExposedMemory(ProtectionDomain ownPd) {
        this.ownPd = ownPd;
    }

    /** Returns the connection's own protection domain, or {@code null} if it is in the device's shared one. */
    public ProtectionDomain ownProtectionDomain() {
        return ownPd;
    }

    /**
     * Counts an exposed region among those revoked when the connection closes: {@code revokeNow}
     * revokes it, and names it until {@link #revoked} forgets it.
     */
    public void exposed(Runnable revokeNow) {
        regions.add(revokeNow);
    }

    /** Forgets the region {@code revokeNow} revokes, revoked. */
    public void revoked(Runnable revokeNow) {
        regions.remove(revokeNow);
    }

    /**
     * Revokes every region still exposed and gives up the connection's hold on its protection domain,
     * which is freed once the receive queue and the blocks registered in it are gone too.
     */
    void close() {
        for (Runnable revokeNow : new ArrayList<>(regions)) {
            revokeNow.run();
        }
        if (ownPd != null) {
            ownPd.release();
        }
    }
}
