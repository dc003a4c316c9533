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

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import io.netty.channel.AbstractChannel;
import io.netty.channel.Channel;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEvent;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.internal.CmEvent;
import org.nettyrdma.channel.rdma.loop.CmEventDispatcher;
import org.nettyrdma.channel.rdma.loop.RdmaIoEvent;
import org.nettyrdma.channel.rdma.loop.RdmaIoHandle;
import org.nettyrdma.channel.rdma.loop.RdmaIoRegistration;
import org.nettyrdma.channel.rdma.loop.RdmaLoop;
import org.nettyrdma.channel.rdma.memory.RdmaDevice;
import org.nettyrdma.channel.rdma.protocol.RejectReason;

/**
 * The base of the RDMA channels: what a stream channel and a server channel do alike. It registers
 * the channel's handle with an {@link RdmaIoHandler} loop and keeps the registration, holds the
 * channel's {@code rdma_cm_id} and frees it (refusing the peer first, for an accepted id no loop took),
 * and keeps the channel's one {@link RdmaChannelState}, which changes only through
 * {@link #transition}.
 *
 * <p>Closing runs in steps, one verb each and in this order: {@link #doClose()} moves the channel to
 * {@link RdmaChannelState#CLOSING} and calls {@link #beginClose()}; the subclass frees what it holds,
 * at once or once its work requests have come back (a stream channel's {@link CloseDrain}); then
 * {@link #finishClose()} makes it {@link RdmaChannelState#CLOSED} and calls {@link #closeFinished()}.
 *
 * <p>Threading: as every Netty channel, all work happens on its event loop; the state is read from
 * any thread ({@link #isOpen()}, {@link #isActive()}).
 */
abstract class AbstractRdmaChannel extends AbstractChannel {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(AbstractRdmaChannel.class);
    /**
     * The most turns {@link #afterCompletionsSeen} waits for a loop that is behind its completion
     * queues: with the default budget, 64 turns poll 16,384 completions per queue, more than a queue
     * of the default size holds. A loop further behind than that is overloaded, and the deadline holds.
     */
    private static final int LOOKS_BEFORE_DEADLINE = 64;

    /** Written on the loop; volatile because isOpen() and isActive() are asked from any thread. */
    private volatile RdmaChannelState state = RdmaChannelState.NEW;
    /** The registration as the event loop returned it: cancelled through it, so the loop counts it. */
    private IoRegistration loopRegistration;
    /** The registration with the loop: its id reaches this channel's completions and CM events. */
    RdmaIoRegistration registration;
    /** The loop's shared RDMA state; {@code null} before the registration. */
    RdmaLoop loop;
    /** The CM event channel {@link #id} lives on; {@code null} for an accepted id no loop adopted yet. */
    CmEventDispatcher cm;
    /** The channel's {@code rdma_cm_id} (listening or connected), or 0. */
    long id;
    /** For an accepted id no loop adopted: what the peer is told when the id is freed. */
    int rejectReason = RejectReason.SERVER_ERROR;

    AbstractRdmaChannel(Channel parent) {
        super(parent);
    }

    /** Returns the state of the channel's life cycle. */
    final RdmaChannelState state() {
        return state;
    }

    /**
     * Moves the channel to {@code next}.
     *
     * @throws IllegalStateException if the life cycle does not go from the current state to {@code next}
     */
    final void transition(RdmaChannelState next) {
        RdmaChannelState current = state;
        if (!current.canBecome(next)) {
            throw new IllegalStateException(this + ": no transition from " + current + " to " + next);
        }
        if (logger.isDebugEnabled()) {
            logger.debug("{}: {} -> {}", this, current, next);
        }
        state = next;
    }

    @Override
    public boolean isOpen() {
        return state.isOpen();
    }

    @Override
    public boolean isActive() {
        return state.isActive();
    }

    /**
     * Returns {@code true} once {@code register} gave this channel its event loop, which it does
     * before the registration itself runs on that loop.
     */
    final boolean hasEventLoop() {
        try {
            eventLoop();
            return true;
        } catch (IllegalStateException notRegistered) {
            return false;
        }
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        return loop instanceof IoEventLoop && ((IoEventLoop) loop).isCompatible(AbstractRdmaUnsafe.class);
    }

    @Override
    protected void doRegister(ChannelPromise promise) {
        ((IoEventLoop) eventLoop()).register((AbstractRdmaUnsafe) unsafe()).addListener(f -> {
            if (!f.isSuccess()) {
                registrationFailed(f.cause());
                promise.setFailure(f.cause());
                return;
            }
            loopRegistration = (IoRegistration) f.getNow();
            registration = loopRegistration.attachment();
            loop = registration.loop();
            promise.setSuccess();
            registered();
        });
    }

    /** The loop refused the registration with {@code cause}; the channel is about to be closed. */
    private void registrationFailed(Throwable cause) {
        if (cause instanceof RejectedExecutionException) {
            rejectReason = RejectReason.SHUTTING_DOWN;
        }
    }

    /** The channel is registered: {@link #registration} and {@link #loop} are set. */
    void registered() {
    }

    /**
     * Cancels the registration: it leaves the loop once the channel's work requests have come back
     * ({@link RdmaIoRegistration#cancel()}).
     */
    @Override
    protected void doDeregister() throws Exception {
        if (loopRegistration != null) {
            loopRegistration.cancel();
        }
    }

    @Override
    protected final void doClose() throws Exception {
        if (!state.isOpen()) {
            return;
        }
        transition(RdmaChannelState.CLOSING);
        beginClose();
    }

    /**
     * The first step of closing: lets go of what the channel holds, now that it is
     * {@link RdmaChannelState#CLOSING}, at once or once its work requests have come back; either way
     * ending with {@link #finishClose()}.
     */
    abstract void beginClose() throws Exception;

    /** The last step of closing: makes the channel {@link RdmaChannelState#CLOSED}, once everything native was freed. */
    final void finishClose() {
        if (state != RdmaChannelState.CLOSED) {
            transition(RdmaChannelState.CLOSED);
            closeFinished();
        }
        if (registration != null) {
            // Freed without waiting for the last completions (loop shutdown, device removal, a drain
            // that timed out): nothing is outstanding any more, so a cancelled registration goes now.
            registration.removeIfDrained();
        }
    }

    /**
     * Runs {@code check} once the loop has polled its completion queues since now: for a deadline
     * that should count what already arrived as in time. A task of the loop runs before the loop's
     * next poll, so {@code check} waits a turn, and more while a queue has completions left over from a
     * poll's budget, at most {@value #LOOKS_BEFORE_DEADLINE} turns. The task polls nothing itself:
     * a deadline a peer can trigger at will (a connect it never speaks on) must not make the loop
     * drain its queues for it (docs/decisions.md#disconnect-by-flush).
     */
    final void afterCompletionsSeen(Runnable check) {
        afterCompletionsSeen(check, 0);
    }

    private void afterCompletionsSeen(Runnable check, int looks) {
        try {
            eventLoop().schedule(() -> {
                if (loop != null && loop.hasBacklog() && looks < LOOKS_BEFORE_DEADLINE) {
                    afterCompletionsSeen(check, looks + 1);
                } else {
                    check.run();
                }
            }, 1, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // The loop has stopped and polls no more: there is nothing left to wait for.
            check.run();
        }
    }

    /** The channel has just become {@link RdmaChannelState#CLOSED}: it holds nothing native any more. */
    void closeFinished() {
    }

    /**
     * Destroys the channel's {@code rdma_cm_id}, which must have no queue pair any more. An accepted id
     * no loop adopted has a connect request still unanswered: the peer is refused with
     * {@link #rejectReason} first.
     */
    final void freeId() {
        if (id == 0) {
            return;
        }
        if (cm != null) {
            cm.destroyId(id);
        } else {
            reject(id, rejectReason);
        }
        id = 0;
    }

    /**
     * Refuses a connect request with {@code reason} ({@link RejectReason}; 0 for none, as a port without
     * a listener refuses) and destroys its id, which has no queue pair.
     */
    static void reject(long requestId, int reason) {
        CmEventDispatcher.rejectAndDestroy(requestId, reason);
    }

    /**
     * The unsafe of an RDMA channel is its {@link RdmaIoHandle}: the loop hands it the completions of
     * the channel's queue pair and the CM events of its id.
     */
    abstract class AbstractRdmaUnsafe extends AbstractUnsafe implements RdmaIoHandle {

        @Override
        public final void handle(IoRegistration registration, IoEvent ioEvent) {
            RdmaIoEvent event = (RdmaIoEvent) ioEvent;
            if (event.isCompletion()) {
                completion(event);
            } else {
                cmEvent(event.cmEvent());
            }
        }

        /** Handles a work completion of the channel's queue pair. */
        void completion(RdmaIoEvent event) {
        }

        /** Handles an RDMA CM event of the channel's id; {@code event} is valid only during the call. */
        abstract void cmEvent(CmEvent event);

        @Override
        public int outstandingWorkRequests() {
            return 0;
        }

        @Override
        public void deviceRemoved(RdmaDevice device) {
        }

        @Override
        public void freeNow() {
            closeForcibly();
        }

        @Override
        public void close() {
            close(voidPromise());
        }
    }
}
