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
package org.nettyrdma.benchmark.frameworks;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import org.nettyrdma.example.grpc.GrpcEchoService;

/**
 * One bidirectional echo stream kept busy: {@code window} messages in flight, another sent each time one
 * comes back, the bytes that came back counted. Used once: {@link #start()}, {@link #echoedBytes()} while
 * it runs, {@link #stop()}.
 */
final class StreamPump implements ClientResponseObserver<byte[], byte[]> {

    private final byte[] message;
    private final int window;
    private final AtomicLong echoed = new AtomicLong();
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private final Channel channel;
    private ClientCallStreamObserver<byte[]> requests;
    private int inFlight;
    private boolean stopping;
    private boolean ended;

    StreamPump(Channel channel, byte[] message, int window) {
        this.channel = channel;
        this.message = message;
        this.window = window;
    }

    void start() {
        ClientCalls.asyncBidiStreamingCall(channel.newCall(GrpcEchoService.STREAM, CallOptions.DEFAULT), this);
        synchronized (this) {
            for (int i = 0; i < window; i++) {
                inFlight++;
                requests.onNext(message);
            }
        }
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<byte[]> requests) {
        this.requests = requests;
    }

    @Override
    public synchronized void onNext(byte[] answer) {
        echoed.addAndGet(answer.length);
        inFlight--;
        if (!stopping) {
            inFlight++;
            requests.onNext(message);
        } else {
            endIfDrained();
        }
    }

    /** Ends this side of the stream once stopping and nothing is in flight; the server then ends its side. */
    private void endIfDrained() {
        if (inFlight == 0 && !ended) {
            ended = true;
            requests.onCompleted();
        }
    }

    @Override
    public void onError(Throwable cause) {
        done.completeExceptionally(cause);
    }

    @Override
    public void onCompleted() {
        done.complete(null);
    }

    /** Returns the bytes echoed so far. */
    long echoedBytes() {
        return echoed.get();
    }

    /** Lets the messages in flight come back, ends the stream, and throws its failure if it failed. */
    void stop() throws Exception {
        synchronized (this) {
            stopping = true;
            endIfDrained();
        }
        done.get(60, TimeUnit.SECONDS);
    }
}
