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

import java.io.IOException;
import java.net.InetSocketAddress;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;

/**
 * The TCP side of an {@link RdmaServerSocketChannel} with {@link RdmaChannelOption#TCP_FALLBACK}: a
 * Netty {@link EpollServerSocketChannel} on the server's event loop, at the server's address and
 * port, that accepts only when the server reads ({@code AUTO_READ} off) and hands each accepted TCP
 * connection to the server ({@link RdmaServerSocketChannel#acceptCarried}).
 *
 * <p>Threading: the server channel's event loop only.
 */
final class TcpListener {

    private final RdmaServerSocketChannel server;
    private final EpollServerSocketChannel listener = new EpollServerSocketChannel();

    TcpListener(RdmaServerSocketChannel server) {
        this.server = server;
        listener.pipeline().addLast(new Acceptor());
    }

    /**
     * Registers the listener on {@code loop}, the server's, and binds it to {@code address}; both run
     * at once since the caller is on that loop.
     */
    void bind(EventLoop loop, InetSocketAddress address) throws Exception {
        RdmaServerSocketChannelConfig config = server.config();
        listener.config()
                .setAutoRead(false)
                .setBacklog(config.getBacklog())
                .setReuseAddress(config.isReuseAddress());
        ChannelFuture registered = loop.register(listener);
        if (!registered.isSuccess()) {
            throw failure(registered);
        }
        ChannelFuture bound = listener.bind(address);
        if (!bound.isSuccess()) {
            listener.close();
            throw failure(bound);
        }
    }

    private static Exception failure(ChannelFuture future) {
        Throwable cause = future.cause();
        if (cause instanceof Exception) {
            return (Exception) cause;
        }
        return new IOException("the TCP listener could not " + (future.isDone() ? "listen" : "listen at once"),
                cause);
    }

    /** Returns the address the listener is bound to. */
    InetSocketAddress localAddress() {
        return listener.localAddress();
    }

    /** Accepts what waits, once. */
    void read() {
        listener.read();
    }

    /** Stops listening. */
    void close() {
        listener.close();
    }

    /** In the listener's pipeline: hands each accepted connection to the server. */
    private final class Acceptor extends ChannelInboundHandlerAdapter {

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            server.acceptCarried((EpollSocketChannel) msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            server.pipeline().fireChannelReadComplete();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            server.pipeline().fireExceptionCaught(cause);
        }
    }
}
