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
 * DiSNI 2.1's 5 field look-ups and its 8 struct-size/version natives
 * (com.ibm.disni.verbs.impl.NativeDispatcher), from docs/native.md, "Look-ups and sizes".
 */
#include "jni_util.h"

#include <stddef.h>
#include <netinet/in.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/* The JNI protocol version DiSNI 2.1's Java side requires; anything else fails provider start-up. */
#define DISNI_JNI_VERSION 32

/* id->verbs, or -1 without an exception while the id has no device yet ("Look-ups and sizes"). */
DISNI_NATIVE(jlong, getContext)(JNIEnv *env, jobject self NR_UNUSED, jlong id) {
    struct rdma_cm_id *cm_id = nr_ptr(id);
    if (cm_id == NULL) {
        nr_throw_null(env, "getContext", "rdma_cm_id");
        return NR_NO_HANDLE;
    }
    return cm_id->verbs != NULL ? nr_handle(cm_id->verbs) : NR_NO_HANDLE;
}

DISNI_NATIVE(jint, getQpNum)(JNIEnv *env, jobject self NR_UNUSED, jlong qp) {
    if (qp == 0) {
        nr_throw_null(env, "getQpNum", "ibv_qp");
        return -1;
    }
    return (jint) ((struct ibv_qp *) nr_ptr(qp))->qp_num;
}

/* DiSNI's endpoint layer keys its per-device state (one PD, one CQ processor) on this number. */
DISNI_NATIVE(jint, getContextFd)(JNIEnv *env, jobject self NR_UNUSED, jlong context) {
    if (context == 0) {
        nr_throw_null(env, "getContextFd", "ibv_context");
        return -1;
    }
    return ((struct ibv_context *) nr_ptr(context))->cmd_fd;
}

DISNI_NATIVE(jint, getContextNumCompVectors)(JNIEnv *env, jobject self NR_UNUSED, jlong context) {
    if (context == 0) {
        nr_throw_null(env, "getContextNumCompVectors", "ibv_context");
        return -1;
    }
    return ((struct ibv_context *) nr_ptr(context))->num_comp_vectors;
}

DISNI_NATIVE(jint, getPdHandle)(JNIEnv *env, jobject self NR_UNUSED, jlong pd) {
    if (pd == 0) {
        nr_throw_null(env, "getPdHandle", "ibv_pd");
        return -1;
    }
    return (jint) ((struct ibv_pd *) nr_ptr(pd))->handle;
}

/*
 * Java compares these with its own defaults at start-up and adopts the native value on a
 * mismatch (with rdma-core 44: sockaddr_in 28 -> 16, ibv_send_wr 72 -> 128). They are computed,
 * not written down, so they follow the headers the library is built against.
 */
DISNI_NATIVE(jint, getSockAddrInSize)(JNIEnv *env NR_UNUSED, jobject self NR_UNUSED) {
    return (jint) sizeof(struct sockaddr_in);
}

DISNI_NATIVE(jint, getIbvRecvWRSize)(JNIEnv *env NR_UNUSED, jobject self NR_UNUSED) {
    return (jint) sizeof(struct ibv_recv_wr);
}

DISNI_NATIVE(jint, getIbvSendWRSize)(JNIEnv *env NR_UNUSED, jobject self NR_UNUSED) {
    return (jint) sizeof(struct ibv_send_wr);
}

DISNI_NATIVE(jint, getIbvSgeSize)(JNIEnv *env NR_UNUSED, jobject self NR_UNUSED) {
    return (jint) sizeof(struct ibv_sge);
}

DISNI_NATIVE(jint, getIbvWCSize)(JNIEnv *env NR_UNUSED, jobject self NR_UNUSED) {
    return (jint) sizeof(struct ibv_wc);
}

DISNI_NATIVE(jint, getRemoteAddressOffset)(JNIEnv *env NR_UNUSED, jobject self NR_UNUSED) {
    return (jint) offsetof(struct ibv_send_wr, wr.rdma.remote_addr);
}

/* Checked by Java, but its writer always puts rkey at REMOTEADDR_OFFSET + 8 regardless. */
DISNI_NATIVE(jint, getRKeyOffset)(JNIEnv *env NR_UNUSED, jobject self NR_UNUSED) {
    return (jint) offsetof(struct ibv_send_wr, wr.rdma.rkey);
}

DISNI_NATIVE(jint, getVersion)(JNIEnv *env NR_UNUSED, jobject self NR_UNUSED) {
    return DISNI_JNI_VERSION;
}

/*
 * The offsets DiSNI's Java hard-codes without asking ("Look-ups and sizes", "Layouts"): if a
 * future rdma-core moved one of them, DiSNI would silently corrupt WRs and completions, so the
 * build stops instead.
 */
_Static_assert(offsetof(struct ibv_send_wr, wr_id) == 0, "DiSNI writes wr_id at 0");
_Static_assert(offsetof(struct ibv_send_wr, next) == 8, "DiSNI writes next at 8");
_Static_assert(offsetof(struct ibv_send_wr, sg_list) == 16, "DiSNI writes sg_list at 16");
_Static_assert(offsetof(struct ibv_send_wr, num_sge) == 24, "DiSNI writes num_sge at 24");
_Static_assert(offsetof(struct ibv_send_wr, opcode) == 28, "DiSNI writes opcode at 28");
_Static_assert(offsetof(struct ibv_send_wr, send_flags) == 32, "DiSNI writes send_flags at 32");
_Static_assert(offsetof(struct ibv_send_wr, imm_data) == 36, "DiSNI writes imm_data at 36");
_Static_assert(offsetof(struct ibv_recv_wr, sg_list) == 16, "DiSNI writes recv sg_list at 16");
_Static_assert(offsetof(struct ibv_recv_wr, num_sge) == 24, "DiSNI writes recv num_sge at 24");
_Static_assert(offsetof(struct ibv_sge, length) == 8, "DiSNI writes sge length at 8");
_Static_assert(offsetof(struct ibv_sge, lkey) == 12, "DiSNI writes sge lkey at 12");
_Static_assert(offsetof(struct ibv_wc, status) == 8, "DiSNI reads wc status at 8");
_Static_assert(offsetof(struct ibv_wc, byte_len) == 20, "DiSNI reads wc byte_len at 20");
_Static_assert(offsetof(struct ibv_wc, qp_num) == 28, "DiSNI reads wc qp_num at 28");
_Static_assert(offsetof(struct ibv_wc, dlid_path_bits) == 45, "DiSNI reads wc dlid_path_bits at 45");
_Static_assert(offsetof(struct sockaddr_in, sin_port) == 2, "DiSNI writes sin_port at 2");
_Static_assert(offsetof(struct sockaddr_in, sin_addr) == 4, "DiSNI writes sin_addr at 4");
