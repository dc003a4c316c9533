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

import java.nio.ByteBuffer;

/**
 * A view of the CM event record {@link RdmaNative#pollCmEvent} wrote: one per event channel, reused
 * for every event, so reading events allocates nothing.
 */
public final class CmEvent {

    /** {@code RDMA_CM_EVENT_ADDR_RESOLVED}. */
    public static final int ADDR_RESOLVED = 0;
    /** {@code RDMA_CM_EVENT_ADDR_ERROR}. */
    public static final int ADDR_ERROR = 1;
    /** {@code RDMA_CM_EVENT_ROUTE_RESOLVED}. */
    public static final int ROUTE_RESOLVED = 2;
    /** {@code RDMA_CM_EVENT_ROUTE_ERROR}. */
    public static final int ROUTE_ERROR = 3;
    /** {@code RDMA_CM_EVENT_CONNECT_REQUEST}. */
    public static final int CONNECT_REQUEST = 4;
    /** {@code RDMA_CM_EVENT_CONNECT_ERROR}. */
    public static final int CONNECT_ERROR = 6;
    /** {@code RDMA_CM_EVENT_UNREACHABLE}. */
    public static final int UNREACHABLE = 7;
    /** {@code RDMA_CM_EVENT_REJECTED}. */
    public static final int REJECTED = 8;
    /** {@code RDMA_CM_EVENT_ESTABLISHED}. */
    public static final int ESTABLISHED = 9;
    /** {@code RDMA_CM_EVENT_DISCONNECTED}. */
    public static final int DISCONNECTED = 10;
    /** {@code RDMA_CM_EVENT_DEVICE_REMOVAL}. */
    public static final int DEVICE_REMOVAL = 11;
    /** {@code RDMA_CM_EVENT_TIMEWAIT_EXIT}. */
    public static final int TIMEWAIT_EXIT = 15;

    private static final String[] NAMES = {
        "ADDR_RESOLVED", "ADDR_ERROR", "ROUTE_RESOLVED", "ROUTE_ERROR", "CONNECT_REQUEST", "CONNECT_RESPONSE",
        "CONNECT_ERROR", "UNREACHABLE", "REJECTED", "ESTABLISHED", "DISCONNECTED", "DEVICE_REMOVAL",
        "MULTICAST_JOIN", "MULTICAST_ERROR", "ADDR_CHANGE", "TIMEWAIT_EXIT"
    };

    private final ByteBuffer record;

    /** Reads events from {@code record}, in the native byte order, where the event channel's poll writes them. */
    public CmEvent(ByteBuffer record) {
        this.record = record;
    }

    /** Returns the event type. */
    public int type() {
        return record.getInt(RdmaNative.CM_EVENT_TYPE_OFFSET);
    }

    /** Returns the status: a negative errno, or the transport's reason for a reject. */
    public int status() {
        return record.getInt(RdmaNative.CM_EVENT_STATUS_OFFSET);
    }

    /** Returns the {@code rdma_cm_id*} the event is about. */
    public long id() {
        return record.getLong(RdmaNative.CM_EVENT_ID_OFFSET);
    }

    /** Returns the listening id of a connect request, else 0. */
    public long listenId() {
        return record.getLong(RdmaNative.CM_EVENT_LISTEN_ID_OFFSET);
    }

    /**
     * Returns the private data the event carries, such as the reason a netty-rdma server gave in a
     * {@link #REJECTED}: a view of the record, valid until the next event is polled.
     */
    public ByteBuffer privateData() {
        int length = Math.min(record.getInt(RdmaNative.CM_EVENT_PRIVATE_DATA_LENGTH_OFFSET),
                RdmaNative.CM_EVENT_PRIVATE_DATA_MAX);
        return record.slice(RdmaNative.CM_EVENT_PRIVATE_DATA_OFFSET, Math.max(0, length));
    }

    /** Returns the name of an event type. */
    public static String name(int type) {
        return type >= 0 && type < NAMES.length ? NAMES[type] : "UNKNOWN(" + type + ')';
    }

    @Override
    public String toString() {
        return name(type()) + " (status " + status() + ')';
    }
}
