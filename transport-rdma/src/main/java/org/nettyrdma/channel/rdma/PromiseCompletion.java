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

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.Promise;

/**
 * The completion behind {@link OneSidedOperations}' {@code Future} methods: completes their promise
 * with what the operation's result means to that method, so that both kinds of call share one path.
 * Promises race with cancellation, so it completes them with {@code trySuccess}/{@code tryFailure}.
 */
final class PromiseCompletion implements OneSidedCompletion {

    private final Promise<Object> promise;
    /** The buffer a Read filled for the promise, whose holder releases it; {@code null} otherwise. */
    private final ByteBuf result;
    /** An atomic's promise holds the word's old value; a Write's holds nothing. */
    private final boolean holdsValue;

    @SuppressWarnings("unchecked")
    private PromiseCompletion(Promise<?> promise, ByteBuf result, boolean holdsValue) {
        this.promise = (Promise<Object>) promise;
        this.result = result;
        this.holdsValue = holdsValue;
    }

    /** Completes {@code promise} with {@code result}, the buffer the Read fills, or releases it. */
    static OneSidedCompletion read(Promise<ByteBuf> promise, ByteBuf result) {
        return new PromiseCompletion(promise, result, false);
    }

    static OneSidedCompletion write(Promise<Void> promise) {
        return new PromiseCompletion(promise, null, false);
    }

    static OneSidedCompletion atomic(Promise<Long> promise) {
        return new PromiseCompletion(promise, null, true);
    }

    @Override
    public void operationComplete(long value, Throwable cause) {
        if (cause != null) {
            if (result != null) {
                result.release();
            }
            promise.tryFailure(cause);
        } else if (result != null) {
            if (!promise.trySuccess(result)) {
                // Cancelled meanwhile: nobody takes the bytes.
                result.release();
            }
        } else {
            promise.trySuccess(holdsValue ? Long.valueOf(value) : null);
        }
    }
}
