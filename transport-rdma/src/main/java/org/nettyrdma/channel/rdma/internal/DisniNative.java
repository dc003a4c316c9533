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

import java.lang.reflect.Constructor;

import com.ibm.disni.verbs.impl.NativeDispatcher;

/**
 * DiSNI's JNI layer, called with raw handles: {@link NativeDispatcher}'s natives take and return plain
 * {@code long}s and {@code int}s, so the data path posts and polls without allocating, where DiSNI's
 * object API builds a Java object per work request and per call.
 *
 * <p>DiSNI builds its single dispatcher inside its provider and its constructor is package-private;
 * this class makes one more by reflection (DiSNI is a plain class-path library, so no module flag is
 * needed). The constructor only runs DiSNI's start-up check of the native library.
 */
public final class DisniNative {

    private static final NativeDispatcher DISPATCHER = newDispatcher();

    private DisniNative() {
    }

    /**
     * Returns the dispatcher. Call {@link NativeLibrary#ensureLoaded()} first: DiSNI's static
     * initialiser loads {@code libdisni.so}.
     */
    public static NativeDispatcher dispatcher() {
        return DISPATCHER;
    }

    private static NativeDispatcher newDispatcher() {
        NativeLibrary.ensureLoaded();
        try {
            Constructor<NativeDispatcher> constructor = NativeDispatcher.class.getDeclaredConstructor();
            constructor.setAccessible(true);
            return constructor.newInstance();
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("cannot create DiSNI's NativeDispatcher (is the DiSNI jar 2.1?)", e);
        }
    }
}
