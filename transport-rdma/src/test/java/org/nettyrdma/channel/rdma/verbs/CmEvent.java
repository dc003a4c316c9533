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

/**
 * One RDMA CM event as {@code RdmaNative.pollCmEvent} reports it: with the status and private data
 * that DiSNI's own event call drops.
 */
record CmEvent(int type, int status, long id, long listenId, int remoteQpNum, byte[] privateData) {

    /** Returns the name of the event type, e.g. {@code ESTABLISHED}. */
    String typeName() {
        RdmaCmEventType[] types = RdmaCmEventType.values();
        return type >= 0 && type < types.length ? types[type].name() : "UNKNOWN(" + type + ')';
    }

    @Override
    public String toString() {
        return typeName() + "(status " + status + ", private data " + privateData.length + " bytes)";
    }
}
