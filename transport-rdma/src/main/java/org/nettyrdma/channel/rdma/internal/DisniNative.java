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

import com.ibm.disni.verbs.impl.NativeDispatcher;

/**
 * DiSNI's JNI layer, called with raw handles: {@link NativeDispatcher}'s natives take and return plain
 * {@code long}s and {@code int}s, so the data path posts and polls without allocating, where DiSNI's
 * object API builds a Java object per work request and per call.
 *
 * <p>DiSNI builds its single dispatcher inside its provider and its constructor is package-private.
 * That constructor does nothing but DiSNI's start-up check: it logs eight INFO lines (two reading
 * "size mismatch", where DiSNI's Java defaults differ from rdma-core's struct sizes) and adopts the
 * native sizes for DiSNI's object API, which the transport does not use. So the transport's
 * dispatcher is allocated by JNI without a constructor: quiet, and no reflection into DiSNI.
 * The class is still initialised first, so DiSNI's {@code System.loadLibrary("disni")} runs, after
 * {@link NativeLibrary} has made it succeed.
 */
public final class DisniNative {

    private static final NativeDispatcher DISPATCHER = dispatcherWithoutConstructor();

    private DisniNative() {
    }

    /**
     * Returns the dispatcher. The first use of this class loads the native library, and fails with
     * {@link NativeLibrary#ensureLoaded()}'s error when it cannot be used.
     */
    public static NativeDispatcher dispatcher() {
        return DISPATCHER;
    }

    private static NativeDispatcher dispatcherWithoutConstructor() {
        NativeLibrary.ensureLoaded();
        Object dispatcher;
        try {
            dispatcher = newDispatcher();
        } catch (LinkageError e) {
            throw new IllegalStateException("cannot create DiSNI's NativeDispatcher (is the DiSNI jar 2.1?)", e);
        }
        return (NativeDispatcher) dispatcher;
    }

    /** Allocates a {@link NativeDispatcher} without running its constructor (JNI {@code AllocObject}). */
    private static native Object newDispatcher();
}
