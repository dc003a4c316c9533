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

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.junit.jupiter.api.Test;
import org.nettyrdma.channel.rdma.protocol.RejectReason;

/**
 * The private data of a CM event record as {@link CmEvent#privateData()} hands it to
 * {@link RejectReason}: the length the record gives, bounded by the room the record has for it.
 */
class CmEventTest {

    private final ByteBuffer record = ByteBuffer.allocateDirect(RdmaNative.CM_EVENT_SIZE)
            .order(ByteOrder.nativeOrder());
    private final CmEvent event = new CmEvent(record);

    @Test
    void readsTheReasonOfAReject() {
        for (int reason = RejectReason.BACKLOG_FULL; reason <= RejectReason.SERVER_ERROR; reason++) {
            RejectReason.encode(record.slice(RdmaNative.CM_EVENT_PRIVATE_DATA_OFFSET, RejectReason.SIZE), reason);
            record.putInt(RdmaNative.CM_EVENT_PRIVATE_DATA_LENGTH_OFFSET, RejectReason.SIZE);
            assertEquals(RejectReason.SIZE, event.privateData().remaining());
            assertEquals(reason, RejectReason.decode(event.privateData()));
        }
    }

    @Test
    void boundsTheLengthTheRecordGives() {
        RejectReason.encode(record.slice(RdmaNative.CM_EVENT_PRIVATE_DATA_OFFSET, RejectReason.SIZE),
                RejectReason.BACKLOG_FULL);
        record.putInt(RdmaNative.CM_EVENT_PRIVATE_DATA_LENGTH_OFFSET, Integer.MAX_VALUE);
        assertEquals(RdmaNative.CM_EVENT_PRIVATE_DATA_MAX, event.privateData().remaining());
        assertEquals(RejectReason.BACKLOG_FULL, RejectReason.decode(event.privateData()));
        record.putInt(RdmaNative.CM_EVENT_PRIVATE_DATA_LENGTH_OFFSET, -1);
        assertEquals(0, event.privateData().remaining());
        assertEquals(0, RejectReason.decode(event.privateData()));
    }

    @Test
    void aRejectWithoutPrivateDataHasNoReason() {
        record.putInt(RdmaNative.CM_EVENT_PRIVATE_DATA_LENGTH_OFFSET, 0);
        assertEquals(0, RejectReason.decode(event.privateData()));
    }
}
