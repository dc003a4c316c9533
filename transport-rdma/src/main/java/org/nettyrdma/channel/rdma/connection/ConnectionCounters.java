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
package org.nettyrdma.channel.rdma.connection;


/**
 * The counts behind {@code RdmaChannelMetrics}, kept by one {@link RdmaConnection} on its event loop.
 * Plain fields: only the loop writes them, and a snapshot taken on another thread may lag, as the
 * metrics say. They are public for {@code RdmaChannelMetrics}, which copies them into its snapshot.
 */
public final class ConnectionCounters {

    public long sends;
    public long sendBytes;
    public long rdmaWrites;
    public long rdmaWriteBytes;
    public long copiedBytes;
    public long controlMessages;
    public long receivedSends;
    public long receivedWrites;
    public long receivedBytes;
    /** Received bytes copied out of receive slots or rings into buffers of the channel's allocator. */
    public long receiveCopiedBytes;
    public long creditStalls;
    public long keepAliveProbes;
    /** Receives the peer's Sends took after the connection failed: given back untaken. */
    public long refusedReceives;
    /** Times the peer's share of the shared receive queue grew. */
    long shareGrowths;
    /** Rings opened to the peer, and closed again once it released them. */
    public long ringsOpened;
    public long ringsClosed;
    /** The size of the ring the peer has open to this side; 0 while none is. */
    public long peerRingSize;

    /** Counts a Send of {@code payload} bytes of data, copied into a staging block. */
    public void sent(int payload) {
        sends++;
        sendBytes += payload;
        copiedBytes += payload;
    }

    /** Counts a Send of {@code payload} bytes of data read where they are: a registered buffer's. */
    public void sentInPlace(int payload) {
        sends++;
        sendBytes += payload;
    }

    /** Counts an RDMA Write of {@code length} bytes of data, {@code copied} or sent in place. */
    public void wrote(int length, boolean copied) {
        rdmaWrites++;
        rdmaWriteBytes += length;
        if (copied) {
            copiedBytes += length;
        }
    }

    /** Counts a Send of {@code payload} bytes of data received. */
    public void receivedSend(int payload) {
        receivedSends++;
        receivedBytes += payload;
    }

    /** Counts an RDMA Write of {@code length} bytes of data received. */
    public void receivedWrite(int length) {
        receivedWrites++;
        receivedBytes += length;
    }
}
