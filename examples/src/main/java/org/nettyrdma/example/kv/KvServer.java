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
package org.nettyrdma.example.kv;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.atomic.LongAdder;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import org.nettyrdma.channel.rdma.RemoteAccess;
import org.nettyrdma.example.ExampleOptions;
import org.nettyrdma.example.ExposeToEachPeer;
import org.nettyrdma.example.ExposingServer;
import org.nettyrdma.example.Transport;

/**
 * A key-value store whose reads cost its CPU nothing: it holds a {@link SlotTable}, exposes it READ-only
 * on every connection and sends the descriptor first; clients ({@link KvClient}) GET by reading the
 * table with RDMA Reads, and PUT through the pipeline, where this server writes the slot under its
 * seqlock. {@link #requestsHandled()} counts what the pipeline handled: PUTs, never GETs. Start it,
 * then {@link KvClient}:
 *
 * <pre>
 * java ... org.nettyrdma.example.kv.KvServer --transport rdma --host 10.77.0.1 --slots 1024 --value-size 1k
 * </pre>
 *
 * RDMA only: one-sided operations do not exist over TCP. Each connection has a protection domain of its
 * own, so that its key reaches the table from that connection only (docs/one-sided.md): a server meant
 * for a few clients, not thousands.
 */
public final class KvServer {

    /** The port the key-value examples use unless told otherwise. */
    public static final int DEFAULT_PORT = 8010;

    private static final String USAGE = "usage: KvServer [--transport rdma|rdma-busypoll] [--host ADDRESS] "
            + "[--port " + DEFAULT_PORT + "] [--slots N, default 1024] [--value-size BYTES, default 1k]";

    private final SlotTable table;
    private final ExposingServer server;
    private final LongAdder requestsHandled;

    private KvServer(SlotTable table, ExposingServer server, LongAdder requestsHandled) {
        this.table = table;
        this.server = server;
        this.requestsHandled = requestsHandled;
    }

    /** Runs the server until it is killed, printing how many requests its handler saw whenever that changes. */
    public static void main(String[] args) throws Exception {
        ExampleOptions options = ExampleOptions.parse(USAGE, args);
        Transport transport = options.rdmaTransport(ExposingServer.RDMA_ONLY);
        InetSocketAddress address = options.address(DEFAULT_PORT);
        SlotLayout layout = new SlotLayout(options.integer("slots", 1024), options.integer("value-size", 1024));
        options.checkAllRead();

        EventLoopGroup group = transport.newEventLoopGroup(1);
        try {
            KvServer kv = start(group, address, layout);
            System.out.printf("kv server over %s on %s: %d slots of up to %d bytes, exposed READ-only to each "
                    + "connection%n", transport.displayName(), kv.localAddress(), layout.slots(),
                    layout.maxValueLength());
            kv.server.printUntilClosed(() -> "requests handled: " + kv.requestsHandled()
                    + " (the PUTs: GETs never reach the server)");
        } finally {
            group.shutdownGracefully();
        }
    }

    /**
     * Binds a key-value server with a table of {@code layout} to {@code address}, on {@code group}, whose
     * loops must be RDMA loops ({@code RdmaIoHandler}).
     */
    public static KvServer start(EventLoopGroup group, SocketAddress address, SlotLayout layout)
            throws InterruptedException {
        SlotTable table = new SlotTable(layout);
        LongAdder requestsHandled = new LongAdder();
        ExposeToEachPeer expose = new ExposeToEachPeer(table.memory(),
                (channel, descriptor) -> new KvMessage.Hello(descriptor, layout), RemoteAccess.READ);
        RequestHandler handler = new RequestHandler(table, requestsHandled);
        ExposingServer server = ExposingServer.start(group, address, table.memory(), pipeline -> {
            KvCodec.addTo(pipeline);
            pipeline.addLast(expose, handler);
        });
        return new KvServer(table, server, requestsHandled);
    }

    /** Returns the address the server listens on. */
    public SocketAddress localAddress() {
        return server.localAddress();
    }

    /** Returns the table, which the server writes and its clients read. */
    public SlotTable table() {
        return table;
    }

    /** Returns how many requests the server's handler processed: every PUT, and no GET. */
    public long requestsHandled() {
        return requestsHandled.sum();
    }

    /** Stops listening, closes every connection, which revokes its exposure, and releases the table. */
    public void close() throws InterruptedException {
        server.close();
    }

    /**
     * Writes the value of each PUT into its slot and answers with the status: all the server's CPU does
     * for its clients. Keeps no state of a connection, so one serves all.
     */
    @Sharable
    static final class RequestHandler extends SimpleChannelInboundHandler<KvMessage.Put> {
        private final SlotTable table;
        private final LongAdder handled;

        RequestHandler(SlotTable table, LongAdder handled) {
            this.table = table;
            this.handled = handled;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, KvMessage.Put put) {
            handled.increment();
            KvMessage.Status status = KvMessage.Status.OK;
            SlotLayout layout = table.layout();
            if (!layout.hasSlot(put.slot())) {
                status = KvMessage.Status.NO_SUCH_SLOT;
            } else if (put.value().length > layout.maxValueLength()) {
                status = KvMessage.Status.TOO_LONG;
            } else {
                table.put(put.slot(), put.value());
            }
            ctx.write(new KvMessage.Result(status));
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            System.err.println("kv server: closing " + ctx.channel() + ": " + cause);
            ctx.close();
        }
    }
}
