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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * The {@code wr_id} layout: the registration id in the bits the connection leaves free, both parts
 * read back unchanged, and a connection id that would reach the registration's bits refused.
 */
class WorkRequestIdTest {

    /** The connection's tag of its receives (RdmaConnection.RECEIVE_TAG). */
    private static final long RECEIVE_TAG = 1L << 62;

    @Test
    void bothPartsComeBackUnchanged() {
        WorkRequests chain = WorkRequests.receives(1);
        for (int owner : new int[] {1, 2, 0x1234, WorkRequests.MAX_OWNER}) {
            chain.claim(owner);
            for (long wrId : new long[] {0, 7, RECEIVE_TAG | 3, (1L << WorkRequests.OWNER_SHIFT) - 1,
                    RECEIVE_TAG | ((1L << WorkRequests.OWNER_SHIFT) - 1)}) {
                long stamped = chain.stamp(wrId);
                assertEquals(owner, WorkRequests.ownerOf(stamped), "owner of 0x" + Long.toHexString(stamped));
                assertEquals(wrId, WorkRequests.connectionPart(stamped), "connection's part of 0x"
                        + Long.toHexString(stamped));
            }
        }
    }

    @Test
    void aConnectionIdInTheOwnersBitsIsRefused() {
        WorkRequests chain = WorkRequests.sends(1);
        chain.claim(5);
        assertThrows(IllegalArgumentException.class, () -> chain.stamp(1L << WorkRequests.OWNER_SHIFT));
        assertThrows(IllegalArgumentException.class, () -> chain.stamp(1L << 61));
    }
}
