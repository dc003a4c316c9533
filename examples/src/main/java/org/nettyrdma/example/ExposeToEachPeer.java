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
package org.nettyrdma.example;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.nettyrdma.channel.rdma.ExposedRegion;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.channel.rdma.RemoteAccess;
import org.nettyrdma.channel.rdma.RemoteRegion;

/**
 * What a server of one-sided operations does when a connection opens: exposes one buffer to the peer
 * with the access given, then writes the peer a hello that carries the descriptor, the first message
 * on the stream. Every connection gets an exposure of its own of the same memory, valid on that
 * connection only and revoked when it closes; the server's bootstrap sets
 * {@code childOption(RdmaChannelOption.EXPOSE_MEMORY, true)} so that its connections may expose at all.
 *
 * <p>One instance serves every connection of a server; on {@link RdmaSocketChannel}s only. The buffer
 * stays the caller's: each exposure holds a reference of its own while it lasts.
 */
@Sharable
public final class ExposeToEachPeer extends ChannelInboundHandlerAdapter {

    /** Makes the hello a connection writes first, from the descriptor of its exposure. */
    @FunctionalInterface
    public interface Hello {
        /** Returns the message to write on {@code channel}, which the pipeline's encoders turn into bytes. */
        Object of(Channel channel, RemoteRegion descriptor);
    }

    private final ByteBuf memory;
    private final Hello hello;
    private final RemoteAccess first;
    private final RemoteAccess[] rest;

    /**
     * Exposes the readable bytes of {@code memory}, a buffer of {@code OneSidedOperations.allocateExposable},
     * with {@code first} and {@code rest}.
     */
    public ExposeToEachPeer(ByteBuf memory, Hello hello, RemoteAccess first, RemoteAccess... rest) {
        this.memory = memory;
        this.hello = hello;
        this.first = first;
        this.rest = rest.clone();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        RdmaSocketChannel channel = (RdmaSocketChannel) ctx.channel();
        channel.oneSided().expose(memory, first, rest).addListener(exposing -> {
            if (exposing.isSuccess()) {
                ExposedRegion exposed = (ExposedRegion) exposing.getNow();
                ctx.writeAndFlush(hello.of(channel, exposed.descriptor()));
            } else {
                System.err.println("closing " + channel + ": its memory could not be exposed: " + exposing.cause());
                ctx.close();
            }
        });
        ctx.fireChannelActive();
    }
}
