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

import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;

/**
 * Which halves of a stream channel are shut and why ({@link InputHalf}, {@link OutputHalf}), how far
 * its peer has gone ({@link PeerEnd}), and what the channel does when the peer will send no more. As
 * for TCP's FIN, a channel that allows half-closure sees the input shutdown events and stays open
 * until the peer is gone; any other closes.
 *
 * <p>Threading: the channel's event loop only.
 */
final class HalfClosure {

    private final AbstractRdmaStreamChannel channel;
    private InputHalf input = InputHalf.OPEN;
    private OutputHalf output = OutputHalf.OPEN;
    private PeerEnd peer = PeerEnd.CONNECTED;

    HalfClosure(AbstractRdmaStreamChannel channel) {
        this.channel = channel;
    }

    /** Returns {@code true} once the input is shut: what still arrives is dropped. */
    boolean isInputShut() {
        return input.isShut();
    }

    /** Returns {@code true} once the output is shut. */
    boolean isOutputShut() {
        return output.isShut();
    }

    /** Returns {@code true} unless the peer's {@code CLOSE} was read: a close then sends none back. */
    boolean peerOwedClose() {
        return !peer.sentClose();
    }

    /** Returns {@code true} once the peer's queue pair is gone: the input ends once what came before is read. */
    boolean isPeerGone() {
        return peer.isGone();
    }

    /**
     * This side shut its input down. The peer cannot be told to stop sending without closing; the input
     * side is cut locally: whatever arrives from now on is dropped (and credited back, so the peer is
     * not stalled).
     */
    void shutInput() {
        input = InputHalf.SHUT_DOWN;
        halfClosed();
    }

    /** This side shuts its output down; returns {@code false} if it was shut already. */
    boolean shutOutput() {
        if (output.isShut()) {
            return false;
        }
        output = OutputHalf.SHUT_DOWN;
        halfClosed();
        return true;
    }

    /** The peer's {@code CLOSE} was read. */
    void closeRead() {
        peer = peer.closeRead();
    }

    /**
     * The channel's queue pair went to the error state without an error of its own: the peer is gone.
     * If this side did not disconnect the queue pair, the writes in flight failed: with AUTO_CLOSE off,
     * Netty shuts the output down and keeps reading (as it does for a write error), so what the peer
     * sent before is still read. After a disconnect the CM reported
     * ({@link AbstractRdmaStreamChannel#peerDisconnected}), the flushes are no write error: the end of
     * input says what happens to the writes.
     */
    void queuePairLost() {
        if (channel.drain.stage() == CloseDrain.Stage.CONNECTED && !channel.config().isAutoClose()
                && channel.isActive()) {
            writesFailed();
        }
        peer = peer.disconnected();
    }

    /** The peer will send no more: it shut its output down, closed, or disconnected. */
    void endOfInput() {
        Channel.Unsafe unsafe = channel.unsafe();
        ChannelOutboundBuffer in = unsafe.outboundBuffer();
        RdmaSocketChannelConfig config = channel.config();
        if (peer != PeerEnd.CONNECTED && !config.isAutoClose() && in != null && !in.isEmpty()) {
            // The peer reads nothing more: what waits to be written fails, as a write to a closed
            // TCP socket does, and with AUTO_CLOSE off that shuts the output down.
            writesFailed();
        }
        if (config.isAllowHalfClosure() && !input.isShut()) {
            input = InputHalf.ENDED;
            halfClosed();
            channel.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
            channel.pipeline().fireUserEventTriggered(ChannelInputShutdownReadComplete.INSTANCE);
        }
        if (!config.isAllowHalfClosure() || peer.isGone()) {
            if (peer == PeerEnd.DISCONNECTED) {
                // A peer gone without a CLOSE (killed, or its host lost): the writes fail as a TCP
                // reset fails them. After a CLOSE they fail as closed, as after TCP's FIN.
                channel.streamUnsafe().failUndelivered(new IOException("connection reset: the peer "
                        + "disconnected before these bytes were delivered: " + channel.remoteAddress()));
            }
            unsafe.close(unsafe.voidPromise());
        }
    }

    /** The writes failed with AUTO_CLOSE off: Netty shuts the output down, as for a write error. */
    private void writesFailed() {
        if (!output.isShut()) {
            output = OutputHalf.FAILED;
            halfClosed();
            AbstractRdmaStreamChannel.RdmaStreamUnsafe unsafe = channel.streamUnsafe();
            unsafe.shutdownOutput(unsafe.voidPromise());
        }
    }

    /** One direction of an active channel ended: it is half-closed. */
    private void halfClosed() {
        if (channel.state() == RdmaChannelState.ACTIVE) {
            channel.transition(RdmaChannelState.HALF_CLOSED);
        }
    }
}
