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
package org.nettyrdma.testsuite.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * Netty's HTTP/1.1 codecs, unchanged, over RDMA: one keep-alive connection carries requests whose
 * bodies range from empty to several MiB (Sends, RDMA Writes, and bodies larger than the ring), the
 * server answers each with the body it received, and the client gets every answer whole and in order.
 * Then a request asking to close gets its answer before the server closes the connection.
 */
class RdmaHttpTest {

    private static final int MAX_BODY = 8 << 20;
    private static final int[] BODY_SIZES = {0, 1, 100, 8191, 8192, 65536, 300_000, 1 << 20, 2 << 20, 10, 0};

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    @Test
    void keepAliveRequestsOfEverySizeAreAnsweredWithTheirBodies() throws Exception {
        Channel server = rdma.bind(rdma.server().childHandler(RdmaTransportFixture.pipeline(
                new HttpServerCodec(), new HttpObjectAggregator(MAX_BODY), new BodyEchoHandler())));
        HttpResponseQueue responses = new HttpResponseQueue();
        Channel client = rdma.client().handler(RdmaTransportFixture.pipeline(
                new HttpClientCodec(), new HttpObjectAggregator(MAX_BODY), responses))
                .connect(server.localAddress()).sync().channel();

        Random random = new Random(42);
        for (int i = 0; i < BODY_SIZES.length; i++) {
            byte[] body = new byte[BODY_SIZES[i]];
            random.nextBytes(body);
            FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1,
                    body.length == 0 ? HttpMethod.GET : HttpMethod.POST, "/echo/" + i, Unpooled.wrappedBuffer(body));
            HttpUtil.setContentLength(request, body.length);
            client.writeAndFlush(request).sync();

            FullHttpResponse response = responses.take();
            try {
                assertEquals(HttpResponseStatus.OK, response.status(), "request " + i);
                assertEquals("/echo/" + i, response.headers().get("x-uri"), "answers in order");
                assertEquals(body.length, response.content().readableBytes(), "request " + i + " body length");
                assertTrue(ByteBufUtil.equals(Unpooled.wrappedBuffer(body), response.content()),
                        "request " + i + ": the body came back unchanged");
                assertTrue(HttpUtil.isKeepAlive(response), "the connection is kept alive");
            } finally {
                response.release();
            }
        }

        FullHttpRequest last = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/last");
        last.headers().set(HttpHeaderNames.CONNECTION, "close");
        HttpUtil.setContentLength(last, 0);
        client.writeAndFlush(last).sync();
        FullHttpResponse response = responses.take();
        try {
            assertEquals("/last", response.headers().get("x-uri"));
        } finally {
            response.release();
        }
        assertTrue(client.closeFuture().await(30, TimeUnit.SECONDS), "the server closed the connection");
        server.close().sync();
    }

    /** Answers each request with its own body, the request's URI in {@code x-uri}. */
    private static final class BodyEchoHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            // The content is handed on: the response releases it once written.
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                    request.content().retain());
            response.headers().set("x-uri", request.uri());
            HttpUtil.setContentLength(response, response.content().readableBytes());
            HttpUtil.setKeepAlive(response, keepAlive);
            if (keepAlive) {
                ctx.writeAndFlush(response);
            } else {
                ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
            }
        }
    }
}
