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
package org.nettyrdma.channel.rdma;

/**
 * Told of the end of a one-sided operation started with the {@link OneSidedOperations} methods that
 * take one instead of returning a {@link io.netty.util.concurrent.Future}: no promise and no boxed
 * result per operation, so that one instance, kept by the caller, serves every operation, as Netty's
 * {@code voidPromise()} serves writes whose caller needs no future.
 *
 * <p>Called exactly once per operation, on the channel's event loop (on the calling thread only if the
 * loop has shut down and cannot take the operation). An operation started from the callback is posted
 * from there, after what the channel flushed before, as from any other code on the loop.
 */
@FunctionalInterface
public interface OneSidedCompletion {

    /**
     * Called once the operation ended. On success {@code cause} is {@code null} and {@code result} is the
     * word's value before an atomic, or the bytes a Read or a Write moved; on failure {@code cause} says
     * why, as the {@code Future} methods' would, and {@code result} is 0.
     */
    void operationComplete(long result, Throwable cause);
}
