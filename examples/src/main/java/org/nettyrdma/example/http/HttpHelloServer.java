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
package org.nettyrdma.example.http;

import static io.netty.handler.codec.http.HttpHeaderNames.CONNECTION;
import static io.netty.handler.codec.http.HttpHeaderNames.CONTENT_LENGTH;
import static io.netty.handler.codec.http.HttpHeaderNames.CONTENT_TYPE;
import static io.netty.handler.codec.http.HttpHeaderValues.CLOSE;
import static io.netty.handler.codec.http.HttpHeaderValues.KEEP_ALIVE;
import static io.netty.handler.codec.http.HttpResponseStatus.OK;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import org.nettyrdma.example.ExampleOptions;
import org.nettyrdma.example.Transport;

/**
 * Answers every HTTP request with {@code Hello over <transport>}: Netty's stock HTTP server pipeline
 * ({@link HttpServerCodec}, {@link HttpObjectAggregator}, a handler), unchanged but for the event loop
 * group and the channel class. Start it, then {@link HttpHelloClient}:
 *
 * <pre>
 * java ... org.nettyrdma.example.http.HttpHelloServer --transport rdma --host 10.77.0.1
 * </pre>
 */
public final class HttpHelloServer {

    /** The port the HTTP examples use unless told otherwise. */
    public static final int DEFAULT_PORT = 8080;

    private static final String USAGE =
            "usage: HttpHelloServer [--transport rdma|rdma-busypoll|nio|epoll] [--host ADDRESS] "
                    + "[--port " + DEFAULT_PORT + "]";

    private HttpHelloServer() {
    }

    /** Runs the server until it is killed. */
    public static void main(String[] args) throws Exception {
        ExampleOptions options = ExampleOptions.parse(USAGE, args);
        Transport transport = options.transport();
        InetSocketAddress address = options.address(DEFAULT_PORT);
        options.checkAllRead();

        EventLoopGroup group = transport.newEventLoopGroup(1);
        try {
            Channel server = start(group, transport, address);
            System.out.println("http server over " + transport.displayName() + " on " + server.localAddress());
            server.closeFuture().sync();
        } finally {
            group.shutdownGracefully();
        }
    }

    /** Returns the body every answer of a server of {@code transport} carries. */
    public static String greeting(Transport transport) {
        return "Hello over " + transport.displayName();
    }

    /** Binds an HTTP server of {@code transport} to {@code address} and returns its channel. */
    public static Channel start(EventLoopGroup group, Transport transport, SocketAddress address)
            throws InterruptedException {
        byte[] greeting = greeting(transport).getBytes(StandardCharsets.UTF_8);
        return new ServerBootstrap()
                .group(group)
                .channel(transport.serverSocketChannelClass())
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(
                                new HttpServerCodec(),
                                new HttpObjectAggregator(64 * 1024),
                                new HelloHandler(greeting));
                    }
                })
                .bind(address).sync().channel();
    }

    /** Answers each request with the greeting; keeps the connection open when the client asked to. */
    private static final class HelloHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final byte[] greeting;

        HelloHandler(byte[] greeting) {
            this.greeting = greeting;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            ByteBuf content = ctx.alloc().buffer(greeting.length).writeBytes(greeting);
            FullHttpResponse response = new DefaultFullHttpResponse(request.protocolVersion(), OK, content);
            response.headers()
                    .set(CONTENT_TYPE, "text/plain; charset=UTF-8")
                    .setInt(CONTENT_LENGTH, content.readableBytes());
            if (!keepAlive) {
                response.headers().set(CONNECTION, CLOSE);
            } else if (!request.protocolVersion().isKeepAliveDefault()) {
                response.headers().set(CONNECTION, KEEP_ALIVE);
            }
            ChannelFuture written = ctx.writeAndFlush(response);
            if (!keepAlive) {
                written.addListener(ChannelFutureListener.CLOSE);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            System.err.println("http server: closing " + ctx.channel() + ": " + cause);
            ctx.close();
        }
    }
}
