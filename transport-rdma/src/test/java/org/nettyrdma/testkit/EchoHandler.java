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
package org.nettyrdma.testkit;

import java.util.List;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;

/** Writes back what it reads, one flush per read loop. */
@ChannelHandler.Sharable
public final class EchoHandler extends ChannelInboundHandlerAdapter {

    public static final EchoHandler INSTANCE = new EchoHandler(false);
    /**
     * Writes with the void promise: no promise per write, for a test that counts what the loop
     * allocates; a failed write reaches the pipeline as an exception instead.
     */
    public static final EchoHandler WITHOUT_PROMISES = new EchoHandler(true);

    private final boolean voidPromise;

    private EchoHandler(boolean voidPromise) {
        this.voidPromise = voidPromise;
    }

    /** Returns a server's child handler that echoes on each child and adds the child to {@code children}. */
    public static ChannelInitializer<Channel> keeping(List<RdmaSocketChannel> children) {
        return keeping(children, INSTANCE);
    }

    /** Returns a server's child handler that adds {@code echo} to each child and the child to {@code children}. */
    public static ChannelInitializer<Channel> keeping(List<RdmaSocketChannel> children, EchoHandler echo) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                children.add((RdmaSocketChannel) ch);
                ch.pipeline().addLast(echo);
            }
        };
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (voidPromise) {
            ctx.write(msg, ctx.voidPromise());
        } else {
            ctx.write(msg);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush();
    }
}
