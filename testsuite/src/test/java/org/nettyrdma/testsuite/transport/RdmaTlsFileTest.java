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

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpChunkedInput;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.stream.ChunkedFile;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.nettyrdma.testkit.ExceptionRecorder;
import org.nettyrdma.testkit.RdmaTestEnvironment;
import org.nettyrdma.testkit.RdmaTransportFixture;

/**
 * A static file served over HTTPS on RDMA the way Netty's {@code HttpStaticFileServer} example does it
 * with TLS on: {@link SslHandler} first, then the HTTP codec, and the file in chunks through
 * {@link ChunkedWriteHandler} and {@link HttpChunkedInput} (a {@code FileRegion} cannot pass through
 * TLS). The client checks the server's self-signed certificate, host name included, and GETs the file
 * twice on one keep-alive connection; each body's length and SHA-256 must be the file's, and the server
 * must have accepted one connection only.
 */
class RdmaTlsFileTest {

    /** A little over 4 MiB, so that the last chunk is a short one. */
    private static final int FILE_SIZE = (4 << 20) + 4321;
    /** The chunk size of Netty's example. */
    private static final int CHUNK_SIZE = 8192;
    private static final long FILE_SEED = 4;
    private static final int GETS = 2;

    @TempDir
    static Path directory;
    private static Path file;
    private static byte[] fileDigest;
    private static SslContext serverTls;
    private static SslContext clientTls;

    @RegisterExtension
    final RdmaTransportFixture rdma = new RdmaTransportFixture(2);

    /**
     * Writes the file and makes the certificate before the timed test, as Netty's SSL tests do: under
     * full emulation a fresh JVM spends longer on the key pair, the key store, the file and its SHA-256,
     * all code still cold, than on the connection and both GETs.
     */
    @BeforeAll
    static void fileAndCertificate() throws Exception {
        RdmaTestEnvironment.assumeDevice();
        file = directory.resolve("served.bin");
        byte[] content = new byte[FILE_SIZE];
        new Random(FILE_SEED).nextBytes(content);
        Files.write(file, content);
        fileDigest = sha256(Files.readAllBytes(file));

        // The certificate names the test address, which the client verifies as HTTPS clients do.
        InetAddress address = RdmaTestEnvironment.address();
        X509Bundle certificate = new CertificateBuilder().subject("CN=" + address.getHostAddress())
                .addSanIpAddress(address).setIsCertificateAuthority(true).buildSelfSigned();
        serverTls = SslContextBuilder.forServer(certificate.toKeyManagerFactory()).sslProvider(SslProvider.JDK).build();
        clientTls = SslContextBuilder.forClient().sslProvider(SslProvider.JDK)
                .trustManager(certificate.toTrustManagerFactory()).endpointIdentificationAlgorithm("HTTPS").build();
    }

    @Test
    void fileIsServedWholeTwiceOnOneTlsConnection() throws Exception {
        InetAddress address = RdmaTestEnvironment.address();
        ExceptionRecorder serverErrors = new ExceptionRecorder();
        BlockingQueue<Channel> accepted = new LinkedBlockingQueue<>();
        Channel server = rdma.bind(rdma.server().childHandler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                accepted.add(ch);
                // The requests are GETs without a body.
                ch.pipeline().addLast(serverTls.newHandler(ch.alloc()), new HttpServerCodec(),
                        new HttpObjectAggregator(0), new ChunkedWriteHandler(), new FileHandler(file), serverErrors);
            }
        }));
        InetSocketAddress serverAddress = (InetSocketAddress) server.localAddress();
        HttpResponseQueue responses = new HttpResponseQueue();
        Channel client = rdma.client().handler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                // The peer's host is what the certificate is checked against.
                SslHandler tls = clientTls.newHandler(ch.alloc(), address.getHostAddress(), serverAddress.getPort());
                ch.pipeline().addLast(tls, new HttpClientCodec(), new HttpObjectAggregator(FILE_SIZE), responses);
            }
        }).connect(serverAddress).sync().channel();

        for (int i = 0; i < GETS; i++) {
            FullHttpRequest get = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/served.bin");
            get.headers().set(HttpHeaderNames.HOST, address.getHostAddress());
            client.writeAndFlush(get).sync();
            FullHttpResponse response = responses.take();
            try {
                assertEquals(HttpResponseStatus.OK, response.status(), "GET " + i);
                assertEquals(FILE_SIZE, HttpUtil.getContentLength(response), "GET " + i + ": content-length");
                assertEquals(FILE_SIZE, response.content().readableBytes(), "GET " + i + ": bytes received");
                assertArrayEquals(fileDigest, sha256(response.content()), "GET " + i + ": SHA-256 of the body");
                assertTrue(HttpUtil.isKeepAlive(response), "GET " + i + ": the connection is kept alive");
            } finally {
                response.release();
            }
            assertTrue(client.isActive(), "the connection is open after GET " + i);
        }
        assertEquals(1, accepted.size(), "connections the server accepted");
        assertTrue(client.pipeline().get(SslHandler.class).handshakeFuture().isSuccess(), "TLS handshake");
        assertTrue(serverErrors.exceptions().isEmpty(), "server errors: " + serverErrors.exceptions());

        client.close().sync();
        // The server closes its end (and the file the last GET opened) once TLS's close_notify or the
        // transport's close reaches it.
        assertTrue(accepted.peek().closeFuture().await(30, TimeUnit.SECONDS), "the server closed its end");
        server.close().sync();
    }

    private static byte[] sha256(byte[] bytes) throws NoSuchAlgorithmException {
        return MessageDigest.getInstance("SHA-256").digest(bytes);
    }

    private static byte[] sha256(ByteBuf content) throws NoSuchAlgorithmException {
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        // An aggregated body is a composite of many chunks: digest them in place.
        for (ByteBuffer part : content.nioBuffers()) {
            digest.update(part);
        }
        return digest.digest();
    }

    /** Answers every GET with the file, as {@code HttpStaticFileServerHandler} does under TLS. */
    private static final class FileHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final Path file;

        FileHandler(Path file) {
            this.file = file;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) throws IOException {
            // ChunkedFile closes the file once the last chunk is written, or when the channel closes.
            RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r");
            long length = raf.length();
            HttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
            HttpUtil.setContentLength(response, length);
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_OCTET_STREAM);
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            HttpUtil.setKeepAlive(response, keepAlive);
            ctx.write(response).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
            ChannelFuture last = ctx.writeAndFlush(
                    new HttpChunkedInput(new ChunkedFile(raf, 0, length, CHUNK_SIZE)));
            last.addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
            if (!keepAlive) {
                last.addListener(ChannelFutureListener.CLOSE);
            }
        }
    }
}
