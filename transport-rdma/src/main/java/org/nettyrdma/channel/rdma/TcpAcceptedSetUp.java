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
package org.nettyrdma.channel.rdma;

import org.nettyrdma.channel.rdma.internal.CmEvent;

/**
 * The set-up of a channel a server accepted over TCP ({@link TcpListener}): connected already, with
 * no RDMA CM id and no registered memory; it holds its place among the server's connections from its
 * address ({@link Admission}) until it is closed.
 *
 * <p>Threading: the channel's event loop only.
 */
final class TcpAcceptedSetUp extends ConnectionSetUp {

    private final Admission.Ticket admission;

    TcpAcceptedSetUp(RdmaSocketChannel channel, Admission.Ticket admission) {
        super(channel);
        this.admission = admission;
    }

    @Override
    boolean answersHello() {
        return true;
    }

    @Override
    void setUpEvent(CmEvent event) {
        // A TCP-carried channel has no RDMA CM id, so no event of one reaches it.
    }

    @Override
    void closeFinished() {
        admission.release();
    }
}
