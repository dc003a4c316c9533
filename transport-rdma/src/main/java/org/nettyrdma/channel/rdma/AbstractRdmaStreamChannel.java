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
import io.netty.channel.socket.DuplexChannel;
import org.nettyrdma.channel.rdma.connection.ConnectionEvents;
import org.nettyrdma.channel.rdma.connection.EndOfInput;
import org.nettyrdma.channel.rdma.connection.RdmaConnection;
import org.nettyrdma.channel.rdma.connection.TrackedFileRegion;
import org.nettyrdma.channel.rdma.loop.RdmaIoEvent;
import org.nettyrdma.channel.rdma.memory.RdmaDevice;
import org.nettyrdma.channel.rdma.protocol.RdmaProtocol;

/**
 * The byte stream of an RDMA channel over its {@link RdmaConnection}: writes, the read loop and both
 * halves of a close ({@link HalfClosure}). The close lets the queue pair's work requests come back
 * before it frees them ({@link CloseDrain}). How the connection is made is the subclass's
 * ({@link RdmaSocketChannel}). A channel carried by TCP instead has no connection: its
 * {@link TcpCarrier} takes its writes, reads, half-closures and close.
 *
 * <p>Threading: as every Netty channel, all work happens on its event loop.
 */
abstract class AbstractRdmaStreamChannel extends AbstractRdmaChannel implements DuplexChannel {

    volatile RdmaConnection connection;
    /** The TCP connection that carries the channel instead of RDMA; {@code null} over RDMA. */
    volatile TcpCarrier carrier;
    /** What {@code metrics()} reports once the connection is gone. */
    RdmaChannelMetrics metricsAtClose = RdmaChannelMetrics.NONE;
    /** The close after {@link RdmaChannelState#CLOSING}: the wait for the last work requests, then the free. */
    final CloseDrain drain = new CloseDrain(this);
    private final HalfClosure halves = new HalfClosure(this);
    private boolean readPending;
    /**
     * A read is queued on the loop. One is enough however often {@code read()} is called before it
     * runs: a handler that reads a byte at a time would otherwise queue a task per call.
     */
    private boolean readScheduled;
    private final Runnable readTask = () -> {
        readScheduled = false;
        streamUnsafe().readNow();
    };

    AbstractRdmaStreamChannel(Channel parent) {
        super(parent);
    }

    @Override
    public abstract RdmaSocketChannelConfig config();

    /** Returns the channel's handle, which receives its connection's events. */
    final RdmaStreamUnsafe streamUnsafe() {
        return (RdmaStreamUnsafe) unsafe();
    }

    /** Returns the device of the channel's connection, or {@code null} before it has one. */
    final RdmaDevice device() {
        RdmaConnection current = connection;
        return current != null ? current.device() : null;
    }

    @Override
    public boolean isInputShutdown() {
        TcpCarrier tcp = carrier;
        return halves.isInputShut() || tcp != null && tcp.isInputShutdown() || !isActive();
    }

    @Override
    public boolean isOutputShutdown() {
        return halves.isOutputShut() || !isActive();
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
        halves.shutInput();
        if (carrier != null) {
            carrier.shutdownInput();
        }
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

    @Override
    protected void doDisconnect() throws Exception {
        doClose();
    }

    @Override
    protected void doShutdownOutput() throws Exception {
        if (!isActive()) {
            throw new NotYetConnectedException();
        }
        if (!halves.shutOutput()) {
            return;
        }
        if (carrier != null) {
            carrier.shutdownOutput();
            return;
        }
        // In order with the data already posted: the peer reads everything, then the end of input.
        if (connection != null) {
            connection.sendEndOfStream(RdmaProtocol.TYPE_SHUTDOWN_OUTPUT);
        }
    }

    @Override
    void beginClose() throws Exception {
        drain.begin(halves.peerOwedClose());
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
        if (connection != null) {
            drain.disconnect();
        }
        if (connection == null || connection.outstandingWorkRequests() == 0) {
            streamUnsafe().connectionLost();
        } else {
            // The flushes end the input, after what arrived before them. A device may flush nothing
            // posted to a queue pair that its peer's end already put in the error state (siw, once a
            // killed peer's connection closed): then the input ends at the drain's bound.
            eventLoop().schedule(this::flushesOverdue, CloseDrain.TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    private void flushesOverdue() {
        if (isOpen() && connection != null && connection.outstandingWorkRequests() > 0) {
            streamUnsafe().connectionLost();
        }
    }

    /**
     * The step of closing after the drain: disconnects and frees everything native, now; the channel
     * is {@link RdmaChannelState#CLOSED} after.
     */
    final void free() {
        drain.cancelDeadline();
        RdmaConnection closed = releaseConnection();
        if (closed != null) {
            metricsAtClose = RdmaChannelMetrics.of(closed, false);
        }
        freeId();
        finishClose();
    }

    /**
     * Disconnects and frees the connection now, if there is one: the queue pair and its memory.
     * Returns the connection freed, or {@code null}.
     */
    final RdmaConnection releaseConnection() {
        RdmaConnection current = connection;
        if (current != null) {
            drain.disconnect();
            current.close();
            connection = null;
        }
        return current;
    }

    @Override
    protected void doBeginRead() throws Exception {
        if (carrier != null) {
            carrier.read();
            return;
        }
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
        if (carrier != null) {
            carrier.write(in);
        } else if (connection != null) {
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
    abstract class RdmaStreamUnsafe extends AbstractRdmaUnsafe implements ConnectionEvents {

        @Override
        void completion(RdmaIoEvent event) {
            if (connection != null) {
                connection.onCompletion(event.wrId(), event.status(), event.opcode(), event.byteLength(),
                        event.immediate(), event.flags());
                drain.freeIfDrained();
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
                free();
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
            drain.lastSendsCompleted();
        }

        @Override
        public void connectionFailed(Throwable cause) {
            // First of all, and even while closing (CloseDrain#abort).
            drain.abort();
            if (!isOpen() || state() == RdmaChannelState.CONNECTING_TCP) {
                // Closed, or an RDMA attempt being let go of for TCP: nothing of it reaches the pipeline.
                return;
            }
            pipeline().fireExceptionCaught(cause);
            failUndelivered(cause);
            close(voidPromise());
        }

        @Override
        protected void flush0() {
            // Data written while connecting goes out once connected (like TCP fast open), instead of
            // failing with NotYetConnectedException; over TCP too.
            RdmaChannelState state = state();
            if (state == RdmaChannelState.RESOLVING || state == RdmaChannelState.CONNECTING
                    || state == RdmaChannelState.AWAITING_HELLO
                    || state == RdmaChannelState.CONNECTING_TCP) {
                return;
            }
            super.flush0();
        }

        @Override
        public void connectionLost() {
            if (!isOpen()) {
                return;
            }
            halves.queuePairLost();
            // The data that arrived before the disconnect is read first; readNow ends the input then.
            if (!hasInbound()) {
                halves.endOfInput();
            }
        }

        private boolean hasInbound() {
            return connection != null && connection.hasInbound();
        }

        /**
         * Fails the flushed writes with {@code cause}, which says why they will never arrive, rather
         * than with the bare {@code ClosedChannelException} the close that follows gives them. Only
         * those flushed now: a promise's listener or a writability handler may write and flush more
         * meanwhile, and the close fails those.
         */
        final void failUndelivered(Throwable cause) {
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
                    if (halves.isInputShut()) {
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
                halves.closeRead();
            }
            if (shutdownReceived || closeReceived || halves.isPeerGone() && !hasInbound()) {
                halves.endOfInput();
            } else if (connection != null && connection.hasInbound()
                    && (readPending || config.isAutoRead() || connection.endOfInputIsNext())) {
                // The allocator handle ended this read; come back for the rest.
                scheduleRead();
            }
        }
    }
}
