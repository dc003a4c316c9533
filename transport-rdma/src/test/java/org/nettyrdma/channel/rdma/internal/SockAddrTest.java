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

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.junit.jupiter.api.Test;

/**
 * The address images the native library's address calls read and write (docs/native.md, "Layouts"):
 * {@code sockaddr_in} and {@code sockaddr_in6} byte by byte, what reading them back gives a user, and
 * the link-local address that cannot be given without its interface.
 */
class SockAddrTest {

    private static final short AF_INET = 2;
    private static final short AF_INET6 = 10;
    private static final short AF_IB = 27;

    private final SockAddr sockAddr = new SockAddr();

    @Test
    void anIpv4AddressIsASockaddrIn() throws Exception {
        sockAddr.write(new InetSocketAddress(InetAddress.getByName("fd00:77::1"), 1));
        sockAddr.write(new InetSocketAddress(InetAddress.getByName("10.77.0.1"), 7001));
        ByteBuffer memory = sockAddr.memory();
        assertEquals(AF_INET, memory.getShort(0));
        assertEquals(7001, memory.duplicate().order(ByteOrder.BIG_ENDIAN).getShort(2) & 0xffff);
        assertArrayEquals(new byte[] {10, 77, 0, 1}, bytes(memory, 4, 4));
        assertArrayEquals(new byte[SockAddr.SIZE - 8], bytes(memory, 8, SockAddr.SIZE - 8),
                "the rest is zero, whatever was written before");
    }

    @Test
    void anIpv6AddressIsASockaddrIn6WithItsScope() throws Exception {
        byte[] linkLocal = InetAddress.getByName("fe80::1").getAddress();
        sockAddr.write(new InetSocketAddress(Inet6Address.getByAddress(null, linkLocal, 3), 7002));
        ByteBuffer memory = sockAddr.memory();
        assertEquals(AF_INET6, memory.getShort(0));
        assertEquals(7002, memory.duplicate().order(ByteOrder.BIG_ENDIAN).getShort(2) & 0xffff);
        assertEquals(0, memory.getInt(4), "flow information");
        assertArrayEquals(linkLocal, bytes(memory, 8, 16));
        assertEquals(3, memory.getInt(24), "scope id, in host order");
    }

    @Test
    void readingGivesTheAddressWritten() throws Exception {
        for (String host : new String[] {"10.77.0.1", "fd00:77::1", "::", "0.0.0.0"}) {
            InetSocketAddress written = new InetSocketAddress(InetAddress.getByName(host), 7003);
            sockAddr.write(written);
            InetSocketAddress read = sockAddr.read();
            assertEquals(written, read);
            assertEquals(written.getAddress().getClass(), read.getAddress().getClass(), host);
        }
    }

    @Test
    void aGlobalIpv6AddressReadsWithoutAScope() throws Exception {
        sockAddr.write(new InetSocketAddress(InetAddress.getByName("fd00:77::1"), 7004));
        InetSocketAddress read = sockAddr.read();
        assertEquals("fd00:77:0:0:0:0:0:1", read.getAddress().getHostAddress());
    }

    @Test
    void aScopedAddressKeepsItsScope() throws Exception {
        byte[] linkLocal = InetAddress.getByName("fe80::1").getAddress();
        sockAddr.write(new InetSocketAddress(Inet6Address.getByAddress(null, linkLocal, 5), 7005));
        Inet6Address read = (Inet6Address) sockAddr.read().getAddress();
        assertEquals(5, read.getScopeId());
    }

    @Test
    void anIpv4MappedAddressReadsAsTheIpv4One() throws Exception {
        // What RDMA CM may report for an IPv4 peer of a listener on the IPv6 wildcard: the user sees
        // the IPv4 address, as on Netty's epoll transport, and admission counts the peer once.
        byte[] mapped = new byte[16];
        mapped[10] = (byte) 0xff;
        mapped[11] = (byte) 0xff;
        mapped[12] = 10;
        mapped[13] = 77;
        mapped[15] = 1;
        ByteBuffer memory = sockAddr.memory();
        memory.putShort(0, AF_INET6);
        memory.duplicate().order(ByteOrder.BIG_ENDIAN).putShort(2, (short) 7006);
        memory.put(8, mapped);
        memory.putInt(24, 0);
        InetSocketAddress read = sockAddr.read();
        assertInstanceOf(Inet4Address.class, read.getAddress());
        assertEquals(new InetSocketAddress(InetAddress.getByName("10.77.0.1"), 7006), read);
    }

    @Test
    void anotherFamilyReadsAsNull() {
        sockAddr.memory().putShort(0, AF_IB);
        assertNull(sockAddr.read());
    }

    @Test
    void aLinkLocalAddressWithoutItsInterfaceIsRefusedWithWhatToGive() throws Exception {
        InetSocketAddress unscoped = new InetSocketAddress(InetAddress.getByName("fe80::1"), 7007);
        SocketException e = assertThrows(SocketException.class, () -> sockAddr.write(unscoped));
        assertTrue(e.getMessage().contains("fe80:0:0:0:0:0:0:1%"), e.getMessage());
        assertTrue(e.getMessage().contains("interface"), e.getMessage());
    }

    private static byte[] bytes(ByteBuffer memory, int offset, int length) {
        byte[] bytes = new byte[length];
        memory.get(offset, bytes);
        return bytes;
    }
}
