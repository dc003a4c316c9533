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
package org.nettyrdma.example;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test after which Netty's leak detector, at {@code PARANOID}, reports a buffer that was never
 * released. Registered for every test of this module by JUnit's extension autodetection
 * ({@code META-INF/services}), so its class initialiser installs the recording detector before any
 * buffer class exists. A leak is found when the garbage collector has seen the buffer, so the collector
 * is run before looking.
 */
public final class LeakDetection implements AfterEachCallback {

    private static final Queue<String> LEAKS = new ConcurrentLinkedQueue<>();

    static {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new ResourceLeakDetectorFactory() {
            // The one abstract method is deprecated in favour of a final one that calls it.
            @SuppressWarnings("deprecation")
            @Override
            public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval,
                                                                       long maxActive) {
                return new RecordingDetector<>(resource, samplingInterval);
            }
        });
    }

    @Override
    public void afterEach(ExtensionContext context) throws InterruptedException {
        for (int round = 0; round < 3 && LEAKS.isEmpty(); round++) {
            System.gc();
            Thread.sleep(20);
            // The detector looks at its reference queue when it tracks a new buffer.
            ByteBufAllocator.DEFAULT.buffer(1).release();
        }
        List<String> leaks = new ArrayList<>();
        for (String leak; (leak = LEAKS.poll()) != null; ) {
            leaks.add(leak);
        }
        if (!leaks.isEmpty()) {
            fail(leaks.size() + " leak(s) reported during or before " + context.getDisplayName() + ":\n"
                    + String.join("\n", leaks));
        }
    }

    private static final class RecordingDetector<T> extends ResourceLeakDetector<T> {

        RecordingDetector(Class<T> resource, int samplingInterval) {
            super(resource, samplingInterval);
        }

        @Override
        protected boolean needReport() {
            return true;
        }

        @Override
        protected void reportTracedLeak(String resourceType, String records) {
            LEAKS.add(resourceType + " leaked:" + records);
        }

        @Override
        protected void reportUntracedLeak(String resourceType) {
            LEAKS.add(resourceType + " leaked (no records)");
        }
    }
}
