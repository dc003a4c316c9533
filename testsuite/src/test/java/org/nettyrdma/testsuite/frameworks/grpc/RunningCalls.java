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
package org.nettyrdma.testsuite.frameworks.grpc;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;

/**
 * Calls that are running on a server when a fault test strikes: as many {@link TrackedService#HOLD}
 * calls, which the server never answers, as {@link TrackedService#ECHO} streams that have had one
 * message echoed and stay open. Collects the status each ends with.
 */
final class RunningCalls {

    private static final int MESSAGE = 1024;

    private final List<CompletableFuture<Status>> ends = new ArrayList<>();

    /** Starts {@code each} calls of each kind on {@code channel}; returns once every stream had its echo. */
    static RunningCalls start(Channel channel, int each, long boundSeconds)
            throws InterruptedException, ExecutionException, TimeoutException {
        RunningCalls calls = new RunningCalls();
        for (int i = 0; i < each; i++) {
            ClientCalls.asyncUnaryCall(channel.newCall(TrackedService.HOLD, CallOptions.DEFAULT), new byte[MESSAGE],
                    calls.newObserver(null));
        }
        List<CompletableFuture<Void>> echoed = new ArrayList<>();
        for (int i = 0; i < each; i++) {
            CompletableFuture<Void> first = new CompletableFuture<>();
            echoed.add(first);
            ClientCalls.asyncBidiStreamingCall(channel.newCall(TrackedService.ECHO, CallOptions.DEFAULT),
                    calls.newObserver(first)).onNext(new byte[MESSAGE]);
        }
        for (CompletableFuture<Void> first : echoed) {
            first.get(boundSeconds, TimeUnit.SECONDS);
        }
        return calls;
    }

    private StreamObserver<byte[]> newObserver(CompletableFuture<Void> firstAnswer) {
        CompletableFuture<Status> end = new CompletableFuture<>();
        ends.add(end);
        return new StreamObserver<>() {
            @Override
            public void onNext(byte[] message) {
                if (firstAnswer != null) {
                    firstAnswer.complete(null);
                }
            }

            @Override
            public void onError(Throwable cause) {
                end.complete(Status.fromThrowable(cause));
            }

            @Override
            public void onCompleted() {
                end.complete(Status.OK);
            }
        };
    }

    /**
     * Waits for every call to end and returns their statuses, in the order they were started; fails for
     * a call still running after {@code boundSeconds} from now.
     */
    List<Status> awaitEnds(long boundSeconds) throws InterruptedException, ExecutionException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(boundSeconds);
        List<Status> statuses = new ArrayList<>();
        List<Integer> running = new ArrayList<>();
        for (int i = 0; i < ends.size(); i++) {
            try {
                statuses.add(ends.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
            } catch (TimeoutException e) {
                running.add(i);
            }
        }
        if (!running.isEmpty()) {
            throw new AssertionError("calls " + running + " of " + ends.size() + " still running " + boundSeconds
                    + " s after the fault");
        }
        return statuses;
    }
}
