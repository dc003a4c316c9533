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
package org.nettyrdma.testkit;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waiting for a condition with a deadline: a condition that never comes fails the test, it does not hang it. */
public final class Await {

    private Await() {
    }

    /** Polls {@code condition} every 10 ms until it holds; fails with {@code what} and the state after {@code seconds}. */
    public static void until(BooleanSupplier condition, long seconds, Supplier<String> what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + seconds + " s: " + what.get() + "\nthe event loops:\n"
                        + eventLoopStacks());
            }
            Thread.sleep(10);
        }
    }

    /** What the event loop threads are doing: a condition that did not come may be a loop that is stuck. */
    private static String eventLoopStacks() {
        StringBuilder stacks = new StringBuilder();
        Thread.getAllStackTraces().forEach((thread, frames) -> {
            if (thread.getName().contains("EventLoop")) {
                stacks.append(thread.getName()).append(' ').append(thread.getState()).append('\n');
                for (StackTraceElement frame : frames) {
                    stacks.append("    at ").append(frame).append('\n');
                }
            }
        });
        return stacks.toString();
    }
}
