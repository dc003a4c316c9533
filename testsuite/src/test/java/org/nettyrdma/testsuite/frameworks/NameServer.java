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
package org.nettyrdma.testsuite.frameworks;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.dns.DatagramDnsQuery;
import io.netty.handler.codec.dns.DatagramDnsQueryDecoder;
import io.netty.handler.codec.dns.DatagramDnsResponse;
import io.netty.handler.codec.dns.DatagramDnsResponseEncoder;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DefaultDnsRawRecord;
import io.netty.handler.codec.dns.DnsQuestion;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponseCode;
import io.netty.handler.codec.dns.DnsSection;

/**
 * A name server for the tests, over UDP on 127.0.0.1: answers the A queries for the names it was
 * given and says that other names do not exist, and counts the A queries per name. The VM has no
 * other: this is how a test sees that a framework's DNS resolver sent a real query from the channel
 * it made on the RDMA event loop. A name given as {@code truncated} is answered with the TC flag, as
 * a server does whose answer does not fit in a datagram, which sends a resolver to TCP.
 *
 * <p>Runs on a NIO loop of its own: it stands for a server outside the process.
 */
public final class NameServer implements AutoCloseable {

    private static final int TTL_SECONDS = 60;

    private final Map<String, InetAddress> names;
    private final Map<String, AtomicInteger> queries = new ConcurrentHashMap<>();
    private final String truncated;
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Channel channel;

    private NameServer(Map<String, InetAddress> names, String truncated) throws InterruptedException {
        this.names = Map.copyOf(names);
        this.truncated = truncated;
        channel = new Bootstrap().group(group).channel(NioDatagramChannel.class)
                .handler(new ChannelInitializer<DatagramChannel>() {
                    @Override
                    protected void initChannel(DatagramChannel ch) {
                        ch.pipeline().addLast(new DatagramDnsQueryDecoder(), new DatagramDnsResponseEncoder(),
                                new Answers());
                    }
                })
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
    }

    /**
     * Starts a server that answers the A queries for {@code names} (each without the final dot), the
     * one for {@code truncated} (one of them, or {@code null}) with the TC flag set.
     */
    public static NameServer start(Map<String, InetAddress> names, String truncated) throws InterruptedException {
        return new NameServer(names, truncated);
    }

    /** Returns the server's address, {@code 127.0.0.1:port}. */
    public InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    /** Returns how many A queries for {@code name} the server answered. */
    public int queries(String name) {
        AtomicInteger count = queries.get(name);
        return count == null ? 0 : count.get();
    }

    @Override
    public void close() throws InterruptedException {
        channel.close().sync();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).sync();
    }

    /** Answers each query in the datagram it came in, one question each. */
    private final class Answers extends SimpleChannelInboundHandler<DatagramDnsQuery> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, DatagramDnsQuery query) {
            DnsQuestion question = query.recordAt(DnsSection.QUESTION);
            String name = question.name().endsWith(".")
                    ? question.name().substring(0, question.name().length() - 1) : question.name();
            InetAddress address = names.get(name);
            DatagramDnsResponse response = new DatagramDnsResponse(query.recipient(), query.sender(), query.id());
            response.setRecursionAvailable(true).setAuthoritativeAnswer(true);
            response.addRecord(DnsSection.QUESTION, new DefaultDnsQuestion(question.name(), question.type()));
            if (address == null) {
                response.setCode(DnsResponseCode.NXDOMAIN);
            } else if (question.type() == DnsRecordType.A) {
                queries.computeIfAbsent(name, key -> new AtomicInteger()).incrementAndGet();
                response.addRecord(DnsSection.ANSWER, new DefaultDnsRawRecord(question.name(), DnsRecordType.A,
                        TTL_SECONDS, Unpooled.wrappedBuffer(address.getAddress())));
                response.setTruncated(name.equals(truncated));
            }
            // Other types for a known name (AAAA): no record, no error.
            ctx.writeAndFlush(response);
        }
    }
}
