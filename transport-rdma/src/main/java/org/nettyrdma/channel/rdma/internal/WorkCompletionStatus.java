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
 * Names the status of a failed work completion ({@code enum ibv_wc_status}) for the exception a
 * channel closes with, and says in a few words what it means for the connection.
 */
public final class WorkCompletionStatus {

    /** {@code IBV_WC_SUCCESS}. */
    public static final int SUCCESS = 0;
    /** {@code IBV_WC_LOC_LEN_ERR}: a received message did not fit the receive it landed in. */
    public static final int LOC_LEN_ERR = 1;
    /**
     * {@code IBV_WC_LOC_QP_OP_ERR}: the request failed on this side's queue pair; on iWARP, also a send
     * whose TCP connection the peer reset.
     */
    public static final int LOC_QP_OP_ERR = 2;
    /** {@code IBV_WC_WR_FLUSH_ERR}: the queue pair went to the error state before the request ran. */
    public static final int WR_FLUSH_ERR = 5;
    /** {@code IBV_WC_REM_ACCESS_ERR}: an RDMA access was refused (a key or range not granted). */
    public static final int REM_ACCESS_ERR = 10;
    /**
     * {@code IBV_WC_REM_INV_REQ_ERR}: the responder refused a request as invalid; on a receive, the
     * peer's request (such as a Send with Invalidate naming a key this side's device would not invalidate).
     */
    public static final int REM_INV_REQ_ERR = 9;

    private static final String[] NAMES = {
        "IBV_WC_SUCCESS", "IBV_WC_LOC_LEN_ERR", "IBV_WC_LOC_QP_OP_ERR", "IBV_WC_LOC_EEC_OP_ERR",
        "IBV_WC_LOC_PROT_ERR", "IBV_WC_WR_FLUSH_ERR", "IBV_WC_MW_BIND_ERR", "IBV_WC_BAD_RESP_ERR",
        "IBV_WC_LOC_ACCESS_ERR", "IBV_WC_REM_INV_REQ_ERR", "IBV_WC_REM_ACCESS_ERR", "IBV_WC_REM_OP_ERR",
        "IBV_WC_RETRY_EXC_ERR", "IBV_WC_RNR_RETRY_EXC_ERR", "IBV_WC_LOC_RDD_VIOL_ERR",
        "IBV_WC_REM_INV_RD_REQ_ERR", "IBV_WC_REM_ABORT_ERR", "IBV_WC_INV_EECN_ERR", "IBV_WC_INV_EEC_STATE_ERR",
        "IBV_WC_FATAL_ERR", "IBV_WC_RESP_TIMEOUT_ERR", "IBV_WC_GENERAL_ERR"
    };

    private static final String[] MEANINGS = {
        "success", "local length error: a message larger than the receive it landed in",
        "local queue pair operation error", "local EE context operation error",
        "local protection error: a buffer outside this side's registered memory",
        "flushed: the queue pair was in the error state", "memory window bind error",
        "bad response from the peer", "local access error",
        "remote invalid request: the peer's device refused the request",
        "remote access error: an RDMA access was refused, with a key or range that was not granted",
        "remote operation error: the peer's device could not complete the request",
        "transport retries exhausted: the peer did not acknowledge (gone or unreachable)",
        "receiver-not-ready retries exhausted: the peer posted no receive",
        "local RDD violation", "remote invalid RD request", "remote abort", "invalid EE context number",
        "invalid EE context state", "fatal device error", "response timeout", "general error"
    };

    private WorkCompletionStatus() {
    }

    /** Returns the verbs name of {@code status}, for example {@code IBV_WC_REM_ACCESS_ERR}. */
    public static String name(int status) {
        return status >= 0 && status < NAMES.length ? NAMES[status] : "status " + status;
    }

    /** Returns what {@code status} means and its verbs name, for an exception's message. */
    public static String describe(int status) {
        String meaning = status >= 0 && status < MEANINGS.length ? MEANINGS[status] : "unknown status";
        return meaning + " (" + name(status) + ", " + status + ')';
    }
}
