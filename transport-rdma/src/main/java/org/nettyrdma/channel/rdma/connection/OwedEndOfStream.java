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
package org.nettyrdma.channel.rdma.connection;

import java.io.IOException;

import org.nettyrdma.channel.rdma.protocol.RdmaProtocol;

/**
 * The {@code SHUTDOWN_OUTPUT} and {@code CLOSE} a connection owes its peer and could not post yet, for
 * want of a slot at the peer: they go out, in that order and before any {@code CREDIT}, as soon as the
 * peer returns one. The peer returns a lone slot at once to a side that has none left
 * (docs/protocol.md, "Returning credits"), so the wait is short unless the queue pair fails.
 *
 * <p>Threading: the channel's event loop only.
 */
final class OwedEndOfStream {

    /** Posts a message without payload; returns {@code true} if it was posted. */
    @FunctionalInterface
    interface ControlPost {
        boolean post(int type) throws IOException;
    }

    /** Which end-of-stream messages wait for a slot at the peer. */
    private enum Owed {
        NOTHING, SHUTDOWN_OUTPUT, CLOSE, BOTH;

        Owed with(int type) {
            boolean shutdown = type == RdmaProtocol.TYPE_SHUTDOWN_OUTPUT || owesShutdown();
            boolean close = type != RdmaProtocol.TYPE_SHUTDOWN_OUTPUT || owesClose();
            return of(shutdown, close);
        }

        boolean owesShutdown() {
            return this == SHUTDOWN_OUTPUT || this == BOTH;
        }

        boolean owesClose() {
            return this == CLOSE || this == BOTH;
        }

        private static Owed of(boolean shutdown, boolean close) {
            return shutdown ? close ? BOTH : SHUTDOWN_OUTPUT : close ? CLOSE : NOTHING;
        }
    }

    private final ControlPost post;
    private Owed owed = Owed.NOTHING;

    OwedEndOfStream(ControlPost post) {
        this.post = post;
    }

    /** Owes {@code type}, {@code SHUTDOWN_OUTPUT} or {@code CLOSE}, and posts what is owed as far as slots allow. */
    void send(int type) throws IOException {
        owed = owed.with(type);
        postOwed();
    }

    /** Returns {@code true} while a {@code SHUTDOWN_OUTPUT} or {@code CLOSE} waits for a slot at the peer. */
    boolean isOwed() {
        return owed != Owed.NOTHING;
    }

    /** Posts what is owed, the {@code SHUTDOWN_OUTPUT} first, as far as slots allow. */
    void postOwed() throws IOException {
        if (owed.owesShutdown() && post.post(RdmaProtocol.TYPE_SHUTDOWN_OUTPUT)) {
            owed = owed.owesClose() ? Owed.CLOSE : Owed.NOTHING;
        }
        if (owed == Owed.CLOSE && post.post(RdmaProtocol.TYPE_CLOSE)) {
            owed = Owed.NOTHING;
        }
    }

    /** Forgets what is owed: nothing more will be posted on the queue pair. */
    void forget() {
        owed = Owed.NOTHING;
    }
}
