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
package org.nettyrdma.testsuite.frameworks.vertx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.nettyrdma.testsuite.frameworks.vertx.VertxOnRdma.TIMEOUT_SECONDS;
import static org.nettyrdma.testsuite.frameworks.vertx.VertxOnRdma.await;
import static org.nettyrdma.testsuite.frameworks.vertx.VertxOnRdma.host;

import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.netty.channel.Channel;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.datagram.DatagramPacket;
import io.vertx.core.datagram.DatagramSocket;
import io.vertx.core.impl.buffer.VertxByteBufAllocator;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.NetSocket;
import io.vertx.core.net.SocketAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.nettyrdma.channel.rdma.RdmaChannelMetrics;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.testsuite.frameworks.Payloads;

/**
 * Vert.x's TCP server and client, unchanged, over RDMA: a stream of pieces of every size of
 * {@link Payloads#SIZES} comes back from an echoing server whole, every byte of it carried by the RDMA
 * channels (their metrics count them), which keep Vert.x's allocator. What RDMA does not
 * carry runs on the same event loops through epoll: a domain socket, and UDP datagrams.
 */
class VertxNetTest {

    @RegisterExtension
    static final VertxOnRdma rdma = new VertxOnRdma();

    @TempDir
    static Path directory;

    @Test
    void aStreamComesBackWholeOverRdmaChannels() throws Exception {
        BlockingQueue<Channel> accepted = new LinkedBlockingQueue<>();
        NetServer server = await(rdma.vertx().createNetServer(new NetServerOptions().setHost(host()).setPort(0))
                .connectHandler(socket -> {
                    accepted.add(VertxChannels.of(socket));
                    socket.pipeTo(socket);
                })
                .listen());
        NetClient client = rdma.vertx().createNetClient();
        try {
            NetSocket socket = await(client.connect(server.actualPort(), host()));
            long echoed = echo(socket, 500);
            Channel channel = VertxChannels.of(socket);
            Channel child = accepted.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            assertSame(RdmaSocketChannel.class, channel.getClass());
            assertSame(RdmaSocketChannel.class, child.getClass());
            // Vert.x releases what it reads only from the allocators it knows (docs/vertx.md#the-allocator).
            assertSame(VertxByteBufAllocator.POOLED_ALLOCATOR, channel.alloc(), "Vert.x's allocator");
            assertSame(VertxByteBufAllocator.POOLED_ALLOCATOR, child.alloc(), "Vert.x's allocator");
            RdmaChannelMetrics metrics = ((RdmaSocketChannel) channel).metrics();
            assertEquals(echoed, metrics.sendBytes() + metrics.rdmaWriteBytes(), "bytes sent over RDMA: " + metrics);
            assertEquals(echoed, metrics.receivedBytes(), "bytes received over RDMA: " + metrics);
            await(socket.close());
        } finally {
            await(client.close());
            await(server.close());
        }
    }

    @Test
    void aDomainSocketRunsOnTheSameLoopsThroughEpoll() throws Exception {
        SocketAddress path = SocketAddress.domainSocketAddress(directory.resolve("echo.sock").toString());
        NetServer server = await(rdma.vertx().createNetServer().connectHandler(socket -> socket.pipeTo(socket))
                .listen(path));
        NetClient client = rdma.vertx().createNetClient();
        try {
            NetSocket socket = await(client.connect(path));
            assertSame(EpollDomainSocketChannel.class, VertxChannels.of(socket).getClass());
            echo(socket, 600);
            await(socket.close());
        } finally {
            await(client.close());
            await(server.close());
        }
    }

    @Test
    void datagramsRunOnTheSameLoopsThroughEpoll() throws Exception {
        DatagramSocket receiver = rdma.vertx().createDatagramSocket();
        DatagramSocket sender = rdma.vertx().createDatagramSocket();
        try {
            CompletableFuture<DatagramPacket> received = new CompletableFuture<>();
            receiver.handler(received::complete);
            await(receiver.listen(0, "127.0.0.1"));
            byte[] datagram = Payloads.bytes(700, 1000);
            await(sender.send(Buffer.buffer(datagram), receiver.localAddress().port(), "127.0.0.1"));
            DatagramPacket packet = received.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            assertEquals(Payloads.hex(Payloads.crc32(datagram)), Payloads.hex(Payloads.crc32(packet.data().getBytes())));
        } finally {
            await(sender.close());
            await(receiver.close());
        }
    }

    /**
     * Writes pieces of every size of {@link Payloads#SIZES} to {@code socket}, each with its own
     * seed from {@code seed}, checks that the echo is the same stream, and returns its length.
     */
    private static long echo(NetSocket socket, long seed) throws Exception {
        Buffer sent = Buffer.buffer();
        for (int i = 0; i < Payloads.SIZES.length; i++) {
            sent.appendBytes(Payloads.bytes(seed + i, Payloads.SIZES[i]));
        }
        Buffer received = Buffer.buffer(sent.length());
        CompletableFuture<Void> whole = new CompletableFuture<>();
        socket.handler(data -> {
            received.appendBuffer(data);
            if (received.length() >= sent.length()) {
                whole.complete(null);
            }
        });
        int offset = 0;
        for (int size : Payloads.SIZES) {
            await(socket.write(sent.slice(offset, offset + size)));
            offset += size;
        }
        whole.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertEquals(sent.length(), received.length(), "the echoed length");
        assertEquals(Payloads.hex(Payloads.crc32(sent.getBytes())), Payloads.hex(Payloads.crc32(received.getBytes())),
                "the echoed stream");
        return sent.length();
    }
}
