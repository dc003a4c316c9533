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
package org.nettyrdma.channel.rdma;

import java.net.InetAddress;
import java.net.UnknownHostException;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.unix.Socket;

/**
 * The address a server bound to the wildcard listens on, over RDMA CM and over TCP alike. Netty's
 * epoll transport makes {@code bind(port)}, {@code bind("0.0.0.0", port)} and
 * {@code bind("::", port)} one dual-stack socket bound to {@code in6addr_any} wherever IPv6 can be
 * used. The TCP listener does the same; RDMA CM listens on {@code ::} for IPv6 alone and on
 * {@code 0.0.0.0} beside it ({@link RdmaServerSocketChannel}), since iWARP's RDMA CM takes no IPv4
 * connection on an IPv6 listener. Where Netty makes IPv4 sockets only
 * ({@code java.net.preferIPv4Stack}, a kernel without IPv6) both take IPv4's wildcard alone.
 */
final class WildcardAddress {

    private WildcardAddress() {
    }

    /** Returns the wildcard address a server listens on. */
    static InetAddress get() {
        Epoll.ensureAvailability();
        return any(Socket.isIPv6Preferred() ? 16 : 4);
    }

    /** Returns IPv4's wildcard, {@code 0.0.0.0}. */
    static InetAddress ipv4() {
        return any(4);
    }

    private static InetAddress any(int length) {
        try {
            return InetAddress.getByAddress(new byte[length]);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // 4 or 16 bytes are always an address
        }
    }
}
