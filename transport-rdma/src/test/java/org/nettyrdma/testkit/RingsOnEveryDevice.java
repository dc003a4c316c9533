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
package org.nettyrdma.testkit;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Makes the connections of a test class open a ring to their peers on every device
 * ({@code -Dorg.nettyrdma.ring=always}), as they do on a device whose memory windows confine a peer:
 * so the ring's logic (RDMA Writes with immediate, their checks, sends from registered memory in place)
 * runs on rxe, where by default connections have no ring (docs/security.md). Connections made in this
 * process only; for the class's lifetime. No test under it may send a Send with Invalidate: on rxe
 * such a ring's window does not survive one, and a second one panics the kernel. On a device that
 * cannot carry a ring at all (siw: no Writes with immediate, no memory windows) the class is skipped.
 */
public final class RingsOnEveryDevice implements BeforeAllCallback, AfterAllCallback {

    /** The transport's system property (RingPolicy). */
    public static final String PROPERTY = "org.nettyrdma.ring";

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        DeviceUnderTest.assumeRings();
        System.setProperty(PROPERTY, "always");
    }

    @Override
    public void afterAll(ExtensionContext context) {
        System.clearProperty(PROPERTY);
    }
}
