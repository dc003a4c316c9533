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
package org.nettyrdma.example.atomics;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoopGroup;
import org.nettyrdma.channel.rdma.OneSidedOperations;
import org.nettyrdma.channel.rdma.RemoteAccess;
import org.nettyrdma.example.ExampleOptions;
import org.nettyrdma.example.ExposeToEachPeer;
import org.nettyrdma.example.ExposingServer;
import org.nettyrdma.example.Transport;

/**
 * A server that shares a counter, a lock and a word the lock guards ({@link SharedWords}) with its
 * clients and then does nothing: each connection gets the words exposed with READ, WRITE and ATOMIC
 * access, an exposure of its own of the same memory, and the clients ({@link AtomicsClient}) update
 * them with RDMA atomics, Reads and Writes. The device serializes atomics on a word whichever
 * connection they come from. Start it, then {@link AtomicsClient}:
 *
 * <pre>
 * java ... org.nettyrdma.example.atomics.AtomicsServer --transport rdma --host 10.77.0.1
 * </pre>
 *
 * RDMA only: one-sided operations do not exist over TCP.
 */
public final class AtomicsServer {

    /** The port the atomics examples use unless told otherwise. */
    public static final int DEFAULT_PORT = 8011;

    private static final String USAGE = "usage: AtomicsServer [--transport rdma|rdma-busypoll] [--host ADDRESS] "
            + "[--port " + DEFAULT_PORT + "]";

    private final ByteBuf words;
    private final ExposingServer server;

    private AtomicsServer(ByteBuf words, ExposingServer server) {
        this.words = words;
        this.server = server;
    }

    /** Runs the server until it is killed, printing the words whenever they changed. */
    public static void main(String[] args) throws Exception {
        ExampleOptions options = ExampleOptions.parse(USAGE, args);
        Transport transport = options.rdmaTransport(ExposingServer.RDMA_ONLY);
        InetSocketAddress address = options.address(DEFAULT_PORT);
        options.checkAllRead();

        EventLoopGroup group = transport.newEventLoopGroup(1);
        try {
            AtomicsServer atomics = start(group, address);
            System.out.println("atomics server over " + transport.displayName() + " on " + atomics.localAddress()
                    + ": a counter, a lock and a guarded word, exposed to each connection");
            atomics.server.printUntilClosed(atomics::toString);
        } finally {
            group.shutdownGracefully();
        }
    }

    /**
     * Binds an atomics server to {@code address}, on {@code group}, whose loops must be RDMA loops
     * ({@code RdmaIoHandler}); the words start at 0.
     */
    public static AtomicsServer start(EventLoopGroup group, SocketAddress address) throws InterruptedException {
        ByteBuf words = OneSidedOperations.allocateExposable(SharedWords.LENGTH).writerIndex(SharedWords.LENGTH);
        if (words.memoryAddress() % Long.BYTES != 0) {
            words.release();
            throw new IllegalStateException("the words are not 8-byte aligned: atomics need them to be");
        }
        AtomicLong lastId = new AtomicLong();
        ExposeToEachPeer expose = new ExposeToEachPeer(words, (channel, descriptor) -> SharedWords.writeHello(
                channel.alloc().buffer(SharedWords.HELLO_LENGTH), descriptor, lastId.incrementAndGet()),
                RemoteAccess.READ, RemoteAccess.WRITE, RemoteAccess.ATOMIC);
        ExposingServer server = ExposingServer.start(group, address, words, pipeline -> pipeline.addLast(expose));
        return new AtomicsServer(words, server);
    }

    /** Returns the address the server listens on. */
    public SocketAddress localAddress() {
        return server.localAddress();
    }

    /** Returns the word at {@code offset} ({@link SharedWords#COUNTER}, ...) as this process sees it now. */
    public long word(int offset) {
        return SharedWords.word(words, offset);
    }

    /** Stops listening, closes every connection, which revokes its exposure, and releases the words. */
    public void close() throws InterruptedException {
        server.close();
    }

    @Override
    public String toString() {
        return "counter " + word(SharedWords.COUNTER) + ", lock " + word(SharedWords.LOCK) + ", guarded word "
                + word(SharedWords.GUARDED);
    }
}
