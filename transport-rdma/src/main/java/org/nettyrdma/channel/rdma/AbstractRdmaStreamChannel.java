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

import java.io.IOException;
import java.nio.channels.NotYetConnectedException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.FileRegion;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.concurrent.Future;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.internal.RdmaDevice;
import org.nettyrdma.channel.rdma.internal.RdmaIoEvent;
import org.nettyrdma.channel.rdma.internal.RdmaProtocol;

/**
 * The byte stream of an RDMA channel over its {@link RdmaConnection}: writes, the read loop, both
 * halves of a close, and the close that lets the queue pair's work requests come back before it frees
 * them. How the connection is made is the subclass's ({@link RdmaSocketChannel}).
 *
 * <p>A close sends the peer a {@code CLOSE} after the data already posted (once the peer returns a
 * slot, if it holds them all) and waits for the last sends to complete, as a TCP close lets the
 * kernel deliver what was written. Then it moves the queue pair to the error state and disconnects:
 * every request still posted comes back flushed (a flushed request completes even when unsignaled),
 * and once none is outstanding the queue pair, its memory and the id are freed and the registration
 * leaves the loop. The wait for the last sends ends early when
 * the peer disconnects, since a peer that is gone acknowledges nothing, and after
 * {@link #DRAIN_TIMEOUT_MILLIS} at the latest: a peer that neither reads nor disconnects would
 * otherwise hold the queue pair for its retries (docs/decisions.md#bounded-drain). A connection that
 * failed (the peer broke the protocol, a work request failed) sends no {@code CLOSE} and waits for
 * nothing: its queue pair goes to the error state before the pipeline hears of the failure, so that a
 * hostile peer takes no further receive of the loop's shared queue (docs/security.md).
 */
abstract class AbstractRdmaStreamChannel extends AbstractRdmaChannel implements DuplexChannel {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(AbstractRdmaStreamChannel.class);
    /**
     * The longest a closing channel waits for the peer to acknowledge its last sends before it
     * disconnects, and then for the flushed requests to come back before it frees the queue pair.
     */
    static final long DRAIN_TIMEOUT_MILLIS = 2000;

    /** How often, process-wide, a closing channel's wait ran into {@link #DRAIN_TIMEOUT_MILLIS}. */
    private static final AtomicLong DRAIN_TIMEOUTS = new AtomicLong();

    volatile RdmaConnection connection;
    /** What {@code metrics()} reports once the connection is gone. */
    RdmaChannelMetrics metricsAtClose = RdmaChannelMetrics.NONE;
    /** This side shut its input down, or the peer's end of input was read with half-closure allowed. */
    boolean inputShutdown;
    /** This side shut its output down, or its writes failed with AUTO_CLOSE off. */
    boolean outputShutdown;
    /** The peer sent CLOSE: it sends nothing more and needs no CLOSE back. */
    boolean peerClosed;
    /** The peer disconnected (DISCONNECTED, or this side's requests were flushed). */
    boolean disconnected;
    /** The connection's device is going away: close at once, without telling the peer or waiting. */
    boolean deviceRemoved;
    /** The queue pair was told to disconnect: its outstanding work requests come back flushed. */
    private boolean disconnecting;
    /** Ends a closing channel's wait for its last work requests; {@code null} while none is scheduled. */
    private Future<?> drainDeadline;
    /** The CM said the peer disconnected: the flushes that follow end the input, as the event would have. */
    private boolean peerDisconnectSeen;
    private boolean readPending;
    /**
     * A read is queued on the loop. One is enough however often {@code read()} is called before it
     * runs: a handler that reads a byte at a time would otherwise queue a task per call.
     */
    private boolean readScheduled;
    private final Runnable readTask = () -> {
        readScheduled = false;
        ((RdmaStreamUnsafe) unsafe()).readNow();
    };

    AbstractRdmaStreamChannel(Channel parent) {
        super(parent);
    }

    @Override
    public abstract RdmaSocketChannelConfig config();

    /** Returns the device of the channel's connection, or {@code null} before it has one. */
    final RdmaDevice device() {
        RdmaConnection current = connection;
        return current != null ? current.device() : null;
    }

    @Override
    public boolean isInputShutdown() {
        return inputShutdown || !isActive();
    }

    @Override
    public boolean isOutputShutdown() {
        return outputShutdown || !isActive();
    }

    @Override
    public boolean isShutdown() {
        return isInputShutdown() && isOutputShutdown() || !isActive();
    }

    @Override
    public ChannelFuture shutdownOutput() {
        return shutdownOutput(newPromise());
    }

    @Override
    public ChannelFuture shutdownOutput(ChannelPromise promise) {
        onEventLoop(() -> ((AbstractUnsafe) unsafe()).shutdownOutput(promise));
        return promise;
    }

    @Override
    public ChannelFuture shutdownInput() {
        return shutdownInput(newPromise());
    }

    @Override
    public ChannelFuture shutdownInput(ChannelPromise promise) {
        onEventLoop(() -> shutdownInput0(promise));
        return promise;
    }

    /** Runs {@code task} now if on the event loop, or as a task of it. */
    private void onEventLoop(Runnable task) {
        EventLoop loop = eventLoop();
        if (loop.inEventLoop()) {
            task.run();
        } else {
            loop.execute(task);
        }
    }

    private void shutdownInput0(ChannelPromise promise) {
        if (!isActive()) {
            promise.setFailure(new NotYetConnectedException());
            return;
        }
        // The peer cannot be told to stop sending without closing; the input side is cut locally:
        // whatever arrives from now on is dropped (and credited back, so the peer is not stalled).
        inputShutdown = true;
        halfClosed();
        promise.setSuccess();
    }

    @Override
    public ChannelFuture shutdown() {
        return shutdown(newPromise());
    }

    @Override
    public ChannelFuture shutdown(ChannelPromise promise) {
        ChannelFuture output = shutdownOutput();
        output.addListener((ChannelFutureListener) f -> shutdownInput().addListener(
                (ChannelFutureListener) f2 -> {
                    if (f.isSuccess() && f2.isSuccess()) {
                        promise.setSuccess();
                    } else {
                        promise.setFailure(f.cause() != null ? f.cause() : f2.cause());
                    }
                }));
        return promise;
    }

    /** One direction of an active channel ended: it is half-closed. */
    private void halfClosed() {
        if (state() == RdmaChannelState.ACTIVE) {
            transition(RdmaChannelState.HALF_CLOSED);
        }
    }

    @Override
    protected void doDisconnect() throws Exception {
        doClose();
    }

    @Override
    protected void doShutdownOutput() throws Exception {
        if (!isActive()) {
            throw new NotYetConnectedException();
        }
        if (outputShutdown) {
            return;
        }
        outputShutdown = true;
        halfClosed();
        // In order with the data already posted: the peer reads everything, then the end of input.
        if (connection != null) {
            connection.sendEndOfStream(RdmaProtocol.TYPE_SHUTDOWN_OUTPUT);
        }
    }

    @Override
    void close0() throws Exception {
        if (connection != null && connection.isReady() && !connection.isAborted() && !peerClosed && !deviceRemoved) {
            // Tell the peer in band, after the data already posted, and let the last sends complete
            // before disconnecting, as a TCP close lets the kernel deliver what was written.
            try {
                connection.sendEndOfStream(RdmaProtocol.TYPE_CLOSE);
            } catch (IOException e) {
                // The queue pair is broken: the peer learns of the close from the disconnect.
                logger.debug("{}: sending CLOSE failed", this, e);
            }
        }
        if (connection == null || deviceRemoved) {
            teardown();
            return;
        }
        if (!connection.hasOutstandingSends() && !connection.endOfStreamOwed()) {
            disconnectQueuePair();
        }
        freeIfDrained();
        if (state() == RdmaChannelState.CLOSING) {
            scheduleDrainTimeout();
        }
    }

    private void drainTimedOut() {
        if (state() != RdmaChannelState.CLOSING || connection == null) {
            return;
        }
        // What already came back counts as in time, and may end the drain (freeIfDrained) or its first wait.
        boolean wasDisconnecting = disconnecting;
        afterCompletionsSeen(() -> drainOverdue(wasDisconnecting));
    }

    private void drainOverdue(boolean wasDisconnecting) {
        if (state() != RdmaChannelState.CLOSING || connection == null) {
            return;
        }
        if (disconnecting != wasDisconnecting) {
            scheduleDrainTimeout();
            return;
        }
        DRAIN_TIMEOUTS.incrementAndGet();
        if (!disconnecting) {
            logger.debug("{}: the peer acknowledged not every send within {} ms of the close: disconnecting",
                    this, DRAIN_TIMEOUT_MILLIS);
            disconnectQueuePair();
            freeIfDrained();
            if (state() == RdmaChannelState.CLOSING) {
                scheduleDrainTimeout();
            }
            return;
        }
        // In the error state the device flushes every posted request; if the flushes do not reach
        // the channel (its loop is shutting down and polls no more), waiting longer only holds memory.
        logger.debug("{}: {} not flushed {} ms after the queue pair went to the error state: freeing it",
                this, connection.describeOutstanding(), DRAIN_TIMEOUT_MILLIS);
        teardown();
    }

    private void scheduleDrainTimeout() {
        drainDeadline = eventLoop().schedule(this::drainTimedOut, DRAIN_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Returns how often a closing channel's wait ran into the bound ({@link RdmaMemoryMetrics#drainTimeouts()}). */
    static long drainTimeouts() {
        return DRAIN_TIMEOUTS.get();
    }

    /**
     * The peer disconnected or failed while this side waits for its last sends: nothing will be
     * acknowledged any more, so the queue pair goes to the error state now and the drain ends with
     * the flushes, not with the timeout.
     */
    final void peerGoneWhileClosing() {
        if (state() == RdmaChannelState.CLOSING && connection != null) {
            disconnectQueuePair();
            freeIfDrained();
        }
    }

    /**
     * The peer disconnected (RDMA CM {@code DISCONNECTED}, or {@code REJECTED} once established). What it
     * sent before may still be in the completion queue, which has another fd than the CM's events.
     * So the queue pair goes to the error state now: its posted requests come back flushed, after
     * every completion of the queue pair already there, and the first flush ends the input in order
     * ({@link RdmaConnection#onCompletion}). The loop's queues are not drained for it, which a peer
     * that connects and disconnects in a loop would make the loop do for every connection
     * (docs/decisions.md#disconnect-by-flush). Receives come from the loop's shared queue, which the
     * error state does not flush: with no send posted, a Send of no bytes is posted to be flushed
     * ({@link RdmaConnection#disconnect}). Only if even that fails does the input end at once.
     */
    final void peerDisconnected() {
        peerDisconnectSeen = true;
        if (connection != null) {
            disconnectQueuePair();
        }
        if (connection == null || connection.outstandingWorkRequests() == 0) {
            ((RdmaStreamUnsafe) unsafe()).connectionLost();
        }
    }

    /** Moves the queue pair to the error state and disconnects: every request still posted comes back flushed. */
    private void disconnectQueuePair() {
        if (!disconnecting) {
            disconnecting = true;
            connection.disconnect();
        }
    }

    /**
     * Frees a closing channel's queue pair once every work request it posted has come back: only then
     * does no completion refer to its memory, and its registration leaves the loop. A disconnect
     * leaves a send outstanding until every completion of the queue pair came back
     * ({@link RdmaConnection#disconnect}), so none outstanding while closing means none will come.
     */
    private void freeIfDrained() {
        if (state() == RdmaChannelState.CLOSING && connection != null && connection.outstandingWorkRequests() == 0) {
            teardown();
        }
    }

    /** Disconnects and frees everything native, now; the channel is {@link RdmaChannelState#CLOSED} after. */
    final void teardown() {
        if (drainDeadline != null) {
            // A drain that ended in time: the task would hold the closed channel until it ran.
            drainDeadline.cancel(false);
            drainDeadline = null;
        }
        if (connection != null) {
            disconnectQueuePair();
            connection.close();
            metricsAtClose = connection.metrics(false);
            connection = null;
        }
        freeId();
        closed();
    }

    @Override
    protected void doBeginRead() throws Exception {
        readPending = true;
        if (connection != null && connection.hasInbound()) {
            // Not from inside read(): a handler calling read() in channelRead must not recurse.
            scheduleRead();
        }
    }

    /** Queues a read of what waits, unless one is queued already. */
    private void scheduleRead() {
        if (!readScheduled) {
            readScheduled = true;
            eventLoop().execute(readTask);
        }
    }

    void clearReadPending() {
        if (isRegistered()) {
            onEventLoop(() -> readPending = false);
        } else {
            readPending = false;
        }
    }

    @Override
    protected void doWrite(ChannelOutboundBuffer in) throws Exception {
        if (connection != null) {
            connection.flush(in);
        }
    }

    @Override
    protected Object filterOutboundMessage(Object msg) {
        if (msg instanceof ByteBuf) {
            return msg;
        }
        if (msg instanceof FileRegion) {
            return new TrackedFileRegion((FileRegion) msg);
        }
        throw new UnsupportedOperationException("unsupported message type: " + msg.getClass().getName()
                + " (expected: ByteBuf, FileRegion)");
    }

    /** The stream's side of the channel's handle: the connection's completions and events. */
    abstract class RdmaStreamUnsafe extends AbstractRdmaUnsafe implements RdmaConnection.Events {

        @Override
        void completion(RdmaIoEvent event) {
            if (connection != null) {
                connection.onCompletion(event.wrId(), event.status(), event.opcode(), event.byteLength(),
                        event.immediate(), event.flags());
                freeIfDrained();
            }
        }

        @Override
        public int outstandingWorkRequests() {
            RdmaConnection current = connection;
            return current != null ? current.outstandingWorkRequests() : 0;
        }

        @Override
        public void freeNow() {
            if (isOpen()) {
                closeForcibly();
            }
            if (state() == RdmaChannelState.CLOSING) {
                teardown();
            }
        }

        @Override
        public void inboundAvailable() {
            if (readPending || config().isAutoRead() || connection.endOfInputIsNext()) {
                readNow();
            }
        }

        @Override
        public void writeSpaceAvailable() {
            if (isActive() && outboundBuffer() != null && !outboundBuffer().isEmpty()) {
                flush0();
            }
        }

        @Override
        public void sendsDrained() {
            if (!isOpen() && connection != null && !connection.endOfStreamOwed()) {
                disconnectQueuePair();
            }
        }

        @Override
        public void connectionFailed(Throwable cause) {
            // First of all, and even while closing: a failed connection takes nothing more from its
            // peer, whose Sends would otherwise go on taking receives of the loop's shared queue.
            if (connection != null && !deviceRemoved && !connection.isAborted()) {
                disconnecting = true;
                connection.abort();
            }
            if (!isOpen()) {
                return;
            }
            pipeline().fireExceptionCaught(cause);
            failUndelivered(cause);
            close(voidPromise());
        }

        @Override
        protected void flush0() {
            // Data written while connecting goes out once connected (like TCP fast open), instead of
            // failing with NotYetConnectedException.
            RdmaChannelState state = state();
            if (state == RdmaChannelState.RESOLVING || state == RdmaChannelState.CONNECTING
                    || state == RdmaChannelState.AWAITING_HELLO) {
                return;
            }
            super.flush0();
        }

        @Override
        public void connectionLost() {
            if (!isOpen()) {
                return;
            }
            // Writes in flight failed: with AUTO_CLOSE off, Netty shuts the output down and keeps
            // reading (as it does for a write error), so what the peer sent before is still read.
            // After the peer's disconnect the flushes are no write error: the end of input says
            // what happens to the writes.
            if (!peerDisconnectSeen && !outputShutdown && !config().isAutoClose() && isActive()) {
                outputShutdown = true;
                halfClosed();
                shutdownOutput(voidPromise());
            }
            onPeerDisconnected();
        }

        final void onPeerDisconnected() {
            disconnected = true;
            // The data that arrived before the disconnect is read first; readNow ends the input then.
            if (!hasInbound()) {
                endOfInput();
            }
        }

        private boolean hasInbound() {
            return connection != null && connection.hasInbound();
        }

        /**
         * The peer will send no more: it shut its output down, closed, or disconnected. As for TCP's FIN,
         * a channel that allows half-closure sees the input shutdown events and stays open until the
         * peer is gone; any other closes.
         */
        private void endOfInput() {
            ChannelOutboundBuffer in = outboundBuffer();
            RdmaSocketChannelConfig config = config();
            if ((peerClosed || disconnected) && !outputShutdown && !config.isAutoClose() && in != null
                    && !in.isEmpty()) {
                // The peer reads nothing more: what waits to be written fails, as a write to a closed
                // TCP socket does, and with AUTO_CLOSE off that shuts the output down.
                outputShutdown = true;
                halfClosed();
                shutdownOutput(voidPromise());
            }
            if (config.isAllowHalfClosure() && !inputShutdown) {
                inputShutdown = true;
                halfClosed();
                pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
                pipeline().fireUserEventTriggered(ChannelInputShutdownReadComplete.INSTANCE);
            }
            if (!config.isAllowHalfClosure() || disconnected) {
                if (disconnected && !peerClosed) {
                    // A peer gone without a CLOSE (killed, or its host lost): the writes fail as a TCP
                    // reset fails them. After a CLOSE they fail as closed, as after TCP's FIN.
                    failUndelivered(new IOException("connection reset: the peer disconnected before these bytes "
                            + "were delivered: " + remoteAddress()));
                }
                close(voidPromise());
            }
        }

        /**
         * Fails the flushed writes with {@code cause}, which says why they will never arrive, rather
         * than with the bare {@code ClosedChannelException} the close that follows gives them. Only
         * those flushed now: a promise's listener or a writability handler may write and flush more
         * meanwhile, and the close fails those.
         */
        private void failUndelivered(Throwable cause) {
            ChannelOutboundBuffer in = outboundBuffer();
            if (in == null) {
                return;
            }
            for (int flushed = in.size(); flushed > 0 && in.current() != null; flushed--) {
                in.remove(cause);
            }
        }


        /** Hands received messages to the pipeline while it wants them. */
        void readNow() {
            if (connection == null || !isOpen()) {
                return;
            }
            ChannelPipeline pipeline = pipeline();
            RecvByteBufAllocator.Handle handle = recvBufAllocHandle();
            RdmaSocketChannelConfig config = config();
            handle.reset(config);
            boolean readSomething = false;
            boolean shutdownReceived = false;
            boolean closeReceived = false;
            // The end of input needs no read() once everything before it was read: as TCP's FIN
            // reaches epoll as EPOLLRDHUP, a channel with AUTO_READ off learns of it at once.
            if (!readPending && !config.isAutoRead() && !connection.endOfInputIsNext()) {
                return;
            }
            try {
                // One read() call is one read loop: it goes on while the allocator's handle wants more,
                // as epoll's loop does, not only while a read is pending.
                while (connection != null && connection.hasInbound()) {
                    if (connection.endOfInputIsNext()) {
                        EndOfInput end = connection.takeEndOfInput();
                        shutdownReceived = end == EndOfInput.SHUTDOWN_OUTPUT;
                        closeReceived = end == EndOfInput.CLOSE;
                        break;
                    }
                    ByteBuf buf = connection.readInbound(handle, config.getAllocator());
                    if (inputShutdown) {
                        buf.release();
                        continue;
                    }
                    readPending = false;
                    readSomething = true;
                    handle.incMessagesRead(1);
                    handle.lastBytesRead(buf.readableBytes());
                    pipeline.fireChannelRead(buf);
                    if (!handle.continueReading()) {
                        break;
                    }
                }
            } catch (Throwable t) {
                handle.readComplete();
                pipeline.fireChannelReadComplete();
                connectionFailed(t);
                return;
            }
            handle.readComplete();
            if (readSomething) {
                pipeline.fireChannelReadComplete();
            }
            // The slots read are posted again only now, after the pipeline flushed what it answered in
            // channelReadComplete: the answer leaves without waiting for ibv_post_recv, and a later
            // message (or a CREDIT, when due) returns the slots.
            if (connection != null) {
                try {
                    connection.readComplete();
                } catch (IOException e) {
                    connectionFailed(e);
                    return;
                }
            }
            if (closeReceived) {
                peerClosed = true;
            }
            if (shutdownReceived || closeReceived || disconnected && !hasInbound()) {
                endOfInput();
            } else if (connection != null && connection.hasInbound()
                    && (readPending || config.isAutoRead() || connection.endOfInputIsNext())) {
                // The allocator handle ended this read; come back for the rest.
                scheduleRead();
            }
        }
    }
}
