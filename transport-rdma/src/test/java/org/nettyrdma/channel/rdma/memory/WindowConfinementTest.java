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
package org.nettyrdma.channel.rdma.memory;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.nettyrdma.channel.rdma.internal.RdmaNative;

/**
 * Which devices' memory windows confine a peer (docs/rxe-remote-invalidation.md), from the attributes a
 * device reports, without a device.
 */
class WindowConfinementTest {

    private static final int MELLANOX = 0x02c9;

    @Test
    void aDeviceWithType2WindowsConfines() {
        assertTrue(RdmaDevice.windowsConfinePeers(MELLANOX, RdmaNative.DEVICE_CAP_MEM_WINDOW_TYPE_2B));
    }

    @Test
    void rxeDoesNotThoughItHasType2Windows() {
        assertFalse(RdmaDevice.windowsConfinePeers(RdmaDevice.RXE_VENDOR_ID,
                RdmaNative.DEVICE_CAP_MEM_WINDOW_TYPE_2B | 1 << 17));
    }

    @Test
    void aDeviceWithoutType2WindowsDoesNot() {
        assertFalse(RdmaDevice.windowsConfinePeers(MELLANOX, 1 << 17));
        assertFalse(RdmaDevice.windowsConfinePeers(MELLANOX, 0));
    }
}
