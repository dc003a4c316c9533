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
 * Loads a libdisni.so as the JVM's System.load does, on the library's own platform (under qemu-user
 * when that is not the host's), and calls the natives that need neither a JVM nor a device.
 *
 * dlopen with RTLD_NOW binds every symbol the library takes from libibverbs, librdmacm and glibc at
 * once, so an arm64 library linked against something the arm64 run-time packages lack fails here and
 * not at a user's first verb. The sizes checked are the layouts that the transport's Java writes work
 * requests and reads completions with (WorkRequests, docs/native.md "Layouts"): they must not
 * depend on the platform. Run by the Makefile's load-check target; exits non-zero on any mismatch.
 */
#include <dlfcn.h>
#include <stdio.h>

#include <jni.h>

#include "org_nettyrdma_channel_rdma_internal_NativeLibrary.h"

#define DISPATCHER "Java_com_ibm_disni_verbs_impl_NativeDispatcher__1"

typedef jint (*onload_fn)(JavaVM *vm, void *reserved);
typedef jint (*int_native_fn)(JNIEnv *env, void *self_or_class);

/* A native returning a constant, and the value the Java side relies on. */
struct expected_int {
    const char *symbol;
    jint value;
};

static const struct expected_int EXPECTED[] = {
    {"Java_org_nettyrdma_channel_rdma_internal_NativeLibrary_abiVersion",
     org_nettyrdma_channel_rdma_internal_NativeLibrary_ABI_VERSION},
    {DISPATCHER "getVersion", 32},
    {DISPATCHER "getSockAddrInSize", 16},
    {DISPATCHER "getIbvSendWRSize", 128},
    {DISPATCHER "getIbvRecvWRSize", 32},
    {DISPATCHER "getIbvSgeSize", 16},
    {DISPATCHER "getIbvWCSize", 48},
    {DISPATCHER "getRemoteAddressOffset", 40},
    {DISPATCHER "getRKeyOffset", 48},
};

/* Natives that need a JVM or a device: only their presence is checked. */
static const char *const PRESENT[] = {
    "Java_org_nettyrdma_channel_rdma_internal_NativeLibrary_exportGlobally",
    "Java_org_nettyrdma_channel_rdma_internal_DisniNative_newDispatcher",
    "Java_org_nettyrdma_channel_rdma_internal_RdmaNative_createQp",
    "Java_org_nettyrdma_channel_rdma_internal_RdmaNative_pollCmEvent",
    DISPATCHER "createEventChannel",
    DISPATCHER "postSend",
    DISPATCHER "pollCQ",
    "Java_com_ibm_disni_util_NativeAffinity__1getAffinity",
};

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s LIBDISNI_SO\n", argv[0]);
        return 2;
    }
    void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        fprintf(stderr, "load-check: dlopen(RTLD_NOW) failed: %s\n", dlerror());
        return 1;
    }
    int failures = 0;
    onload_fn onload = (onload_fn) dlsym(library, "JNI_OnLoad_disni");
    if (onload == NULL) {
        fprintf(stderr, "load-check: JNI_OnLoad_disni missing\n");
        failures++;
    } else if (onload(NULL, NULL) != JNI_VERSION_1_8) {
        fprintf(stderr, "load-check: JNI_OnLoad_disni does not return JNI_VERSION_1_8\n");
        failures++;
    }
    size_t count = sizeof(EXPECTED) / sizeof(EXPECTED[0]);
    for (size_t i = 0; i < count; i++) {
        int_native_fn native = (int_native_fn) dlsym(library, EXPECTED[i].symbol);
        jint value = native != NULL ? native(NULL, NULL) : -1;
        if (native == NULL || value != EXPECTED[i].value) {
            fprintf(stderr, "load-check: %s returned %d (expected: %d)\n", EXPECTED[i].symbol,
                    (int) value, (int) EXPECTED[i].value);
            failures++;
        }
    }
    size_t present = sizeof(PRESENT) / sizeof(PRESENT[0]);
    for (size_t i = 0; i < present; i++) {
        if (dlsym(library, PRESENT[i]) == NULL) {
            fprintf(stderr, "load-check: %s missing\n", PRESENT[i]);
            failures++;
        }
    }
    if (failures != 0) {
        return 1;
    }
    printf("load-check: %s loaded with RTLD_NOW; JNI_OnLoad_disni, %zu constant natives as expected,"
           " %zu other natives present\n", argv[1], count, present);
    return 0;
}
