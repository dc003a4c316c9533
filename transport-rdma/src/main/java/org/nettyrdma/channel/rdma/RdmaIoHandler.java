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

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.netty.util.concurrent.ThreadAwareExecutor;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.loop.AdaptivePoll;
import org.nettyrdma.channel.rdma.loop.RdmaIoHandle;
import org.nettyrdma.channel.rdma.loop.RdmaIoRegistration;
import org.nettyrdma.channel.rdma.loop.RdmaLoop;
import org.nettyrdma.channel.rdma.loop.WakeUpLatency;

/**
 * The {@link IoHandler} of an event loop that carries RDMA channels:
 * {@code new MultiThreadIoEventLoopGroup(RdmaIoHandler.newFactory())}.
 *
 * <p>It is Netty's {@link EpollIoHandler} with RDMA added: the loop's RDMA CM event channel and its
 * completion queues are plain fds on the loop's epoll, so RDMA and epoll TCP channels can share one
 * loop. An RDMA channel's registration has no fd: its id travels in the {@code wr_id} of each work
 * request the channel posts, and each completion and RDMA CM event reaches the channel's
 * {@link IoHandle#handle} with its registration, found by that id ({@link RdmaIoRegistration}).
 *
 * <p>Where this process has no RDMA ({@link Rdma#isAvailable()} is {@code false}) the loop is an
 * epoll loop, and it opens nothing of RDMA: its RDMA channels are carried by TCP
 * ({@link RdmaChannelOption#TCP_FALLBACK}) or fail to connect and bind naming
 * {@link Rdma#unavailabilityCause()}.
 *
 * <p>A loop that runs out of work polls its completion queues a while before it arms them and
 * waits: up to a bound while its polls keep finding work, less as they miss, none once it is idle
 * ({@link RdmaIoHandlerConfig#getAdaptivePollMicros()}, {@link AdaptivePoll}), or for a fixed time
 * ({@link RdmaIoHandlerConfig#getBusyPollMicros()}). A completion found so costs no wake-up.
 * Threading: every method is called on the loop's thread, as for every {@link IoHandler}.
 */
public final class RdmaIoHandler implements IoHandler {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RdmaIoHandler.class);

    /**
     * Empty polls of a busy poll between two yields of the core ({@link #busyPoll}). A yield is a
     * system call, and a completion that arrives during one is seen only after it, so the spin yields
     * seldom, but it does yield (docs/decisions.md#busy-poll-yield).
     */
    private static final int POLLS_PER_YIELD = 64;
    /**
     * While busy polling finds completions, the loop's other fds are looked at once in this long, not
     * after every poll that found some: that look is an {@code epoll_wait} system call, and it lies
     * between a loop's post and its poll for the answer, which has often arrived by then
     * (docs/decisions.md#epoll-look-interval).
     */
    private static final long EPOLL_LOOK_INTERVAL_NANOS = TimeUnit.MICROSECONDS.toNanos(100);

    /**
     * The loops' shared state by their executor, which is the event loop that runs the handler (Netty
     * makes each loop's handler with the loop itself): {@link #fallbacks} finds a group's loops here.
     */
    private static final Map<ThreadAwareExecutor, RdmaLoop> LOOPS = new ConcurrentHashMap<>();

    private final ThreadAwareExecutor executor;
    private final IoHandler epoll;
    private final RdmaLoop loop;
    private final long busyPollNanos;
    /** How long to poll after work when no fixed busy poll is set. */
    private final AdaptivePoll adaptivePoll;
    /** The adaptive bound is the machine's default, which changes as its wake-ups are measured. */
    private final boolean boundFollowsWakeUps;
    private final NonBlockingContext nonBlocking = new NonBlockingContext();
    /** When busy polling last looked at the loop's other fds. */
    private long lastEpollLook;
    /** Set by the first {@link #prepareToDestroy()}: the loop is going away and takes no new channel. */
    private boolean shuttingDown;

    private RdmaIoHandler(ThreadAwareExecutor executor, IoHandler epoll, RdmaIoHandlerConfig config) {
        this.executor = executor;
        this.epoll = epoll;
        this.loop = new RdmaLoop(epoll, executor, config.getCompletionQueueEntries(), config.getPollBudget());
        this.busyPollNanos = TimeUnit.MICROSECONDS.toNanos(config.getBusyPollMicros());
        this.adaptivePoll = new AdaptivePoll(TimeUnit.MICROSECONDS.toNanos(config.getAdaptivePollMicros()));
        this.boundFollowsWakeUps = busyPollNanos == 0 && config.followsWakeUps();
        if (boundFollowsWakeUps) {
            WakeUpLatency.start();
        }
        LOOPS.put(executor, loop);
    }

    /**
     * Returns how many channels of {@code group}'s loops fell back to TCP so far, by reason
     * ({@link RdmaChannelOption#TCP_FALLBACK}): each loop's {@link RdmaLoopMetrics#fallbacks()} added
     * up. A group of other loops, or one shut down, counts none. Read from any thread; a loop's
     * latest fallbacks may not be seen yet.
     */
    public static RdmaFallbackCounts fallbacks(EventLoopGroup group) {
        RdmaFallbackCounts sum = RdmaFallbackCounts.NONE;
        for (EventExecutor executor : group) {
            RdmaLoop loop = LOOPS.get(executor);
            if (loop != null) {
                sum = sum.plus(loop.fallbacks());
            }
        }
        return sum;
    }

    /** Returns a factory of handlers for {@code MultiThreadIoEventLoopGroup} with the default config. */
    public static IoHandlerFactory newFactory() {
        return newFactory(new RdmaIoHandlerConfig());
    }

    /**
     * Returns a factory of handlers for {@code MultiThreadIoEventLoopGroup} that busy-poll for up to
     * {@code busyPollMicros} ({@link RdmaIoHandlerConfig#getBusyPollMicros()}); 0 turns it off. A
     * shortcut for {@code newFactory(new RdmaIoHandlerConfig().setBusyPollMicros(busyPollMicros))}.
     */
    public static IoHandlerFactory newFactory(int busyPollMicros) {
        return newFactory(new RdmaIoHandlerConfig().setBusyPollMicros(busyPollMicros));
    }

    /**
     * Returns a factory of handlers for {@code MultiThreadIoEventLoopGroup} with the tunables of
     * {@code config}, copied now.
     */
    public static IoHandlerFactory newFactory(RdmaIoHandlerConfig config) {
        RdmaIoHandlerConfig copy = new RdmaIoHandlerConfig(config);
        // Epoll is required (the factory below ensures it), RDMA is not: without it the loop runs
        // epoll alone, and its RDMA channels fall back to TCP or fail saying why (Rdma#unavailabilityCause).
        IoHandlerFactory epollFactory = EpollIoHandler.newFactory();
        return new IoHandlerFactory() {
            @Override
            public IoHandler newHandler(ThreadAwareExecutor executor) {
                return new RdmaIoHandler(executor, epollFactory.newHandler(executor), copy);
            }
        };
    }

    @Override
    public void initialize() {
        epoll.initialize();
        if (executor instanceof SingleThreadEventExecutor) {
            // Netty calls prepareToDestroy after a turn's I/O, if the shutdown has started by then. With
            // no quiet period, a loop asked to stop while it runs its tasks ends without that call,
            // and its channels would be closed only in destroy, when the loop takes no more tasks
            // and their close events are dropped ("Can't invoke task later"). The shutdown hooks run
            // while it still takes them.
            ((SingleThreadEventExecutor) executor).addShutdownHook(this::prepareToDestroy);
        }
    }

    @Override
    public int run(IoHandlerContext context) {
        if (loop.hasBacklog()) {
            // Completions left over from the last wake-up's budget: no event will come for them, so
            // they are polled now, and epoll only looks at the other fds instead of waiting.
            int completions = loop.pollCompletionQueues();
            nonBlocking.delegate = context;
            return completions + epoll.run(nonBlocking);
        }
        if (!loop.hasCompletionQueues()) {
            return epoll.run(context);
        }
        int completions;
        long pollNanos = busyPollNanos > 0 ? busyPollNanos : adaptivePoll.budgetNanos();
        if (pollNanos > 0 && context.canBlock()) {
            completions = busyPoll(context, pollNanos);
            if (completions > 0 && !epollLookDue()) {
                // The loop runs its tasks and comes back to poll; the fds wait for the next look.
                return completions;
            }
        } else {
            // A CQ stays unarmed after a wake-up (CompletionQueue): what completed since, such as
            // the sends the last completions' handlers posted, is found here without an event.
            completions = loop.pollUnarmedCompletionQueues();
        }
        if (completions == 0 && context.canBlock()) {
            // About to wait: completions from now on must wake the loop.
            completions = loop.armCompletionQueues();
        }
        if (completions > 0) {
            // Work was found: the loop's other fds are looked at without waiting, then the loop
            // runs its tasks (the completions may have queued some) and comes back.
            nonBlocking.delegate = context;
            return completions + epoll.run(nonBlocking);
        }
        if (!context.canBlock()) {
            return epoll.run(context);
        }
        // The wait: its length, if a completion ends it, is the gap the adaptive poll learns from
        // (with the time the completions took to handle, which epoll's handlers ran before returning).
        long dispatched = loop.completionsDispatched();
        if (boundFollowsWakeUps) {
            adaptivePoll.bound(TimeUnit.MICROSECONDS.toNanos(RdmaIoHandlerConfig.machineDefaultAdaptivePollMicros()));
        }
        adaptivePoll.sleeping(System.nanoTime());
        int handled = epoll.run(context);
        adaptivePoll.woke(System.nanoTime(), loop.completionsDispatched() != dispatched);
        return handled;
    }

    /**
     * Polls the completion queues until one has work, the time is up, or the loop has a task to
     * run (its {@code canBlock()} turns false as soon as another thread submits one).
     *
     * <p>Every {@link #POLLS_PER_YIELD}th empty poll the thread yields its core: whatever else is
     * runnable there runs first. That may be the peer's loop (two ends of a connection in one
     * process, or two processes on one core) or the kernel's deferred work for the device (rxe, the
     * software RoCE device, finishes packets in softirq and {@code ksoftirqd}), which a spin that never
     * yields keeps waiting for the scheduler's tick (docs/decisions.md#busy-poll-yield).
     */
    private int busyPoll(IoHandlerContext context, long pollNanos) {
        long start = System.nanoTime();
        long deadline = start + pollNanos;
        int emptyPolls = 0;
        do {
            int completions = loop.pollCompletionQueues();
            if (completions > 0) {
                long spent = System.nanoTime() - start;
                loop.busyPolled(true, spent);
                adaptivePoll.polled(true, spent);
                return completions;
            }
            if (++emptyPolls % POLLS_PER_YIELD == 0) {
                Thread.yield();
            } else {
                Thread.onSpinWait();
            }
        } while (context.canBlock() && System.nanoTime() - deadline < 0);
        long spent = System.nanoTime() - start;
        loop.busyPolled(false, spent);
        if (context.canBlock()) {
            adaptivePoll.polled(false, spent);
        }
        return 0;
    }

    private boolean epollLookDue() {
        long now = System.nanoTime();
        if (now - lastEpollLook < EPOLL_LOOK_INTERVAL_NANOS) {
            return false;
        }
        lastEpollLook = now;
        return true;
    }

    @Override
    public void prepareToDestroy() {
        shuttingDown = true;
        // Close the RDMA channels first: they free their QPs while the loop's CQs still exist.
        closeChannels();
        epoll.prepareToDestroy();
    }

    @Override
    public void destroy() {
        // Registrations are refused once shutting down, and the shutdown hook closed the channels, so
        // none should be open. Netty runs the hooks after the tasks, though, and only if no task ran
        // just before; a channel still open is closed anyway (its events are lost). Closed channels
        // whose work requests are still in flight free their QPs in loop.close(), or a QP would keep
        // the loop's CQ from being freed.
        LOOPS.remove(executor);
        closeChannels();
        loop.close();
        epoll.destroy();
    }

    private void closeChannels() {
        for (RdmaIoRegistration registration : loop.registrations()) {
            try {
                registration.handle().close();
            } catch (Exception e) {
                logger.debug("closing {} failed", registration.handle(), e);
            }
        }
    }

    @Override
    public IoRegistration register(IoHandle handle) throws Exception {
        if (handle instanceof RdmaIoHandle) {
            if (shuttingDown) {
                // The loop would close the channel at its next turn, or after it stopped taking the
                // tasks that a close fires its events with. Refused, the channel is closed forcibly
                // by its registration's failure instead: an accepted connection is rejected.
                throw new RejectedExecutionException("the event loop is shutting down");
            }
            RdmaIoRegistration registration = loop.register((RdmaIoHandle) handle);
            handle.registered();
            return registration;
        }
        return epoll.register(handle);
    }

    @Override
    public void wakeup() {
        epoll.wakeup();
    }

    @Override
    public boolean isCompatible(Class<? extends IoHandle> handleType) {
        return RdmaIoHandle.class.isAssignableFrom(handleType) || epoll.isCompatible(handleType);
    }

    /** The loop's context, but never blocking: after completions were polled outside epoll, epoll only looks. */
    private static final class NonBlockingContext implements IoHandlerContext {
        IoHandlerContext delegate;

        @Override
        public boolean canBlock() {
            return false;
        }

        @Override
        public long delayNanos(long currentTimeNanos) {
            return delegate.delayNanos(currentTimeNanos);
        }

        @Override
        public long deadlineNanos() {
            return delegate.deadlineNanos();
        }

        @Override
        public boolean shouldReportActiveIoTime() {
            return delegate.shouldReportActiveIoTime();
        }

        @Override
        public void reportActiveIoTime(long activeNanos) {
            delegate.reportActiveIoTime(activeNanos);
        }
    }
}
