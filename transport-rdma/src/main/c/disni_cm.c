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
 * DiSNI 2.1's 18 connection-manager natives (com.ibm.disni.verbs.impl.NativeDispatcher), written
 * from docs/native.md, "CM natives". Quoted section names below are that page's.
 */
#include "jni_util.h"

#include <errno.h>
#include <stddef.h>
#include <netinet/in.h>
#include <poll.h>
#include <rdma/rdma_cma.h>

/* The offsets SockAddr writes and reads at ("Layouts"). */
_Static_assert(sizeof(struct sockaddr_in6) == 28, "SockAddr.SIZE is 28");
_Static_assert(offsetof(struct sockaddr_in6, sin6_port) == 2, "SockAddr writes sin6_port at 2");
_Static_assert(offsetof(struct sockaddr_in6, sin6_addr) == 8, "SockAddr writes sin6_addr at 8");
_Static_assert(offsetof(struct sockaddr_in6, sin6_scope_id) == 24, "SockAddr writes sin6_scope_id at 24");

/*
 * Copies a Java sockaddr image ("Layouts") into a zeroed local, field by field: pooled buffers are
 * reused without clearing, so padding holds whatever the previous user left there. The family says
 * how long the image is: 16 bytes for AF_INET, 28 for AF_INET6 (DiSNI's own Java writes only
 * AF_INET, in 16 bytes). Returns 0 or EAFNOSUPPORT.
 */
static int read_sockaddr(jlong image, struct sockaddr_storage *out) {
    sa_family_t family;
    memcpy(&family, nr_ptr(image), sizeof(family));
    memset(out, 0, sizeof(*out));
    if (family == AF_INET) {
        struct sockaddr_in in;
        struct sockaddr_in *local = (struct sockaddr_in *) out;
        memcpy(&in, nr_ptr(image), sizeof(in));
        local->sin_family = AF_INET;
        local->sin_port = in.sin_port;
        local->sin_addr = in.sin_addr;
        return 0;
    }
    if (family == AF_INET6) {
        struct sockaddr_in6 in6;
        struct sockaddr_in6 *local = (struct sockaddr_in6 *) out;
        memcpy(&in6, nr_ptr(image), sizeof(in6));
        local->sin6_family = AF_INET6;
        local->sin6_port = in6.sin6_port;
        local->sin6_flowinfo = in6.sin6_flowinfo;
        local->sin6_addr = in6.sin6_addr;
        local->sin6_scope_id = in6.sin6_scope_id;
        return 0;
    }
    return EAFNOSUPPORT;
}

/*
 * Writes the image of an AF_INET (16 bytes) or AF_INET6 (28 bytes) address; the memory must hold 28.
 * -1 (Java: null) for other families, such as AF_IB ("CM natives").
 */
static jint write_sockaddr(const struct sockaddr *addr, jlong image) {
    if (image == 0 || addr == NULL) {
        return -1;
    }
    switch (addr->sa_family) {
    case AF_INET:
        memcpy(nr_ptr(image), addr, sizeof(struct sockaddr_in));
        return 0;
    case AF_INET6:
        memcpy(nr_ptr(image), addr, sizeof(struct sockaddr_in6));
        return 0;
    default:
        return -1;
    }
}

/* Shared by _connect and _accept: both need a device before rdma_cm can pick depths for it. */
static struct rdma_cm_id *connectable_id(JNIEnv *env, jlong id, const char *op) {
    struct rdma_cm_id *cm_id = nr_ptr(id);
    if (cm_id == NULL) {
        nr_throw_null(env, op, "rdma_cm_id");
        return NULL;
    }
    // DiSNI dereferenced id->verbs without this check and crashed the JVM ("CM natives").
    if (cm_id->verbs == NULL) {
        nr_throw_msg(env, op, "the rdma_cm_id has no device yet (address not resolved)");
        return NULL;
    }
    return cm_id;
}

DISNI_NATIVE(jlong, createEventChannel)(JNIEnv *env, jobject self NR_UNUSED) {
    struct rdma_event_channel *channel = rdma_create_event_channel();
    if (channel == NULL) {
        nr_throw_errno(env, "rdma_create_event_channel", errno);
        return NR_NO_HANDLE;
    }
    // _getCmEvent polls, then reads: with a blocking fd a second reader that loses the race would
    // block forever ("CM natives"). The event loop reads this fd through RdmaNative as well.
    int err = nr_set_nonblocking(channel->fd);
    if (err != 0) {
        rdma_destroy_event_channel(channel);
        nr_throw_errno(env, "fcntl(O_NONBLOCK) on the rdma_cm event channel", err);
        return NR_NO_HANDLE;
    }
    return nr_handle(channel);
}

DISNI_NATIVE(jlong, createId)(JNIEnv *env, jobject self NR_UNUSED, jlong channel,
                              jshort rdma_ps NR_UNUSED) {
    if (channel == 0) {
        nr_throw_null(env, "rdma_create_id", "rdma_event_channel");
        return NR_NO_HANDLE;
    }
    // The port space is forced to TCP, as DiSNI does: Java only passes RDMA_PS_TCP and only ever
    // creates RC QPs, which need a connected port space.
    struct rdma_cm_id *id = NULL;
    if (rdma_create_id(nr_ptr(channel), &id, NULL, RDMA_PS_TCP) != 0) {
        nr_throw_errno(env, "rdma_create_id", errno);
        return NR_NO_HANDLE;
    }
    return nr_handle(id);
}

DISNI_NATIVE(jlong, createQP)(JNIEnv *env, jobject self NR_UNUSED, jlong id, jlong pd,
                              jlong sendcq, jlong recvcq, jint qptype, jint maxsendwr,
                              jint maxrecvwr, jint maxinline) {
    if (id == 0 || pd == 0 || sendcq == 0 || recvcq == 0) {
        nr_throw_null(env, "rdma_create_qp", id == 0 ? "rdma_cm_id" : pd == 0 ? "ibv_pd" : "ibv_cq");
        return NR_NO_HANDLE;
    }
    struct ibv_qp_init_attr attr;
    memset(&attr, 0, sizeof(attr));
    attr.send_cq = nr_ptr(sendcq);
    attr.recv_cq = nr_ptr(recvcq);
    attr.qp_type = (enum ibv_qp_type) qptype;
    attr.cap.max_send_wr = (uint32_t) maxsendwr;
    attr.cap.max_recv_wr = (uint32_t) maxrecvwr;
    attr.cap.max_inline_data = (uint32_t) maxinline;
    // DiSNI's Java never passes its IbvQPCap SGE counts down; 4 is what its WRs were sized for.
    attr.cap.max_send_sge = 4;
    attr.cap.max_recv_sge = 4;
    // Only WRs flagged IBV_SEND_SIGNALED complete, which is what DiSNI's endpoints expect.
    attr.sq_sig_all = 0;
    struct rdma_cm_id *cm_id = nr_ptr(id);
    if (rdma_create_qp(cm_id, nr_ptr(pd), &attr) != 0) {
        nr_throw_errno(env, "rdma_create_qp", errno);
        return NR_NO_HANDLE;
    }
    return nr_handle(cm_id->qp);
}

DISNI_NATIVE(void, bindAddr)(JNIEnv *env, jobject self NR_UNUSED, jlong id, jlong addr) {
    if (id == 0 || addr == 0) {
        nr_throw_null(env, "rdma_bind_addr", id == 0 ? "rdma_cm_id" : "sockaddr");
        return;
    }
    struct sockaddr_storage local;
    int err = read_sockaddr(addr, &local);
    if (err != 0) {
        nr_throw_errno(env, "rdma_bind_addr", err);
        return;
    }
    if (rdma_bind_addr(nr_ptr(id), (struct sockaddr *) &local) != 0) {
        nr_throw_errno(env, "rdma_bind_addr", errno);
    }
}

DISNI_NATIVE(void, listen)(JNIEnv *env, jobject self NR_UNUSED, jlong id, jint backlog) {
    if (id == 0) {
        nr_throw_null(env, "rdma_listen", "rdma_cm_id");
        return;
    }
    if (rdma_listen(nr_ptr(id), backlog) != 0) {
        nr_throw_errno(env, "rdma_listen", errno);
    }
}

DISNI_NATIVE(void, resolveAddr)(JNIEnv *env, jobject self NR_UNUSED, jlong id, jlong src,
                                jlong dst, jint timeout) {
    if (id == 0 || dst == 0) {
        nr_throw_null(env, "rdma_resolve_addr", id == 0 ? "rdma_cm_id" : "sockaddr");
        return;
    }
    struct sockaddr_storage source;
    struct sockaddr_storage destination;
    int err = read_sockaddr(dst, &destination);
    // DiSNI ignores src (Java always passes 0); honouring a non-zero one costs nothing.
    if (err == 0 && src != 0) {
        err = read_sockaddr(src, &source);
    }
    if (err != 0) {
        nr_throw_errno(env, "rdma_resolve_addr", err);
        return;
    }
    if (rdma_resolve_addr(nr_ptr(id), src != 0 ? (struct sockaddr *) &source : NULL,
                          (struct sockaddr *) &destination, timeout) != 0) {
        nr_throw_errno(env, "rdma_resolve_addr", errno);
    }
}

DISNI_NATIVE(void, resolveRoute)(JNIEnv *env, jobject self NR_UNUSED, jlong id, jint timeout) {
    if (id == 0) {
        nr_throw_null(env, "rdma_resolve_route", "rdma_cm_id");
        return;
    }
    if (rdma_resolve_route(nr_ptr(id), timeout) != 0) {
        nr_throw_errno(env, "rdma_resolve_route", errno);
    }
}

/*
 * DiSNI's only CM receive path; never throws. -1 means "no event" (timeout, EINTR, or EAGAIN when
 * another thread took the event between poll and read). The event is acknowledged here because
 * Java never hands it back (_ackCmEvent is a no-op); that also means rdma_destroy_id can never
 * wait for an unacknowledged event ("CM natives"). Status and private data are lost on this
 * path: the project's RdmaNative.pollCmEvent keeps them.
 */
DISNI_NATIVE(jint, getCmEvent)(JNIEnv *env NR_UNUSED, jobject self NR_UNUSED, jlong channel,
                               jlong listenid, jlong clientid, jint timeout) {
    struct rdma_event_channel *ch = nr_ptr(channel);
    // Checking the out-slots first means an event is never taken and then dropped.
    if (ch == NULL || listenid == 0 || clientid == 0) {
        return -1;
    }
    struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
    if (poll(&pfd, 1, timeout) <= 0) {
        return -1;
    }
    struct rdma_cm_event *event;
    if (rdma_get_cm_event(ch, &event) != 0) {
        return -1;
    }
    nr_put_u64(listenid, 0, event->listen_id != NULL ? (uint64_t) nr_handle(event->listen_id) : UINT64_MAX);
    nr_put_u64(clientid, 0, event->id != NULL ? (uint64_t) nr_handle(event->id) : UINT64_MAX);
    jint type = (jint) event->event;
    rdma_ack_cm_event(event);
    return type;
}

DISNI_NATIVE(void, connect)(JNIEnv *env, jobject self NR_UNUSED, jlong id, jint retrycount,
                            jint rnrretrycount, jlong privdataaddr, jbyte privdatalen) {
    struct rdma_cm_id *cm_id = connectable_id(env, id, "rdma_connect");
    if (cm_id == NULL) {
        return;
    }
    // Java's byte is signed: lengths 128..255 arrive negative.
    uint8_t length = (uint8_t) privdatalen;
    if (privdataaddr == 0 && length != 0) {
        nr_throw_errno(env, "rdma_connect", EINVAL);
        return;
    }
    struct rdma_conn_param param;
    memset(&param, 0, sizeof(param));
    param.private_data = nr_ptr(privdataaddr);
    param.private_data_len = length;
    // DiSNI put the device's max_qp_rd_atom into both fields, which fails with EINVAL where
    // max_qp_init_rd_atom is smaller. 255 asks librdmacm for the device maxima ("CM natives").
    param.responder_resources = RDMA_MAX_RESP_RES;
    param.initiator_depth = RDMA_MAX_INIT_DEPTH;
    param.retry_count = (uint8_t) retrycount;
    param.rnr_retry_count = (uint8_t) rnrretrycount;
    if (rdma_connect(cm_id, &param) != 0) {
        nr_throw_errno(env, "rdma_connect", errno);
    }
}

DISNI_NATIVE(void, accept)(JNIEnv *env, jobject self NR_UNUSED, jlong id, jint retrycount,
                           jint rnrretrycount) {
    struct rdma_cm_id *cm_id = connectable_id(env, id, "rdma_accept");
    if (cm_id == NULL) {
        return;
    }
    struct rdma_conn_param param;
    memset(&param, 0, sizeof(param));
    // 255/255: rdma_accept then takes min(requested, local maximum) ("CM natives").
    param.responder_resources = RDMA_MAX_RESP_RES;
    param.initiator_depth = RDMA_MAX_INIT_DEPTH;
    param.retry_count = (uint8_t) retrycount; // ignored by rdma_cm on the passive side
    param.rnr_retry_count = (uint8_t) rnrretrycount;
    if (rdma_accept(cm_id, &param) != 0) {
        nr_throw_errno(env, "rdma_accept", errno);
    }
}

DISNI_NATIVE(jint, ackCmEvent)(JNIEnv *env NR_UNUSED, jobject self NR_UNUSED, jint cmEvent NR_UNUSED) {
    return 0; // _getCmEvent has already acknowledged every event it returned.
}

DISNI_NATIVE(jint, disconnect)(JNIEnv *env, jobject self NR_UNUSED, jlong id) {
    if (id == 0) {
        // Thrown although the Java declaration has no `throws`; its callers declare IOException.
        nr_throw_null(env, "rdma_disconnect", "rdma_cm_id");
        return -1;
    }
    return rdma_disconnect(nr_ptr(id));
}

DISNI_NATIVE(jint, destroyEventChannel)(JNIEnv *env NR_UNUSED, jobject self NR_UNUSED, jlong channel) {
    if (channel == 0) {
        return -1;
    }
    rdma_destroy_event_channel(nr_ptr(channel));
    return 0;
}

DISNI_NATIVE(jint, destroyCmId)(JNIEnv *env NR_UNUSED, jobject self NR_UNUSED, jlong id) {
    if (id == 0) {
        return -1;
    }
    return rdma_destroy_id(nr_ptr(id));
}

/* Takes the rdma_cm_id, not the QP ("CM natives"). */
DISNI_NATIVE(jint, destroyQP)(JNIEnv *env NR_UNUSED, jobject self NR_UNUSED, jlong id) {
    struct rdma_cm_id *cm_id = nr_ptr(id);
    if (cm_id == NULL || cm_id->qp == NULL) {
        return -1;
    }
    rdma_destroy_qp(cm_id);
    return 0;
}

DISNI_NATIVE(jint, getSrcAddr)(JNIEnv *env NR_UNUSED, jobject self NR_UNUSED, jlong id, jlong addr) {
    if (id == 0) {
        return -1;
    }
    return write_sockaddr(rdma_get_local_addr(nr_ptr(id)), addr);
}

DISNI_NATIVE(jint, getDstAddr)(JNIEnv *env NR_UNUSED, jobject self NR_UNUSED, jlong id, jlong addr) {
    if (id == 0) {
        return -1;
    }
    return write_sockaddr(rdma_get_peer_addr(nr_ptr(id)), addr);
}

/* Destroys the id's QP (if any) and the id itself. */
DISNI_NATIVE(jint, destroyEp)(JNIEnv *env NR_UNUSED, jobject self NR_UNUSED, jlong id) {
    if (id == 0) {
        return -1;
    }
    rdma_destroy_ep(nr_ptr(id));
    return 0;
}
