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

/**
 * The retry counts a queue pair is connected with ({@code struct rdma_conn_param}): what the
 * transport passes to {@code rdma_connect} and {@code rdma_accept}, and what a raw-verbs peer that
 * wants to behave as the transport does passes too.
 */
public final class ConnectParameters {

    /**
     * RDMA CM transport retries before a work request fails with {@code RETRY_EXC_ERR}. Not 7: rxe
     * reads 7 as "retry for ever", so a send to a peer that vanished without a disconnect would never
     * fail. The accepting side's QP takes the connecting side's value from the connect request
     * (docs/decisions.md#retry-counts).
     */
    public static final int RETRY_COUNT = 6;
    /**
     * Receiver-not-ready retries before a Send fails with {@code RNR_RETRY_EXC_ERR}. Not 7, which means
     * retry for ever: a peer that credits receives it never posted would hold the connection without
     * end. A well-behaved peer never makes this side retry, since a slot is credited only once its
     * receive is posted (docs/decisions.md#retry-counts).
     */
    public static final int RNR_RETRY_COUNT = 6;

    private ConnectParameters() {
    }
}
