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
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.FileRegion;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;

/**
 * The bridge between an {@link RdmaSocketChannel} carried by TCP and the Netty
 * {@link EpollSocketChannel} (the carrier) that holds its TCP connection, on the same event loop, so
 * that TCP's semantics (Nagle, keep-alive, linger, half-closure, end of input) are Netty's epoll
 * transport's.
 *
 * <p>Writes: each message the outer channel flushes goes to the carrier (a retained duplicate) and
 * leaves the outer {@link ChannelOutboundBuffer} only once the carrier wrote it to the kernel, in
 * order, so that the outer water marks count what the kernel has not taken yet, as epoll's do; the
 * carrier's own water marks never make it unwritable. Reads: the carrier reads only when the outer
 * channel asks ({@code AUTO_READ} off on the carrier), with the outer channel's allocators, and what
 * it reads goes up the outer pipeline. Ends: the carrier always allows half-closure; its end of input
 * becomes the outer channel's (the events if the outer channel allows half-closure, else a close);
 * a write error is the outer channel's to handle, with its {@code AUTO_CLOSE}, as Netty handles one
 * (close, or shut the output down and go on reading); the carrier's close closes the outer channel,
 * and its errors go to the outer pipeline.
 *
 * <p>Threading: the channel's event loop only, which is the carrier's too.
 */
final class TcpCarrier {

    /** The carrier never turns unwritable: the outer channel's water marks are the ones that count. */
    private static final WriteBufferWaterMark NEVER_UNWRITABLE = new WriteBufferWaterMark(Integer.MAX_VALUE - 1,
            Integer.MAX_VALUE);

    private final AbstractRdmaStreamChannel channel;
    private final EpollSocketChannel carrier;
    private final RdmaFallbackReason reason;
    /** The outer buffer whose first flushed messages ({@link #inFlight}) the carrier is writing. */
    private ChannelOutboundBuffer handedTo;
    /**
     * The outer messages handed to the carrier, oldest first: each leaves the outer buffer as its
     * write completes.
     */
    private final ArrayDeque<Object> inFlight = new ArrayDeque<>();

    TcpCarrier(AbstractRdmaStreamChannel channel, EpollSocketChannel carrier, RdmaFallbackReason reason) {
        this.channel = channel;
        this.carrier = carrier;
        this.reason = reason;
        carrier.pipeline().addLast(new Bridge());
    }

    /** Returns why the channel is carried by TCP. */
    RdmaFallbackReason reason() {
        return reason;
    }

    /** Returns the carrier, the epoll channel of the TCP connection. */
    EpollSocketChannel carrier() {
        return carrier;
    }

    /**
     * Gives the carrier the outer channel's socket options and allocators, and the settings the bridge
     * relies on; before it is registered or connects.
     */
    void applyOptions() {
        RdmaSocketChannelConfig config = channel.config();
        carrier.config()
                .setAutoRead(false)
                .setAutoClose(false)
                .setAllowHalfClosure(true)
                .setWriteBufferWaterMark(NEVER_UNWRITABLE)
                .setAllocator(config.getAllocator())
                .setRecvByteBufAllocator(config.getRecvByteBufAllocator())
                .setConnectTimeoutMillis(config.getConnectTimeoutMillis())
                .setTcpNoDelay(config.isTcpNoDelay())
                .setKeepAlive(config.isKeepAlive())
                .setSoLinger(config.getSoLinger())
                .setReuseAddress(config.isReuseAddress());
        if (config.getTrafficClass() != 0) {
            carrier.config().setOption(ChannelOption.IP_TOS, config.getTrafficClass());
        }
    }

    /** Registers the carrier on {@code loop}, the outer channel's; {@code promise} completes with it. */
    void register(EventLoop loop, ChannelPromise promise) {
        applyOptions();
        loop.register(carrier).addListener((ChannelFutureListener) f -> {
            if (f.isSuccess()) {
                promise.trySuccess();
            } else {
                promise.tryFailure(f.cause());
            }
        });
    }

    /** Returns the local address of the TCP connection. */
    InetSocketAddress localAddress() {
        return carrier.localAddress();
    }

    /** Returns the remote address of the TCP connection. */
    InetSocketAddress remoteAddress() {
        return carrier.remoteAddress();
    }

    /** Returns {@code true} once the TCP connection's input is shut (by either end). */
    boolean isInputShutdown() {
        return carrier.isInputShutdown();
    }

    /**
     * Hands the outer buffer's flushed messages that the carrier does not have yet to it, and flushes
     * it. A message leaves the outer buffer when its carrier write completes.
     */
    void write(ChannelOutboundBuffer in) throws Exception {
        if (in != handedTo) {
            // The outer buffer was replaced (its output shut down): what it held was failed with it.
            handedTo = in;
            inFlight.clear();
        }
        // Writes that complete during the carrier's flush make room, and a handler may fill it and
        // flush again meanwhile; Netty ignores a flush inside a flush, so this one hands those on too.
        while (in.size() > inFlight.size() && channel.unsafe().outboundBuffer() == in) {
            // Gathered first: a write the carrier fails at once removes its message from the buffer,
            // which must not change while it is walked.
            int handedOff = inFlight.size();
            List<Object> fresh = new ArrayList<>(in.size() - handedOff);
            int[] seen = {0};
            in.forEachFlushedMessage(msg -> {
                if (seen[0]++ >= handedOff) {
                    fresh.add(msg);
                }
                return true;
            });
            for (Object msg : fresh) {
                if (channel.unsafe().outboundBuffer() != in) {
                    // A failed write closed the channel or shut its output: the buffer released the rest.
                    return;
                }
                handOff(in, msg);
            }
            carrier.flush();
        }
    }

    private void handOff(ChannelOutboundBuffer in, Object msg) {
        Object copy = msg instanceof ByteBuf ? ((ByteBuf) msg).retainedDuplicate() : ((FileRegion) msg).retain();
        inFlight.add(msg);
        carrier.write(copy).addListener((ChannelFutureListener) f -> written(in, msg, f));
    }

    /** The carrier's write of {@code msg} completed: the message leaves the outer buffer, with its outcome. */
    private void written(ChannelOutboundBuffer in, Object msg, ChannelFuture f) {
        if (in != handedTo || channel.unsafe().outboundBuffer() != in || inFlight.peek() != msg
                || in.current() != msg) {
            // The outer buffer failed its messages already (the output was shut down or the channel closed).
            return;
        }
        inFlight.poll();
        if (f.isSuccess()) {
            in.remove();
            return;
        }
        Throwable cause = f.cause();
        in.remove(cause);
        if (cause instanceof IOException && channel.config().isAutoClose()) {
            channel.unsafe().close(channel.unsafe().voidPromise());
        } else if (!channel.isOutputShutdown()) {
            channel.shutdownOutput();
        }
    }

    /** Asks the carrier to read once: what it reads goes to the outer pipeline. */
    void read() {
        carrier.read();
    }

    /** Shuts the TCP connection's output down; fails as epoll's does. */
    void shutdownOutput() throws Exception {
        if (carrier.isOutputShutdown()) {
            // A write error shut it down already.
            return;
        }
        ChannelFuture f = carrier.shutdownOutput();
        if (f.isDone() && !f.isSuccess()) {
            Throwable cause = f.cause();
            throw cause instanceof Exception ? (Exception) cause : new IOException(cause);
        }
    }

    /** Shuts the TCP connection's input down. */
    void shutdownInput() {
        carrier.shutdownInput();
    }

    /** Closes the TCP connection; that of an accepted channel no loop took is closed at once. */
    void close() {
        if (carrier.isRegistered()) {
            carrier.close();
        } else {
            carrier.unsafe().closeForcibly();
        }
    }

    /** Returns the error a one-sided operation on a TCP-carried channel fails with. */
    UnsupportedOperationException oneSidedUnsupported() {
        return new UnsupportedOperationException("one-sided operations need RDMA: this channel is carried by "
                + "TCP (" + carrier + ") because " + reason.description() + " (" + reason + ')');
    }

    /** In the carrier's pipeline: hands what the carrier reads and sees to the outer channel. */
    private final class Bridge extends ChannelInboundHandlerAdapter {

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            channel.pipeline().fireChannelRead(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            channel.pipeline().fireChannelReadComplete();
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt == ChannelInputShutdownEvent.INSTANCE) {
                if (channel.config().isAllowHalfClosure()) {
                    channel.pipeline().fireUserEventTriggered(evt);
                } else {
                    channel.unsafe().close(channel.unsafe().voidPromise());
                }
            } else if (evt == ChannelInputShutdownReadComplete.INSTANCE && channel.isOpen()) {
                channel.pipeline().fireUserEventTriggered(evt);
            }
            // ChannelOutputShutdownEvent: the outer channel fires its own when it shuts its output down.
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            channel.unsafe().close(channel.unsafe().voidPromise());
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (channel.isOpen()) {
                channel.pipeline().fireExceptionCaught(cause);
            }
        }
    }
}
