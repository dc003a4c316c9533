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
package org.nettyrdma.benchmark;

import java.io.IOException;

/**
 * The server end of {@link VerbsPingPong}: accepts one connection and answers every message with one of the
 * same size, in as many Sends ({@link VerbsPeer}), until the client's {@link VerbsPeer#STOP}, which it
 * answers too before it closes. The answer is sent from this end's own buffer, not copied from the request:
 * the floor measures the verbs, not a copy. Runs on a thread of its own; {@link #failure()} may be read from
 * any thread.
 */
final class VerbsEcho implements AbstractVerbsBenchmark.PassiveEnd {

    private final VerbsListener listener;
    private final int size;
    private final int slotSize;
    private final boolean waitForEvents;
    private volatile Throwable failure;

    /** Makes the end that answers messages of {@code size} in Sends of at most {@code slotSize}. */
    VerbsEcho(VerbsListener listener, int size, int slotSize, boolean waitForEvents) {
        this.listener = listener;
        this.size = size;
        this.slotSize = slotSize;
        this.waitForEvents = waitForEvents;
    }

    @Override
    public void run() {
        try (VerbsPeer peer = VerbsPeer.accept(listener, size, slotSize, waitForEvents)) {
            for (;;) {
                int slot = peer.awaitReceive();
                byte kind = peer.kind(slot);
                // Answer first: the client waits for it, and the other posted receives cover the repost.
                peer.send(kind);
                if (kind == VerbsPeer.STOP) {
                    // The client disconnects once it has the answer; disconnecting first could flush it.
                    peer.awaitDisconnect();
                    return;
                }
                peer.repostReceive(slot);
            }
        } catch (IOException | RuntimeException e) {
            failure = e;
        }
    }

    @Override
    public Throwable failure() {
        return failure;
    }
}
