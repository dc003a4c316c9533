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
package org.nettyrdma.channel.rdma.verbs;

import static org.nettyrdma.channel.rdma.internal.RdmaNative.CM_EVENT_ID_OFFSET;
import static org.nettyrdma.channel.rdma.internal.RdmaNative.CM_EVENT_LISTEN_ID_OFFSET;
import static org.nettyrdma.channel.rdma.internal.RdmaNative.CM_EVENT_PRIVATE_DATA_LENGTH_OFFSET;
import static org.nettyrdma.channel.rdma.internal.RdmaNative.CM_EVENT_PRIVATE_DATA_OFFSET;
import static org.nettyrdma.channel.rdma.internal.RdmaNative.CM_EVENT_REMOTE_QP_NUM_OFFSET;
import static org.nettyrdma.channel.rdma.internal.RdmaNative.CM_EVENT_SIZE;
import static org.nettyrdma.channel.rdma.internal.RdmaNative.CM_EVENT_STATUS_OFFSET;
import static org.nettyrdma.channel.rdma.internal.RdmaNative.CM_EVENT_TYPE_OFFSET;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.impl.NatObject;
import org.nettyrdma.channel.rdma.internal.RdmaNative;

/**
 * Reads the CM events of one DiSNI event channel through the project's non-blocking
 * {@link RdmaNative#pollCmEvent}, waiting at most a deadline, so that a missing event fails the test
 * instead of hanging it (DiSNI's own connect waits forever on error events).
 */
final class CmEventReader {

    private final long channel;
    private final ByteBuffer record = ByteBuffer.allocateDirect(CM_EVENT_SIZE).order(ByteOrder.nativeOrder());
    private final long recordAddress = MemoryUtils.getAddress(record);

    CmEventReader(RdmaEventChannel channel) {
        this.channel = ((NatObject) channel).getObjId();
    }

    /** Returns the native {@code rdma_event_channel*} this reader polls. */
    long channelHandle() {
        return channel;
    }

    /** Returns the event waiting now, or {@code null} if there is none. */
    CmEvent poll() throws IOException {
        int type = RdmaNative.pollCmEvent(channel, recordAddress);
        return type >= 0 ? decode(type) : null;
    }

    /** Returns the next event, or throws {@link AssertionError} if none arrives in time. */
    CmEvent next(long timeout, TimeUnit unit) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        for (;;) {
            CmEvent event = poll();
            if (event != null) {
                return event;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("no RDMA CM event within " + timeout + ' ' + unit);
            }
            Thread.sleep(1);
        }
    }

    /** Returns the next event and asserts its type. */
    CmEvent expect(RdmaCmEventType expected) throws IOException, InterruptedException {
        CmEvent event = next(20, TimeUnit.SECONDS);
        if (event.type() != expected.ordinal()) {
            throw new AssertionError("expected " + expected + " but got " + event);
        }
        return event;
    }

    private CmEvent decode(int type) {
        int length = record.getInt(CM_EVENT_PRIVATE_DATA_LENGTH_OFFSET);
        byte[] privateData = new byte[length];
        record.get(CM_EVENT_PRIVATE_DATA_OFFSET, privateData);
        if (record.getInt(CM_EVENT_TYPE_OFFSET) != type) {
            throw new AssertionError("event record type " + record.getInt(CM_EVENT_TYPE_OFFSET)
                    + " differs from the returned type " + type);
        }
        return new CmEvent(type, record.getInt(CM_EVENT_STATUS_OFFSET), record.getLong(CM_EVENT_ID_OFFSET),
                record.getLong(CM_EVENT_LISTEN_ID_OFFSET), record.getInt(CM_EVENT_REMOTE_QP_NUM_OFFSET),
                privateData);
    }
}
