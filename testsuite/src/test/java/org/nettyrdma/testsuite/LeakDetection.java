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
package org.nettyrdma.testsuite;

import java.util.ArrayList;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Makes a buffer leak fail the build: before any test class loads, Netty's leak detector is set to
 * {@code PARANOID} and its reports are recorded; after each test class, the collector runs and every
 * leak recorded so far fails that class.
 *
 * <p>Registered for every test of this module through {@code META-INF/services} (the launcher session
 * listener) and Jupiter's extension auto-detection (the after-all check), so Netty's own testsuite
 * classes are checked too.
 */
public final class LeakDetection implements LauncherSessionListener, AfterAllCallback {

    private static final List<String> LEAKS = new ArrayList<>();

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new RecordingFactory());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        // A leak is reported when the detector next tracks a buffer after the leaked one was collected.
        for (int i = 0; i < 3; i++) {
            System.gc();
            System.runFinalization();
            ByteBuf pooled = PooledByteBufAllocator.DEFAULT.directBuffer(16);
            pooled.release();
            ByteBuf unpooled = Unpooled.directBuffer(16);
            unpooled.release();
        }
        List<String> leaks;
        synchronized (LEAKS) {
            leaks = new ArrayList<>(LEAKS);
            LEAKS.clear();
        }
        if (!leaks.isEmpty()) {
            throw new AssertionError(leaks.size() + " buffer leak(s) reported during or before "
                    + context.getDisplayName() + ":\n" + String.join("\n", leaks));
        }
    }

    private static final class RecordingFactory extends ResourceLeakDetectorFactory {
        @Override
        @SuppressWarnings("deprecation")
        public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval,
                                                                    long maxActive) {
            return new ResourceLeakDetector<T>(resource, samplingInterval) {
                @Override
                protected void reportTracedLeak(String resourceType, String records) {
                    super.reportTracedLeak(resourceType, records);
                    synchronized (LEAKS) {
                        LEAKS.add("LEAK: " + resourceType + records);
                    }
                }

                @Override
                protected void reportUntracedLeak(String resourceType) {
                    super.reportUntracedLeak(resourceType);
                    synchronized (LEAKS) {
                        LEAKS.add("LEAK: " + resourceType + " (untraced)");
                    }
                }
            };
        }
    }
}
