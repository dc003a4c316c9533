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

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import org.HdrHistogram.Histogram;
import org.nettyrdma.example.grpc.GrpcEchoService;

/**
 * Unary echo calls one after another, each started when the last one's answer arrived, timed from the
 * call's start to its answer into a histogram. On a channel with {@code directExecutor} the next call
 * starts on the event loop that took the answer. Used once: {@link #start()}, {@link #stop()}.
 */
final class UnaryRoundTrips {

    private final Channel channel;
    private final byte[] message;
    private final Histogram histogram = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
    private final CompletableFuture<Histogram> done = new CompletableFuture<>();
    private volatile boolean stopping;

    UnaryRoundTrips(Channel channel, byte[] message) {
        this.channel = channel;
        this.message = message;
    }

    void start() {
        next();
    }

    private void next() {
        long start = System.nanoTime();
        ClientCalls.asyncUnaryCall(channel.newCall(GrpcEchoService.UNARY, CallOptions.DEFAULT), message,
                new StreamObserver<>() {
                    @Override
                    public void onNext(byte[] answer) {
                        histogram.recordValue(Math.min(System.nanoTime() - start, histogram.getHighestTrackableValue()));
                    }

                    @Override
                    public void onError(Throwable cause) {
                        done.completeExceptionally(cause);
                    }

                    @Override
                    public void onCompleted() {
                        if (stopping) {
                            done.complete(histogram);
                        } else {
                            next();
                        }
                    }
                });
    }

    /** Stops after the call in flight and returns the round trips timed, or throws the call's failure. */
    Histogram stop() throws Exception {
        stopping = true;
        return done.get(20, TimeUnit.SECONDS);
    }
}
