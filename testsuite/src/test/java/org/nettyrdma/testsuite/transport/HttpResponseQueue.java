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

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpResponse;

/**
 * The last handler of an HTTP client's pipeline: hands its complete responses, or its failure, to the
 * test thread in the order they came. One instance per client channel.
 */
final class HttpResponseQueue extends SimpleChannelInboundHandler<FullHttpResponse> {

    private static final long TIMEOUT_SECONDS = 60;

    private final BlockingQueue<Object> responses = new LinkedBlockingQueue<>();

    HttpResponseQueue() {
        // The test thread owns and releases each response.
        super(false);
    }

    /** Returns the next response, which the caller releases; fails on the client's error or after 60 s. */
    FullHttpResponse take() throws InterruptedException {
        Object next = responses.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (next instanceof Throwable) {
            throw new AssertionError("the client failed", (Throwable) next);
        }
        if (next == null) {
            throw new AssertionError("no response within " + TIMEOUT_SECONDS + " s");
        }
        return (FullHttpResponse) next;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
        responses.add(response);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        responses.add(cause);
    }
}
