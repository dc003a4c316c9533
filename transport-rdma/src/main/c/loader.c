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
 * Loading: what lets the JVM use this library straight from the jar, with no java.library.path and
 * no constructor run by DiSNI (docs/native.md, "Loading").
 *
 * NativeLibrary loads the library by absolute path (System.load). DiSNI's NativeDispatcher and
 * NativeAffinity then call System.loadLibrary("disni") in their static initialisers, which searches
 * only java.library.path, except for a library the JDK takes to be linked into the launcher
 * (JNI's static-library naming, JEP 178): one whose JNI_OnLoad_disni it finds among the process's
 * global symbols. nl_exportGlobally puts this already loaded library into the global scope, so
 * that DiSNI's call succeeds and its natives resolve to this library's functions.
 */
#include "jni_util.h"
#include "org_nettyrdma_channel_rdma_internal_NativeLibrary.h"
#include "org_nettyrdma_channel_rdma_internal_DisniNative.h"

#include <dlfcn.h>

#define NL_NATIVE(ret, name) JNIEXPORT ret JNICALL Java_org_nettyrdma_channel_rdma_internal_NativeLibrary_##name
#define DN_NATIVE(ret, name) JNIEXPORT ret JNICALL Java_org_nettyrdma_channel_rdma_internal_DisniNative_##name

/*
 * Bumped by hand together with NativeLibrary.ABI_VERSION whenever the meaning of a call or a record
 * of the project's natives changes; the assertion makes a one-sided bump fail the build.
 * NativeLibrary compares the value a loaded library returns, which catches a stale libdisni.so.
 */
#define NETTY_RDMA_ABI_VERSION 9
_Static_assert(NETTY_RDMA_ABI_VERSION == org_nettyrdma_channel_rdma_internal_NativeLibrary_ABI_VERSION,
               "bump ABI_VERSION in C and Java together");

/*
 * The JDK calls this when it takes the library as "built in" (JEP 178); 1.8 is the lowest version it
 * accepts from such a library. Its name, not its body, is what matters: it marks the global scope
 * as holding a library called "disni".
 */
JNIEXPORT jint JNICALL JNI_OnLoad_disni(JavaVM *vm NR_UNUSED, void *reserved NR_UNUSED) {
    return JNI_VERSION_1_8;
}

NL_NATIVE(jint, abiVersion)(JNIEnv *env NR_UNUSED, jclass clazz NR_UNUSED) {
    return NETTY_RDMA_ABI_VERSION;
}

/*
 * Re-opens this library, already loaded by the JVM with local scope, with RTLD_GLOBAL. The name comes
 * from dladdr, i.e. from the dynamic loader's own record, so RTLD_NOLOAD finds the loaded object by
 * name even when its file has been deleted since (NativeLibrary deletes the extracted copy). The
 * handle is not closed: the reference it holds is what keeps the library global, and the JVM never
 * unloads it anyway.
 */
NL_NATIVE(void, exportGlobally)(JNIEnv *env, jclass clazz NR_UNUSED) {
    Dl_info info;
    if (dladdr((void *) &JNI_OnLoad_disni, &info) == 0 || info.dli_fname == NULL) {
        nr_throw_msg(env, "dladdr", "cannot find the loaded libdisni.so");
        return;
    }
    if (dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL) == NULL) {
        const char *error = dlerror();
        nr_throw_msg(env, "dlopen(RTLD_NOLOAD | RTLD_GLOBAL)", error != NULL ? error : info.dli_fname);
    }
}

/*
 * A NativeDispatcher without its constructor. The constructor only runs DiSNI's start-up check: it
 * logs eight lines (two of them "size mismatch": DiSNI's Java defaults differ from rdma-core's) and
 * adopts the native struct sizes for DiSNI's object API, which the transport does not use. AllocObject
 * initialises the class first, so DiSNI's System.loadLibrary("disni") still runs (and must succeed).
 */
DN_NATIVE(jobject, newDispatcher)(JNIEnv *env, jclass clazz NR_UNUSED) {
    jclass dispatcher = (*env)->FindClass(env, "com/ibm/disni/verbs/impl/NativeDispatcher");
    if (dispatcher == NULL) {
        return NULL; // NoClassDefFoundError pending
    }
    return (*env)->AllocObject(env, dispatcher); // NULL with an exception pending on failure
}
