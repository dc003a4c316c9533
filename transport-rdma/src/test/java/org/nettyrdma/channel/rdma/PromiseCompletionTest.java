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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.ImmediateEventExecutor;
import io.netty.util.concurrent.Promise;
import org.junit.jupiter.api.Test;

/** {@link PromiseCompletion}: what each {@code Future} method's promise holds, and who releases a Read's buffer. */
class PromiseCompletionTest {

    @Test
    void aReadsPromiseHoldsItsBuffer() {
        Promise<ByteBuf> promise = ImmediateEventExecutor.INSTANCE.newPromise();
        ByteBuf result = Unpooled.buffer(8);
        PromiseCompletion.read(promise, result).operationComplete(8, null);
        assertSame(result, promise.getNow());
        assertEquals(1, result.refCnt(), "the holder's to release");
        result.release();
    }

    @Test
    void aFailedOrCancelledReadReleasesItsBuffer() {
        Promise<ByteBuf> failed = ImmediateEventExecutor.INSTANCE.newPromise();
        ByteBuf result = Unpooled.buffer(8);
        IOException cause = new IOException("refused");
        PromiseCompletion.read(failed, result).operationComplete(0, cause);
        assertSame(cause, failed.cause());
        assertEquals(0, result.refCnt());

        Promise<ByteBuf> cancelled = ImmediateEventExecutor.INSTANCE.newPromise();
        assertTrue(cancelled.cancel(false));
        ByteBuf unwanted = Unpooled.buffer(8);
        PromiseCompletion.read(cancelled, unwanted).operationComplete(8, null);
        assertEquals(0, unwanted.refCnt(), "nobody takes the bytes");
    }

    @Test
    void anAtomicsPromiseHoldsTheOldValueAndAWritesNothing() {
        Promise<Long> atomic = ImmediateEventExecutor.INSTANCE.newPromise();
        PromiseCompletion.atomic(atomic).operationComplete(-3, null);
        assertEquals(-3L, atomic.getNow());
        Promise<Void> write = ImmediateEventExecutor.INSTANCE.newPromise();
        PromiseCompletion.write(write).operationComplete(64, null);
        assertTrue(write.isSuccess());
        assertNull(write.getNow());
    }
}
