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
 * Helpers shared by every JNI file of libdisni: throwing IOException, turning handles into
 * pointers and back, and reading/writing the Java side's direct memory.
 *
 * Handles are raw C pointers cast to jlong (docs/native.md, "Handles"): DiSNI's Java code matches
 * CM events to ids by comparing these numbers, so an opaque handle table is not an option.
 */
#ifndef NETTY_RDMA_JNI_UTIL_H
#define NETTY_RDMA_JNI_UTIL_H

#include <jni.h>
#include <stdint.h>
#include <string.h>

/* -Wextra warns about the JNIEnv/jobject/jclass parameters that many natives do not need. */
#define NR_UNUSED __attribute__((unused))

/* Defines DiSNI's entry point for NativeDispatcher._<name> (an instance method). */
#define DISNI_NATIVE(ret, name) \
    JNIEXPORT ret JNICALL Java_com_ibm_disni_verbs_impl_NativeDispatcher__1##name

/* DiSNI's "no object" value; Java treats objId >= 0 as success (docs/native.md, "Handles"). */
#define NR_NO_HANDLE ((jlong) -1)

static inline void *nr_ptr(jlong handle) {
    return (void *) (intptr_t) handle;
}

static inline jlong nr_handle(const void *ptr) {
    return (jlong) (intptr_t) ptr;
}

/*
 * Stores into Java direct memory through memcpy: the addresses come from ByteBuffers, so neither
 * their alignment nor their effective type is known to the compiler.
 */
static inline void nr_put_u32(jlong base, int offset, uint32_t value) {
    memcpy((char *) nr_ptr(base) + offset, &value, sizeof(value));
}

static inline void nr_put_u64(jlong base, int offset, uint64_t value) {
    memcpy((char *) nr_ptr(base) + offset, &value, sizeof(value));
}

static inline uint32_t nr_get_u32(jlong base, int offset) {
    uint32_t value;
    memcpy(&value, (const char *) nr_ptr(base) + offset, sizeof(value));
    return value;
}

/*
 * Throws java.io.IOException("<op> failed: <strerror(err)> (errno <err>)"). Callers capture errno
 * (or the ibv_* return value) before calling anything else, and return right after.
 */
void nr_throw_errno(JNIEnv *env, const char *op, int err);

/* Throws java.io.IOException("<op> failed: <what>") for a failure that has no errno. */
void nr_throw_msg(JNIEnv *env, const char *op, const char *what);

/* Throws the IOException for a 0 handle: "<op> failed: <type> handle is 0". */
void nr_throw_null(JNIEnv *env, const char *op, const char *type);

/* Adds O_NONBLOCK to fd. Returns 0 or the errno of the failing fcntl. */
int nr_set_nonblocking(int fd);

#endif
