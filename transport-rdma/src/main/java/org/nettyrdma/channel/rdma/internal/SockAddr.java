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

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A {@code struct sockaddr_in} in direct memory, as DiSNI's address calls take it: family in host
 * order, port and address in network order, the rest zero. IPv4 only, as DiSNI's natives are.
 * Not thread-safe; one per user.
 */
public final class SockAddr {

    private static final short AF_INET = 2;

    private final ByteBuffer memory = ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder());
    private final long address = RdmaNative.directBufferAddress(memory);

    /** Writes {@code socketAddress} and returns the memory's address. */
    public long write(InetSocketAddress socketAddress) throws IOException {
        InetAddress inet = socketAddress.getAddress();
        if (inet == null) {
            throw new UnknownHostException("unresolved address: " + socketAddress);
        }
        if (!(inet instanceof Inet4Address)) {
            throw new IOException("RDMA CM through DiSNI supports IPv4 only, not " + inet);
        }
        for (int i = 0; i < 16; i++) {
            memory.put(i, (byte) 0);
        }
        memory.putShort(0, AF_INET);
        memory.order(ByteOrder.BIG_ENDIAN).putShort(2, (short) socketAddress.getPort()).order(ByteOrder.nativeOrder());
        memory.put(4, inet.getAddress(), 0, 4);
        return address;
    }

    /** Returns the memory's address, for calls that write an address into it. */
    public long address() {
        return address;
    }

    /** Reads the address a call wrote, or returns {@code null} if it is not IPv4. */
    public InetSocketAddress read() {
        if (memory.getShort(0) != AF_INET) {
            return null;
        }
        int port = memory.order(ByteOrder.BIG_ENDIAN).getShort(2) & 0xffff;
        memory.order(ByteOrder.nativeOrder());
        byte[] bytes = new byte[4];
        memory.get(4, bytes);
        try {
            return new InetSocketAddress(InetAddress.getByAddress(bytes), port);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // four bytes are always a valid IPv4 address
        }
    }
}
