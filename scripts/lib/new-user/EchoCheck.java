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
package newuser;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.nettyrdma.channel.rdma.RdmaIoHandler;
import org.nettyrdma.channel.rdma.RdmaServerSocketChannel;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;

/**
 * What a new user writes first: an echo server and a client over RDMA in one JVM, using only the
 * transport's public API. Sends {@code SIZE} random bytes, checks that the same bytes come back and
 * prints "echo ok SIZE bytes". scripts/new-user-check compiles it in a fresh Maven project whose only
 * dependency is netty-transport-rdma.
 */
public final class EchoCheck {

    private static final int SIZE = 1 << 20;

    public static void main(String[] args) throws Exception {
        InetSocketAddress address = new InetSocketAddress(args[0], 18007);
        byte[] sent = new byte[SIZE];
        new Random(18).nextBytes(sent);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());
        try {
            Channel server = new ServerBootstrap().group(group).channel(RdmaServerSocketChannel.class)
                    .childHandler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ctx.writeAndFlush(msg);
                        }
                    }).bind(address).sync().channel();
            CompletableFuture<byte[]> echoed = new CompletableFuture<>();
            Channel client = new Bootstrap().group(group).channel(RdmaSocketChannel.class)
                    .handler(new SimpleChannelInboundHandler<ByteBuf>() {
                        private final ByteBuf received = Unpooled.buffer(SIZE);

                        @Override
                        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
                            received.writeBytes(msg);
                            if (received.readableBytes() >= SIZE) {
                                echoed.complete(ByteBufUtil.getBytes(received));
                                received.release();
                            }
                        }

                        @Override
                        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                            echoed.completeExceptionally(cause);
                        }
                    }).connect(address).sync().channel();
            client.writeAndFlush(client.alloc().directBuffer(SIZE).writeBytes(sent)).sync();
            byte[] back = echoed.get(120, TimeUnit.SECONDS);
            if (!Arrays.equals(sent, back)) {
                throw new AssertionError("the echo differs from what was sent");
            }
            System.out.println("echo ok " + back.length + " bytes on Java " + Runtime.version().feature());
            client.close().sync();
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }
}
