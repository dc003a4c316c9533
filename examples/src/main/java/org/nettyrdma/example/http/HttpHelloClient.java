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

import static io.netty.handler.codec.http.HttpHeaderNames.HOST;

import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import org.nettyrdma.example.ExampleOptions;
import org.nettyrdma.example.Transport;

/**
 * Sends GET requests to an {@link HttpHelloServer} over one keep-alive connection, one after another,
 * and checks every answer: status 200 and the body {@code Hello over <transport>}. Prints one line and
 * exits with status 0 when all were right.
 *
 * <pre>
 * java ... org.nettyrdma.example.http.HttpHelloClient --transport rdma --host 10.77.0.1 --requests 100
 * </pre>
 */
public final class HttpHelloClient {

    private static final String USAGE = "usage: HttpHelloClient [--transport rdma|rdma-busypoll|nio|epoll] "
            + "[--host ADDRESS] [--port " + HttpHelloServer.DEFAULT_PORT + "] [--requests N, default 100]";
    private static final long TIMEOUT_SECONDS = 120;

    private HttpHelloClient() {
    }

    /** Connects, sends the requests, prints the result. */
    public static void main(String[] args) throws Exception {
        ExampleOptions options = ExampleOptions.parse(USAGE, args);
        Transport transport = options.transport();
        InetSocketAddress address = options.address(HttpHelloServer.DEFAULT_PORT);
        int requests = options.integer("requests", 100);
        options.checkAllRead();

        EventLoopGroup group = transport.newEventLoopGroup(1);
        try {
            long nanos = get(group, transport, address, requests);
            System.out.printf("http: %d GETs over %s to %s, every answer 200 \"%s\" (%d ms)%n", requests,
                    transport.displayName(), address, HttpHelloServer.greeting(transport),
                    TimeUnit.NANOSECONDS.toMillis(nanos));
        } finally {
            group.shutdownGracefully();
        }
    }

    /**
     * Connects to the server at {@code address}, sends {@code requests} GETs one after another and checks
     * each answer, then closes. Returns the nanoseconds it took.
     *
     * @throws Exception if an answer was wrong, the connection failed or closed early, or two minutes passed
     */
    public static long get(EventLoopGroup group, Transport transport, InetSocketAddress address, int requests)
            throws Exception {
        if (requests < 1) {
            throw new IllegalArgumentException("requests: " + requests + " (expected: >= 1)");
        }
        long start = System.nanoTime();
        CompletableFuture<Void> done = new CompletableFuture<>();
        HelloClientHandler handler = new HelloClientHandler(address.getHostString(),
                HttpHelloServer.greeting(transport), requests, done);
        Channel channel = new Bootstrap()
                .group(group)
                .channel(transport.socketChannelClass())
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(
                                new HttpClientCodec(),
                                new HttpObjectAggregator(64 * 1024),
                                handler);
                    }
                })
                .connect(address).sync().channel();
        try {
            done.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } finally {
            channel.close().sync();
        }
        return System.nanoTime() - start;
    }

    /** Sends a GET, checks its answer, sends the next. */
    private static final class HelloClientHandler extends SimpleChannelInboundHandler<FullHttpResponse> {
        private final String host;
        private final String expected;
        private final int requests;
        private final CompletableFuture<Void> done;
        private int answered;

        HelloClientHandler(String host, String expected, int requests, CompletableFuture<Void> done) {
            this.host = host;
            this.expected = expected;
            this.requests = requests;
            this.done = done;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            sendGet(ctx);
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
            String body = response.content().toString(StandardCharsets.UTF_8);
            if (!HttpResponseStatus.OK.equals(response.status()) || !expected.equals(body)) {
                fail(ctx, new IllegalStateException("answer " + answered + ": " + response.status() + " \""
                        + body + "\" (expected: 200 OK \"" + expected + "\")"));
                return;
            }
            if (++answered == requests) {
                done.complete(null);
            } else {
                sendGet(ctx);
            }
        }

        private void sendGet(ChannelHandlerContext ctx) {
            FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/");
            request.headers().set(HOST, host);
            ctx.writeAndFlush(request);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            // Harmless once every answer arrived: the future is already complete.
            done.completeExceptionally(new ClosedChannelException());
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            fail(ctx, cause);
        }

        private void fail(ChannelHandlerContext ctx, Throwable cause) {
            done.completeExceptionally(cause);
            ctx.close();
        }
    }
}
