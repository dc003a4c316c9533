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
 * DiSNI 2.1's com.ibm.disni.util.NativeAffinity (2 static natives, docs/native.md, "NativeAffinity"):
 * the calling thread's CPU mask as a 64-bit word, so CPUs 0..63 only. DiSNI's CQ processor pins
 * its thread with it; the project's transport does not need it, but the jar must find the symbols.
 */
#include "jni_util.h"

#include <sched.h>

#define AFFINITY_CPUS 64

/* Pins the calling thread (pid 0) to the CPUs set in mask; failures are ignored, as in DiSNI. */
JNIEXPORT void JNICALL Java_com_ibm_disni_util_NativeAffinity__1setAffinity(
        JNIEnv *env NR_UNUSED, jclass clazz NR_UNUSED, jlong mask) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu = 0; cpu < AFFINITY_CPUS; cpu++) {
        if (((uint64_t) mask >> cpu) & 1) {
            CPU_SET(cpu, &set);
        }
    }
    (void) sched_setaffinity(0, sizeof(set), &set);
}

/* Returns the calling thread's mask restricted to CPUs 0..63, or all ones if it cannot be read. */
JNIEXPORT jlong JNICALL Java_com_ibm_disni_util_NativeAffinity__1getAffinity(
        JNIEnv *env NR_UNUSED, jclass clazz NR_UNUSED) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0) {
        return -1;
    }
    uint64_t mask = 0;
    for (int cpu = 0; cpu < AFFINITY_CPUS; cpu++) {
        if (CPU_ISSET(cpu, &set)) {
            mask |= UINT64_C(1) << cpu;
        }
    }
    return (jlong) mask;
}
