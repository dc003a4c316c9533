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
package org.nettyrdma.channel.rdma.loop;

import io.netty.channel.IoEvent;
import org.nettyrdma.channel.rdma.internal.CmEvent;
import org.nettyrdma.channel.rdma.internal.WorkCompletionStatus;

/**
 * What the loop hands to a channel's {@link RdmaIoHandle}: a work completion of its queue pair or an
 * RDMA CM event of its id. One instance per loop, refilled for each event, so it is valid only
 * during the {@code handle} call it is passed to.
 */
public final class RdmaIoEvent implements IoEvent {

    private CmEvent cmEvent;
    private long wrId;
    private int status;
    private int opcode;
    private int byteLength;
    private int immediate;
    private int flags;

    RdmaIoEvent() {
    }

    void completion(long wrId, int status, int opcode, int byteLength, int immediate, int flags) {
        this.cmEvent = null;
        this.wrId = wrId;
        this.status = status;
        this.opcode = opcode;
        this.byteLength = byteLength;
        this.immediate = immediate;
        this.flags = flags;
    }

    void cm(CmEvent event) {
        this.cmEvent = event;
    }

    /** Returns {@code true} for a work completion, {@code false} for an RDMA CM event. */
    public boolean isCompletion() {
        return cmEvent == null;
    }

    /** Returns the RDMA CM event, or {@code null} for a work completion. */
    public CmEvent cmEvent() {
        return cmEvent;
    }

    /** Returns the completion's {@code wr_id} as the connection posted it, the registration id masked out. */
    public long wrId() {
        return wrId;
    }

    /** Returns the completion's status ({@link WorkCompletionStatus}). */
    public int status() {
        return status;
    }

    /** Returns the completion's opcode; not meaningful for a failed one. */
    public int opcode() {
        return opcode;
    }

    /** Returns the bytes a receive completion brought. */
    public int byteLength() {
        return byteLength;
    }

    /** Returns the completion's {@code wc_flags}, such as {@code RdmaNative.WC_WITH_INV}. */
    public int flags() {
        return flags;
    }

    /** Returns the immediate data of a receive completion. */
    public int immediate() {
        return immediate;
    }

    @Override
    public String toString() {
        return isCompletion() ? "completion(wr_id 0x" + Long.toHexString(wrId) + ", status " + status + ')'
                : cmEvent.toString();
    }
}
