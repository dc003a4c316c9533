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
package org.nettyrdma.reactor;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.util.concurrent.FastThreadLocalThread;
import reactor.core.scheduler.NonBlocking;

/**
 * Makes the threads of {@link RdmaLoopResources}' event loops, named {@code PREFIX-rdma-N}: Netty's
 * fast thread-local threads, marked {@link NonBlocking} as Reactor Netty marks its own loops' threads,
 * so that Reactor refuses a blocking call ({@code block()}) on them instead of letting it stall
 * every connection of the loop. Thread-safe.
 */
final class RdmaLoopThreads implements ThreadFactory {

    private final String prefix;
    private final boolean daemon;
    private final AtomicInteger count = new AtomicInteger();

    RdmaLoopThreads(String prefix, boolean daemon) {
        this.prefix = prefix + "-rdma-";
        this.daemon = daemon;
    }

    @Override
    public Thread newThread(Runnable task) {
        Thread thread = new LoopThread(task);
        thread.setName(prefix + count.incrementAndGet());
        thread.setDaemon(daemon);
        return thread;
    }

    /** A loop's thread, on which Reactor does not block. */
    private static final class LoopThread extends FastThreadLocalThread implements NonBlocking {
        LoopThread(Runnable task) {
            super(task);
        }
    }
}
