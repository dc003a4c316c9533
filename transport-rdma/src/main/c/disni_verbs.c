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

/*
 * DiSNI 2.1's 17 verbs natives (com.ibm.disni.verbs.impl.NativeDispatcher), written from
 * docs/native.md, "Verbs natives". Quoted section names below are that page's.
 *
 * Error codes ("Errors"): the ibv_* calls that return NULL report through errno; ibv_post_*,
 * ibv_dereg_mr, ibv_req_notify_cq, ibv_destroy_*, ibv_dealloc_pd and ibv_advise_mr return the
 * error number itself and may leave a stale errno, so their return value is what gets reported.
 */
#include "jni_util.h"

#include <errno.h>
#include <poll.h>
#include <infiniband/verbs.h>

DISNI_NATIVE(jlong, allocPd)(JNIEnv *env, jobject self NR_UNUSED, jlong context) {
    if (context == 0) {
        nr_throw_null(env, "ibv_alloc_pd", "ibv_context");
        return NR_NO_HANDLE;
    }
    struct ibv_pd *pd = ibv_alloc_pd(nr_ptr(context));
    if (pd == NULL) {
        nr_throw_errno(env, "ibv_alloc_pd", errno);
        return NR_NO_HANDLE;
    }
    return nr_handle(pd);
}

DISNI_NATIVE(jlong, createCompChannel)(JNIEnv *env, jobject self NR_UNUSED, jlong context) {
    if (context == 0) {
        nr_throw_null(env, "ibv_create_comp_channel", "ibv_context");
        return NR_NO_HANDLE;
    }
    struct ibv_comp_channel *channel = ibv_create_comp_channel(nr_ptr(context));
    if (channel == NULL) {
        nr_throw_errno(env, "ibv_create_comp_channel", errno);
        return NR_NO_HANDLE;
    }
    // Same reason as the CM channel: _getCqEvent polls then reads, and the event loop reads it too.
    int err = nr_set_nonblocking(channel->fd);
    if (err != 0) {
        ibv_destroy_comp_channel(channel);
        nr_throw_errno(env, "fcntl(O_NONBLOCK) on the completion channel", err);
        return NR_NO_HANDLE;
    }
    return nr_handle(channel);
}

DISNI_NATIVE(jlong, createCQ)(JNIEnv *env, jobject self NR_UNUSED, jlong context, jlong compChannel,
                              jint ncqe, jint comp_vector) {
    if (context == 0 || compChannel == 0) {
        // Every DiSNI CQ has a completion channel; a CQ without one could never raise an event.
        nr_throw_null(env, "ibv_create_cq", context == 0 ? "ibv_context" : "ibv_comp_channel");
        return NR_NO_HANDLE;
    }
    struct ibv_cq *cq = ibv_create_cq(nr_ptr(context), ncqe, NULL, nr_ptr(compChannel), comp_vector);
    if (cq == NULL) {
        nr_throw_errno(env, "ibv_create_cq", errno);
        return NR_NO_HANDLE;
    }
    return nr_handle(cq);
}

/*
 * Java always passes attr = 0 (IbvQpAttr is never serialised). DiSNI handed an uninitialised
 * attribute struct and mask to ibv_modify_qp ("Verbs natives"); rdma_cm drives every state transition
 * the Java stack needs, so this refuses instead of guessing.
 */
DISNI_NATIVE(jint, modifyQP)(JNIEnv *env, jobject self NR_UNUSED, jlong qp, jlong attr NR_UNUSED) {
    if (qp == 0) {
        nr_throw_null(env, "ibv_modify_qp", "ibv_qp");
        return -1;
    }
    nr_throw_msg(env, "ibv_modify_qp", "modify QP not supported");
    return -1;
}

DISNI_NATIVE(jlong, regMr)(JNIEnv *env, jobject self NR_UNUSED, jlong pd, jlong addr, jint len,
                           jint access, jlong lkey, jlong rkey, jlong handle) {
    if (pd == 0) {
        nr_throw_null(env, "ibv_reg_mr", "ibv_pd");
        return NR_NO_HANDLE;
    }
    // len is a signed Java int; a negative one would become an enormous size_t.
    if (len < 0 || lkey == 0 || rkey == 0 || handle == 0) {
        nr_throw_errno(env, "ibv_reg_mr", EINVAL);
        return NR_NO_HANDLE;
    }
    struct ibv_mr *mr = ibv_reg_mr(nr_ptr(pd), nr_ptr(addr), (size_t) len, access);
    if (mr == NULL) {
        // Typically ENOMEM: RLIMIT_MEMLOCK is smaller than the registered memory.
        nr_throw_errno(env, "ibv_reg_mr", errno);
        return NR_NO_HANDLE;
    }
    nr_put_u32(lkey, 0, mr->lkey);
    nr_put_u32(rkey, 0, mr->rkey);
    nr_put_u32(handle, 0, mr->handle);
    return nr_handle(mr);
}

/*
 * DiSNI built on rdma-core always answered -1 (its ODP code needed a Mellanox OFED header);
 * upstream ibv_query_device_ex reports the same capability bits ("Verbs natives").
 */
DISNI_NATIVE(jint, queryOdpSupport)(JNIEnv *env NR_UNUSED, jobject self NR_UNUSED, jlong context) {
    if (context == 0) {
        return -1;
    }
    struct ibv_device_attr_ex attr;
    memset(&attr, 0, sizeof(attr));
    if (ibv_query_device_ex(nr_ptr(context), NULL, &attr) != 0) {
        return -1;
    }
    if ((attr.odp_caps.general_caps & IBV_ODP_SUPPORT) == 0) {
        return -1;
    }
    return (jint) attr.odp_caps.per_transport_caps.rc_odp_caps;
}

/* Upstream ibv_advise_mr in place of DiSNI's OFED-only prefetch ("Verbs natives"). */
DISNI_NATIVE(jint, expPrefetchMr)(JNIEnv *env, jobject self NR_UNUSED, jlong handle, jlong addr,
                                  jint len) {
    struct ibv_mr *mr = nr_ptr(handle);
    if (mr == NULL || len < 0) {
        return -1;
    }
    struct ibv_sge sge = { .addr = (uint64_t) addr, .length = (uint32_t) len, .lkey = mr->lkey };
    // Flags 0: an asynchronous hint, as a prefetch should be; nothing waits for the pages.
    int err = ibv_advise_mr(mr->pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, 0, &sge, 1);
    if (err == 0) {
        return 0;
    }
    if (err == EOPNOTSUPP) {
        return -1; // what DiSNI answered on every rdma-core system
    }
    nr_throw_errno(env, "ibv_advise_mr", err);
    return -1;
}

DISNI_NATIVE(void, deregMr)(JNIEnv *env, jobject self NR_UNUSED, jlong handle) {
    if (handle == 0) {
        nr_throw_null(env, "ibv_dereg_mr", "ibv_mr");
        return;
    }
    int err = ibv_dereg_mr(nr_ptr(handle));
    if (err != 0) {
        nr_throw_errno(env, "ibv_dereg_mr", err);
    }
}

/*
 * The WR list is already fully linked by Java in direct memory ("Layouts"), so it goes to the provider
 * as is. This is the hot path: one call, no JNI object access.
 */
DISNI_NATIVE(void, postSend)(JNIEnv *env, jobject self NR_UNUSED, jlong qp, jlong wrList) {
    if (qp == 0 || wrList == 0) {
        nr_throw_null(env, "ibv_post_send", qp == 0 ? "ibv_qp" : "ibv_send_wr");
        return;
    }
    struct ibv_send_wr *bad = NULL;
    int err = ibv_post_send(nr_ptr(qp), nr_ptr(wrList), &bad);
    if (err != 0) {
        // ENOMEM: send queue full; EINVAL: a malformed WR (more than 4 SGEs, inline too large).
        nr_throw_errno(env, "ibv_post_send", err);
    }
}

DISNI_NATIVE(void, postRecv)(JNIEnv *env, jobject self NR_UNUSED, jlong qp, jlong wrList) {
    if (qp == 0 || wrList == 0) {
        nr_throw_null(env, "ibv_post_recv", qp == 0 ? "ibv_qp" : "ibv_recv_wr");
        return;
    }
    struct ibv_recv_wr *bad = NULL;
    int err = ibv_post_recv(nr_ptr(qp), nr_ptr(wrList), &bad);
    if (err != 0) {
        nr_throw_errno(env, "ibv_post_recv", err);
    }
}

/*
 * Returns 0 for one event, -1 for none (timeout, EINTR, or EAGAIN from the non-blocking fd). The
 * CQ that ibv_get_cq_event names is discarded: DiSNI keeps one CQ per channel and acks that one.
 */
DISNI_NATIVE(jint, getCqEvent)(JNIEnv *env, jobject self NR_UNUSED, jlong compChannel, jint timeout) {
    struct ibv_comp_channel *channel = nr_ptr(compChannel);
    if (channel == NULL) {
        nr_throw_null(env, "ibv_get_cq_event", "ibv_comp_channel");
        return -1;
    }
    struct pollfd pfd = { .fd = channel->fd, .events = POLLIN };
    if (poll(&pfd, 1, timeout) <= 0) {
        return -1;
    }
    struct ibv_cq *cq;
    void *cq_context;
    return ibv_get_cq_event(channel, &cq, &cq_context);
}

DISNI_NATIVE(jint, pollCQ)(JNIEnv *env, jobject self NR_UNUSED, jlong cq, jint ne, jlong wclist) {
    if (cq == 0) {
        nr_throw_null(env, "ibv_poll_cq", "ibv_cq");
        return -1;
    }
    // The native cannot see the array's capacity; it trusts ne, as DiSNI did ("Verbs natives").
    if (ne <= 0) {
        return 0;
    }
    if (wclist == 0) {
        nr_throw_null(env, "ibv_poll_cq", "ibv_wc array");
        return -1;
    }
    return ibv_poll_cq(nr_ptr(cq), ne, nr_ptr(wclist));
}

DISNI_NATIVE(jint, reqNotifyCQ)(JNIEnv *env, jobject self NR_UNUSED, jlong cq, jint solicited_only) {
    if (cq == 0) {
        nr_throw_null(env, "ibv_req_notify_cq", "ibv_cq");
        return -1;
    }
    return ibv_req_notify_cq(nr_ptr(cq), solicited_only);
}

DISNI_NATIVE(jint, ackCqEvent)(JNIEnv *env NR_UNUSED, jobject self NR_UNUSED, jlong cq, jint nevents) {
    if (cq == 0) {
        return -1;
    }
    ibv_ack_cq_events(nr_ptr(cq), (unsigned int) nevents);
    return 0;
}

DISNI_NATIVE(jint, destroyCompChannel)(JNIEnv *env NR_UNUSED, jobject self NR_UNUSED, jlong channel) {
    if (channel == 0) {
        return -1;
    }
    return ibv_destroy_comp_channel(nr_ptr(channel)); // EBUSY while a CQ still uses it
}

DISNI_NATIVE(jint, deallocPd)(JNIEnv *env NR_UNUSED, jobject self NR_UNUSED, jlong pd) {
    if (pd == 0) {
        return -1;
    }
    return ibv_dealloc_pd(nr_ptr(pd)); // EBUSY while MRs or QPs use it
}

DISNI_NATIVE(jint, destroyCQ)(JNIEnv *env NR_UNUSED, jobject self NR_UNUSED, jlong cq) {
    if (cq == 0) {
        return -1;
    }
    // EBUSY while a QP uses it; blocks until every event taken by _getCqEvent is acked.
    return ibv_destroy_cq(nr_ptr(cq));
}
