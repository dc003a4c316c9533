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
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A {@code struct sockaddr_in} or {@code struct sockaddr_in6} in direct memory, as the address
 * calls of the native library take and give them: family in host order, port (and an IPv6
 * address's flow information) in network order, the address, and an IPv6 address's scope id in host
 * order. The memory holds the larger of the two, so that the library can write either family into it
 * (docs/native.md, "Layouts").
 *
 * <p>Addresses read back are the ones a user sees: an IPv4-mapped IPv6 address
 * ({@code ::ffff:a.b.c.d}) becomes the IPv4 address, as Netty's epoll transport reports it, so that
 * one peer is one address whichever family carried it. Not thread-safe; one per user.
 */
public final class SockAddr {

    /** {@code sizeof(struct sockaddr_in6)}, which holds a {@code sockaddr_in} too. */
    public static final int SIZE = 28;

    private static final short AF_INET = 2;
    private static final short AF_INET6 = 10;
    private static final int FAMILY_OFFSET = 0;
    private static final int PORT_OFFSET = 2;
    private static final int IPV4_ADDRESS_OFFSET = 4;
    private static final int IPV6_ADDRESS_OFFSET = 8;
    private static final int IPV6_SCOPE_OFFSET = 24;

    private final ByteBuffer memory = ByteBuffer.allocateDirect(SIZE).order(ByteOrder.nativeOrder());
    private final long address = RdmaNative.directBufferAddress(memory);

    /**
     * Checks that {@code address} can be given to RDMA CM as it is: an IPv6 link-local address names no
     * interface by itself, and RDMA CM, like the kernel's sockets, needs the one it is on.
     *
     * @throws SocketException for a link-local IPv6 address without a scope
     */
    public static void checkScope(InetAddress address) throws SocketException {
        if (address instanceof Inet6Address && address.isLinkLocalAddress()
                && ((Inet6Address) address).getScopeId() == 0) {
            throw new SocketException("the IPv6 link-local address " + address.getHostAddress()
                    + " has no scope: give the interface it is on, as in " + address.getHostAddress()
                    + "%rdma0 for the interface rdma0");
        }
    }

    /** Writes {@code socketAddress} and returns the memory's address. */
    public long write(InetSocketAddress socketAddress) throws IOException {
        InetAddress inet = socketAddress.getAddress();
        if (inet == null) {
            throw new UnknownHostException("unresolved address: " + socketAddress);
        }
        checkScope(inet);
        for (int i = 0; i < SIZE; i++) {
            memory.put(i, (byte) 0);
        }
        memory.order(ByteOrder.BIG_ENDIAN).putShort(PORT_OFFSET, (short) socketAddress.getPort())
                .order(ByteOrder.nativeOrder());
        if (inet instanceof Inet4Address) {
            memory.putShort(FAMILY_OFFSET, AF_INET);
            memory.put(IPV4_ADDRESS_OFFSET, inet.getAddress(), 0, 4);
        } else {
            // The flow information stays 0: RDMA CM takes none from the address.
            memory.putShort(FAMILY_OFFSET, AF_INET6);
            memory.put(IPV6_ADDRESS_OFFSET, inet.getAddress(), 0, 16);
            memory.putInt(IPV6_SCOPE_OFFSET, ((Inet6Address) inet).getScopeId());
        }
        return address;
    }

    /** Returns the memory's address, for calls that write an address into it. */
    public long address() {
        return address;
    }

    /** Returns the memory itself, for the tests of its layout. */
    ByteBuffer memory() {
        return memory;
    }

    /** Reads the address a call wrote, or returns {@code null} if it is of another family. */
    public InetSocketAddress read() {
        short family = memory.getShort(FAMILY_OFFSET);
        if (family != AF_INET && family != AF_INET6) {
            return null;
        }
        int port = memory.order(ByteOrder.BIG_ENDIAN).getShort(PORT_OFFSET) & 0xffff;
        memory.order(ByteOrder.nativeOrder());
        byte[] bytes = new byte[family == AF_INET ? 4 : 16];
        memory.get(family == AF_INET ? IPV4_ADDRESS_OFFSET : IPV6_ADDRESS_OFFSET, bytes);
        int scope = family == AF_INET6 ? memory.getInt(IPV6_SCOPE_OFFSET) : 0;
        try {
            // getByAddress makes an IPv4-mapped address the IPv4 one; a scope is only kept where
            // there is one, so that a global address does not print as "%0".
            InetAddress inet = scope == 0 ? InetAddress.getByAddress(bytes)
                    : Inet6Address.getByAddress(null, bytes, scope);
            return new InetSocketAddress(inet, port);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // 4 or 16 bytes are always a valid address
        }
    }
}
