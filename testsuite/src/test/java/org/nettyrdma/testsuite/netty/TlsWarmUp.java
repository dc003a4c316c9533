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
package org.nettyrdma.testsuite.netty;

import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;

/**
 * Runs TLS between two in-memory channels before a class of TLS tests, so that their first test does
 * not also pay for compiling the TLS code: in a fresh JVM under full emulation that compiling takes
 * a large part of the first combination's 30 seconds, and the limit is there to catch a transport
 * that stalls, not a cold JIT.
 */
final class TlsWarmUp {

    private static final int CHUNK = 16 * 1024;

    private TlsWarmUp() {
    }

    /**
     * Handshakes {@code clientContext} with {@code serverContext} and streams {@code bytes} each way,
     * stopping early after {@code maxSeconds}.
     */
    static void run(SslContext serverContext, SslContext clientContext, int bytes, int maxSeconds) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(maxSeconds);
        EmbeddedChannel server = new EmbeddedChannel(serverContext.newHandler(UnpooledByteBufAllocator.DEFAULT));
        EmbeddedChannel client = new EmbeddedChannel(clientContext.newHandler(UnpooledByteBufAllocator.DEFAULT));
        try {
            exchange(client, server);
            if (!client.pipeline().get(SslHandler.class).handshakeFuture().isSuccess()) {
                throw new IllegalStateException("TLS warm-up handshake failed",
                        client.pipeline().get(SslHandler.class).handshakeFuture().cause());
            }
            byte[] chunk = new byte[CHUNK];
            for (int sent = 0; sent < bytes && System.nanoTime() - deadline < 0; sent += CHUNK) {
                client.writeOutbound(Unpooled.wrappedBuffer(chunk));
                server.writeOutbound(Unpooled.wrappedBuffer(chunk));
                exchange(client, server);
                drainInbound(client);
                drainInbound(server);
            }
        } finally {
            client.finishAndReleaseAll();
            server.finishAndReleaseAll();
        }
    }

    /** Moves the records each side wrote to the other until neither has anything left to say. */
    private static void exchange(EmbeddedChannel client, EmbeddedChannel server) {
        boolean moved;
        do {
            moved = deliver(client, server) | deliver(server, client);
        } while (moved);
    }

    private static boolean deliver(EmbeddedChannel from, EmbeddedChannel to) {
        boolean moved = false;
        for (ByteBuf record; (record = from.readOutbound()) != null;) {
            to.writeInbound(record);
            moved = true;
        }
        return moved;
    }

    private static void drainInbound(EmbeddedChannel channel) {
        for (Object message; (message = channel.readInbound()) != null;) {
            ReferenceCountUtil.release(message);
        }
    }
}
