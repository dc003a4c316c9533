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

import io.netty.channel.Channel;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.WebSocketBase;
import io.vertx.core.http.impl.HttpClientConnectionInternal;
import io.vertx.core.http.impl.HttpServerConnection;
import io.vertx.core.internal.http.WebSocketInternal;
import io.vertx.core.internal.net.NetSocketInternal;
import io.vertx.core.net.NetSocket;

/**
 * The Netty channel under a Vert.x connection, through Vert.x's internal interfaces: how a test sees
 * that Vert.x's traffic ran on an {@code RdmaSocketChannel}, and reads its metrics.
 */
final class VertxChannels {

    private VertxChannels() {
    }

    static Channel of(HttpConnection connection) {
        if (connection instanceof HttpServerConnection) {
            return ((HttpServerConnection) connection).channelHandlerContext().channel();
        }
        if (connection instanceof HttpClientConnectionInternal) {
            return ((HttpClientConnectionInternal) connection).channelHandlerContext().channel();
        }
        throw new AssertionError("no channel known for " + connection.getClass().getName());
    }

    static Channel of(NetSocket socket) {
        return ((NetSocketInternal) socket).channelHandlerContext().channel();
    }

    static Channel of(WebSocketBase webSocket) {
        return ((WebSocketInternal) webSocket).channelHandlerContext().channel();
    }
}
