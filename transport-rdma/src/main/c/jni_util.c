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

/* Exception and fd helpers; see jni_util.h. */
#include "jni_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>

static void throw_io(JNIEnv *env, const char *message) {
    // Only reached on failure paths, so looking the class up each time costs nothing that matters
    // and keeps the library free of global state (docs/native.md, "Threads").
    jclass cls = (*env)->FindClass(env, "java/io/IOException");
    if (cls == NULL) {
        return; // FindClass left NoClassDefFoundError or OutOfMemoryError pending.
    }
    (*env)->ThrowNew(env, cls, message);
    (*env)->DeleteLocalRef(env, cls);
}

void nr_throw_errno(JNIEnv *env, const char *op, int err) {
    char text[128];
    char message[256];
    // Some providers return a negated errno from the calls that return the error (siw's post_send
    // gives -EINVAL for an opcode it lacks): the message names the error either way.
    if (err < 0) {
        err = -err;
    }
    // strerror() may use a static buffer; the natives run on many threads at once.
    // _GNU_SOURCE selects the strerror_r that returns the text (not always in `text`).
    const char *reason = strerror_r(err, text, sizeof(text));
    snprintf(message, sizeof(message), "%s failed: %s (errno %d)", op, reason, err);
    throw_io(env, message);
}

void nr_throw_msg(JNIEnv *env, const char *op, const char *what) {
    char message[256];
    snprintf(message, sizeof(message), "%s failed: %s", op, what);
    throw_io(env, message);
}

void nr_throw_null(JNIEnv *env, const char *op, const char *type) {
    char message[256];
    snprintf(message, sizeof(message), "%s failed: %s handle is 0", op, type);
    throw_io(env, message);
}

int nr_set_nonblocking(int fd) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0) {
        return errno;
    }
    if ((flags & O_NONBLOCK) == 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
        return errno;
    }
    return 0;
}
