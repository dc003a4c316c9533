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

import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import org.HdrHistogram.Histogram;

/**
 * Opens connections to one server with several connects in flight at once, as a pool of clients would:
 * under TCG one set-up takes a tenth of a second or more, and one at a time would measure the
 * emulator's latency, not how many connects a second the server takes. Stops at the first failure (the
 * server refused, or ran out of something) and says which; the connects already in flight finish.
 * Records each set-up, from {@code connect()} to its future's success, in a histogram of nanoseconds.
 * Used by one thread.
 */
final class ConnectBurst {

    /** A connect that has not finished in this long counts as failed; the transports' own timeouts are shorter. */
    private static final long CONNECT_SECONDS = 60;
    private static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(CONNECT_SECONDS * 2);

    private final Bootstrap bootstrap;
    private final SocketAddress server;
    private final int inFlight;
    private final List<Channel> channels = new ArrayList<>();
    private final Histogram setUpNanos = new Histogram(HIGHEST_NANOS, 3);
    private long wallNanos;
    private volatile String failure;

    /** Connects with {@code bootstrap} (its group, channel class and handler set) to {@code server}. */
    ConnectBurst(Bootstrap bootstrap, SocketAddress server, int inFlight) {
        if (inFlight < 1) {
            throw new IllegalArgumentException("in flight: " + inFlight + " (expected: >= 1)");
        }
        this.bootstrap = bootstrap;
        this.server = server;
        this.inFlight = inFlight;
    }

    /**
     * Opens connections until {@code total} are open (counting those of earlier calls) or one fails;
     * returns {@code true} if all opened. The time it took adds to {@link #wallNanos()}.
     */
    boolean openUpTo(int total) throws InterruptedException {
        Semaphore permits = new Semaphore(inFlight);
        long start = System.nanoTime();
        int asked = 0;
        int wanted = total - size();
        while (asked < wanted && failure == null) {
            if (!permits.tryAcquire(CONNECT_SECONDS, TimeUnit.SECONDS)) {
                fail("no connect finished in " + CONNECT_SECONDS + " s");
                break;
            }
            asked++;
            long connectAt = System.nanoTime();
            bootstrap.connect(server).addListener((ChannelFuture future) -> {
                if (future.isSuccess()) {
                    synchronized (this) {
                        channels.add(future.channel());
                        setUpNanos.recordValue(Math.min(System.nanoTime() - connectAt, HIGHEST_NANOS));
                    }
                } else {
                    fail(String.valueOf(future.cause()));
                }
                permits.release();
            });
        }
        // The connects still in flight finish (or fail) before the count is read.
        if (permits.tryAcquire(inFlight, CONNECT_SECONDS, TimeUnit.SECONDS)) {
            permits.release(inFlight);
        } else {
            fail("connects still in flight after " + CONNECT_SECONDS + " s");
        }
        wallNanos += System.nanoTime() - start;
        return failure == null && size() >= total;
    }

    private void fail(String why) {
        if (failure == null) {
            failure = why;
        }
    }

    /** Returns the connections opened and still open. */
    synchronized int open() {
        return (int) channels.stream().filter(Channel::isActive).count();
    }

    /** Returns the connections opened, open or not since. */
    synchronized int size() {
        return channels.size();
    }

    /** Returns the first failure, or {@code null}. */
    String failure() {
        return failure;
    }

    /** Returns a copy of the set-up times so far, in nanoseconds. */
    synchronized Histogram setUpNanos() {
        return setUpNanos.copy();
    }

    /** Returns the time spent opening, over all calls. */
    long wallNanos() {
        return wallNanos;
    }

    /** Returns the connections opened. */
    synchronized List<Channel> channels() {
        return new ArrayList<>(channels);
    }

    /** Closes every connection and waits for them, at most {@code seconds} in all. */
    void closeAll(long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        for (ChannelFuture close : startClosing()) {
            close.await(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        }
    }

    /** Asks every connection to close, all at once, and forgets them; returns their close futures. */
    List<ChannelFuture> startClosing() {
        List<ChannelFuture> closes = new ArrayList<>();
        for (Channel channel : channels()) {
            closes.add(channel.close());
        }
        synchronized (this) {
            channels.clear();
        }
        return closes;
    }
}
