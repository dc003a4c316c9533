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

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.handler.codec.http2.Http2StreamFrame;
import io.netty.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.testkit.ExceptionRecorder;
import org.nettyrdma.testkit.RdmaTransportFixture;
import org.nettyrdma.testkit.TestSeed;

/**
 * Netty's HTTP/2 codec, unchanged, over RDMA, the way gRPC uses it: cleartext HTTP/2 with prior
 * knowledge, an {@link Http2MultiplexHandler} on both ends and one child channel per stream. The client
 * opens 50 streams on one connection at once, each a POST whose body is 0 B to 1 MiB (log-uniform, so
 * bodies in one DATA frame, in several, and past the 64 KiB default flow-control windows, which only
 * WINDOW_UPDATE frames from the peer reopen); the server echoes each stream's headers and data as they
 * arrive, so both directions of every stream are in flight together. Every response body must come
 * back byte for byte on its own stream. The seed is printed; {@code RDMA_TEST_SEED} replays a run.
 */
class RdmaHttp2Test {

    private static final int STREAMS = 50;
    private static final int MAX_BODY = 1 << 20;
    /** How long the test waits for all the streams together. */
    private static final long TIMEOUT_SECONDS = 150;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    /**
     * Under full emulation a few MB each way (the bodies vary with the seed), with the streams opened in
     * a cold JVM, can take over a minute: the limit is twice that, above the suite's 120 s default.
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void concurrentStreamsEchoTheirBodies(TestInfo test) throws Exception {
        Random random = new Random(TestSeed.of(test));
        ExceptionRecorder serverErrors = new ExceptionRecorder();
        ExceptionRecorder clientErrors = new ExceptionRecorder();
        Channel server = rdma.bind(rdma.server().childHandler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(Http2FrameCodecBuilder.forServer().build(),
                        new Http2MultiplexHandler(RdmaTransportFixture.pipeline(new StreamEchoHandler(), serverErrors)),
                        serverErrors);
            }
        }));
        // The server pushes no streams, so the handler for pushed ones is never used.
        Channel client = rdma.client().handler(RdmaTransportFixture.pipeline(
                        Http2FrameCodecBuilder.forClient().build(),
                        new Http2MultiplexHandler(new ChannelInboundHandlerAdapter()), clientErrors))
                .connect(server.localAddress()).sync().channel();

        List<byte[]> bodies = new ArrayList<>();
        List<StreamResponse> responses = new ArrayList<>();
        for (int i = 0; i < STREAMS; i++) {
            bodies.add(body(random, i));
            StreamResponse response = new StreamResponse();
            responses.add(response);
            Http2StreamChannel stream = new Http2StreamChannelBootstrap(client).handler(response)
                    .open().sync().getNow();
            response.send(stream, "/echo/" + i, bodies.get(i));
        }

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        for (int i = 0; i < STREAMS; i++) {
            StreamResponse response = responses.get(i);
            byte[] received = response.await("stream " + i + " (" + bodies.get(i).length + " B)", deadline);
            assertEquals(HttpResponseStatus.OK.codeAsText(), response.headers.status(), "stream " + i);
            assertEquals("/echo/" + i, String.valueOf(response.headers.get("x-path")), "stream " + i + "'s answer");
            assertArrayEquals(bodies.get(i), received, "stream " + i + ": the body came back unchanged");
        }
        assertTrue(clientErrors.exceptions().isEmpty(), "client errors: " + clientErrors.exceptions());
        assertTrue(serverErrors.exceptions().isEmpty(), "server errors: " + serverErrors.exceptions());

        client.close().sync();
        server.close().sync();
    }

    /** The first body is empty, the second 1 MiB, the rest log-uniform in between. */
    private static byte[] body(Random random, int stream) {
        int size = switch (stream) {
            case 0 -> 0;
            case 1 -> MAX_BODY;
            default -> random.nextInt(1 << random.nextInt(21)) + 1;
        };
        byte[] body = new byte[size];
        random.nextBytes(body);
        return body;
    }

    /**
     * Answers each stream with {@code :status 200} and the request's path in {@code x-path}, then with
     * each DATA frame as it comes; the stream ends where the request's ended.
     */
    @ChannelHandler.Sharable
    private static final class StreamEchoHandler extends SimpleChannelInboundHandler<Http2StreamFrame> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Http2StreamFrame frame) {
            if (frame instanceof Http2HeadersFrame request) {
                Http2Headers headers = new DefaultHttp2Headers().status(HttpResponseStatus.OK.codeAsText());
                headers.set("x-path", request.headers().path());
                ctx.writeAndFlush(new DefaultHttp2HeadersFrame(headers, request.isEndStream()))
                        .addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
            } else if (frame instanceof Http2DataFrame data) {
                // The frame is released on return; its content goes on in the answer, which releases it.
                ctx.writeAndFlush(new DefaultHttp2DataFrame(data.content().retain(), data.isEndStream()))
                        .addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
            }
        }
    }

    /** One client stream: sends the request and collects the response's headers and body. */
    private static final class StreamResponse extends SimpleChannelInboundHandler<Http2StreamFrame> {
        private final CompletableFuture<byte[]> done = new CompletableFuture<>();
        private final ByteArrayOutputStream body = new ByteArrayOutputStream();
        private volatile Http2Headers headers;

        /** Writes a POST of {@code content} to {@code path} on {@code stream}, ending the stream. */
        void send(Http2StreamChannel stream, String path, byte[] content) {
            Http2Headers request = new DefaultHttp2Headers().method("POST").path(path).scheme("http")
                    .authority("rdma");
            boolean empty = content.length == 0;
            stream.write(new DefaultHttp2HeadersFrame(request, empty)).addListener(this::failOnError);
            if (!empty) {
                stream.write(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(content), true))
                        .addListener(this::failOnError);
            }
            stream.flush();
        }

        /** Returns the response's body once the stream ended; fails on the stream's error or at {@code deadline}. */
        byte[] await(String what, long deadline) throws InterruptedException {
            try {
                return done.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                throw new AssertionError(what + " failed", e.getCause());
            } catch (TimeoutException e) {
                throw new AssertionError(what + ": no complete response within " + TIMEOUT_SECONDS + " s ("
                        + body.size() + " B so far, headers " + (headers != null ? "received" : "not received")
                        + ")");
            }
        }

        private void failOnError(Future<? super Void> write) {
            if (!write.isSuccess()) {
                done.completeExceptionally(write.cause());
            }
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Http2StreamFrame frame) {
            if (frame instanceof Http2HeadersFrame response) {
                if (headers != null) {
                    done.completeExceptionally(new AssertionError("a second HEADERS frame: " + response));
                    return;
                }
                headers = response.headers();
                if (response.isEndStream()) {
                    done.complete(body.toByteArray());
                }
            } else if (frame instanceof Http2DataFrame data) {
                if (headers == null) {
                    done.completeExceptionally(new AssertionError("DATA before HEADERS"));
                    return;
                }
                byte[] bytes = new byte[data.content().readableBytes()];
                data.content().readBytes(bytes);
                body.writeBytes(bytes);
                if (data.isEndStream()) {
                    done.complete(body.toByteArray());
                }
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            done.completeExceptionally(cause);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            // Does nothing if the response ended first: a stream closes once both sides ended it.
            done.completeExceptionally(new IOException("the stream closed before the response ended"));
        }
    }
}
