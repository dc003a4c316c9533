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
package org.nettyrdma.example;

import java.util.concurrent.CompletableFuture;

import io.netty.util.concurrent.Future;

/** Netty futures as {@link CompletableFuture}s, for an API whose callers compose what it returns. */
public final class NettyFutures {

    private NettyFutures() {
    }

    /**
     * Returns a future completed as {@code future} is, on the thread that completes it (a channel's
     * event loop, for a channel's futures).
     */
    public static <T> CompletableFuture<T> completable(Future<T> future) {
        CompletableFuture<T> completable = new CompletableFuture<>();
        future.addListener(done -> {
            if (done.isSuccess()) {
                completable.complete(future.getNow());
            } else {
                completable.completeExceptionally(done.cause());
            }
        });
        return completable;
    }
}
