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
package org.nettyrdma.testsuite.frameworks.reactor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.nettyrdma.testsuite.frameworks.reactor.ReactorOnRdma.TIMEOUT;
import static org.nettyrdma.testsuite.frameworks.reactor.ReactorOnRdma.host;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;

import io.netty.channel.Channel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.SocketChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.nettyrdma.channel.rdma.RdmaByteBufAllocator;
import org.nettyrdma.channel.rdma.RdmaChannelMetrics;
import org.nettyrdma.channel.rdma.RdmaSocketChannel;
import org.nettyrdma.testsuite.frameworks.Payloads;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.Connection;
import reactor.netty.DisposableServer;
import reactor.netty.resources.LoopResources;
import reactor.netty.tcp.TcpClient;
import reactor.netty.tcp.TcpServer;

/**
 * Reactor Netty's TCP server and client, unchanged but for {@code runOn(RdmaLoopResources)}, over
 * RDMA: a stream of pieces of every size of {@link Payloads#SIZES} comes back from an echoing server
 * whole, every byte of it carried by RDMA channels with the transport's allocator, which Reactor
 * leaves alone. And why the loop resources are needed: with an RDMA group alone, Reactor's own choice
 * of channel class would be epoll's.
 */
class ReactorTcpTest {

    @RegisterExtension
    static final ReactorOnRdma rdma = new ReactorOnRdma();

    @Test
    void aStreamComesBackWholeOverRdmaChannels() throws Exception {
        BlockingQueue<Channel> accepted = new LinkedBlockingQueue<>();
        DisposableServer server = TcpServer.create().runOn(rdma.loops()).host(host()).port(0)
                .doOnConnection(connection -> accepted.add(connection.channel()))
                .handle((in, out) -> out.send(in.receive().retain()))
                .bindNow(TIMEOUT);
        try {
            Connection connection = TcpClient.create(rdma.connections()).runOn(rdma.loops()).host(host())
                    .port(server.port()).connectNow(TIMEOUT);
            long total = 0;
            CRC32 sent = new CRC32();
            byte[][] pieces = new byte[Payloads.SIZES.length][];
            for (int i = 0; i < pieces.length; i++) {
                pieces[i] = Payloads.bytes(1300 + i, Payloads.SIZES[i]);
                sent.update(pieces[i]);
                total += pieces[i].length;
            }
            long length = total;
            CRC32 received = new CRC32();
            AtomicLong count = new AtomicLong();
            Mono<Void> echo = connection.inbound().receive().asByteArray()
                    .doOnNext(bytes -> {
                        received.update(bytes);
                        count.addAndGet(bytes.length);
                    })
                    .takeUntil(bytes -> count.get() >= length).then();
            Mono<Void> send = connection.outbound().sendByteArray(Flux.fromArray(pieces)).then();
            Mono.when(echo, send).block(TIMEOUT);
            assertEquals(total, count.get(), "the echoed length");
            assertEquals(Payloads.hex(sent.getValue()), Payloads.hex(received.getValue()), "the echoed stream");

            Channel channel = connection.channel();
            Channel child = accepted.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertSame(RdmaSocketChannel.class, channel.getClass());
            assertSame(RdmaSocketChannel.class, child.getClass());
            assertSame(RdmaByteBufAllocator.DEFAULT, channel.alloc(), "the transport's allocator");
            RdmaChannelMetrics metrics = channel.eventLoop().submit(((RdmaSocketChannel) channel)::metrics)
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertEquals(total, metrics.sendBytes() + metrics.rdmaWriteBytes(), "bytes sent over RDMA: " + metrics);
            assertEquals(total, metrics.receivedBytes(), "bytes received over RDMA: " + metrics);
            connection.disposeNow(TIMEOUT);
        } finally {
            server.disposeNow(TIMEOUT);
        }
    }

    @Test
    void anRdmaGroupAloneWouldGetEpollChannels() {
        LoopResources groupAlone = useNative -> rdma.loops().onServer(useNative);
        assertSame(EpollSocketChannel.class, groupAlone.onChannelClass(SocketChannel.class, groupAlone.onClient(true)),
                "Reactor's choice for a group that takes epoll's channels, as an RDMA loop does");
        assertSame(RdmaSocketChannel.class,
                rdma.loops().onChannelClass(SocketChannel.class, rdma.loops().onClient(true)));
    }
}
