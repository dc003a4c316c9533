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
 * Makes the connections of a test class open no ring on any device ({@code -Dorg.nettyrdma.ring=never}),
 * as on rxe and siw by default: every byte travels by Send into the receive slots, so the Sends path
 * is tested on every device, and under {@code --suite rings} too. Connections made in this process
 * only; for the class's lifetime.
 */
public final class SendsOnly implements BeforeAllCallback, AfterAllCallback {

    @Override
    public void beforeAll(ExtensionContext context) {
        System.setProperty(RingsOnEveryDevice.PROPERTY, "never");
    }

    @Override
    public void afterAll(ExtensionContext context) {
        System.clearProperty(RingsOnEveryDevice.PROPERTY);
    }
}
