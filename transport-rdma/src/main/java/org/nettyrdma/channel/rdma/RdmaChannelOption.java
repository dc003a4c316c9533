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

import io.netty.channel.ChannelOption;

/**
 * Options specific to RDMA channels. Standard options keep their meaning where RDMA has one:
 * {@code SO_RCVBUF} is the size of the ring the peer may write into, {@code SO_SNDBUF} the most
 * registered memory outgoing data is staged in until the device has sent it.
 *
 * @param <T> the option's value type
 */
public final class RdmaChannelOption<T> extends ChannelOption<T> {

    /** Receive slots posted for the peer's Sends (its credit for messages); default 64. */
    public static final ChannelOption<Integer> RECEIVE_SLOTS = valueOf(RdmaChannelOption.class, "RECEIVE_SLOTS");

    /**
     * Size of one receive slot, and so of the largest Send; default 8 KiB. Writes smaller than a slot
     * travel as Sends (several of one flush share one), larger ones as RDMA Writes into the peer's ring
     * (docs/decisions.md#send-or-write).
     */
    public static final ChannelOption<Integer> SLOT_SIZE = valueOf(RdmaChannelOption.class, "SLOT_SIZE");

    /** Work requests the send queue holds; default 128. */
    public static final ChannelOption<Integer> SEND_QUEUE_DEPTH = valueOf(RdmaChannelOption.class,
            "SEND_QUEUE_DEPTH");

    /**
     * The largest Send, header included, posted inline: the provider copies it into the work request,
     * so the device need not read it from memory; default 128 (a 64-byte request and its header fit).
     * A device that grants less bounds it ({@link RdmaChannelMetrics#maxInlineData()}); 0 turns it off
     * for data. The {@code HELLO} and control messages go inline whatever this says, where the device
     * allows, so that they need no registered memory (docs/decisions.md#inline-threshold).
     */
    public static final ChannelOption<Integer> MAX_INLINE_DATA = valueOf(RdmaChannelOption.class,
            "MAX_INLINE_DATA");

    /**
     * With {@code SO_KEEPALIVE} on, how long a connection may go without a completion before it is
     * probed; default 60 000 ms. A probe is an RDMA Write of no bytes, which the peer's device
     * acknowledges without its software knowing. A peer that is gone without a disconnect (a crashed
     * host) never acknowledges it: after the queue pair's retries the channel closes with the error.
     */
    public static final ChannelOption<Integer> KEEPALIVE_IDLE_MILLIS = valueOf(RdmaChannelOption.class,
            "KEEPALIVE_IDLE_MILLIS");

    /**
     * How long an accepted connection waits for the peer's {@code HELLO}, its first message, before
     * it is closed and its queue pair and memory are freed; default 10 000 ms. A child option of a
     * server: it bounds what a peer that connects and never speaks can hold
     * (docs/decisions.md#hello-deadline).
     */
    public static final ChannelOption<Integer> HELLO_TIMEOUT_MILLIS = valueOf(RdmaChannelOption.class,
            "HELLO_TIMEOUT_MILLIS");

    /**
     * How long writes may wait for the peer to return receive credit before the channel fails with a
     * {@link RdmaCreditTimeoutException}, closing; default 60 000 ms, 0 for no bound. The wait starts
     * when a flush finds no slot of the peer's left and ends when the peer returns one, so a slow
     * reader that returns credit now and then is never cut off; a peer that stopped reading, or
     * grants credit it never returns, is. An application that pauses its peer's reads for longer
     * ({@code AUTO_READ} off) raises it (docs/decisions.md#credit-deadline).
     */
    public static final ChannelOption<Integer> CREDIT_TIMEOUT_MILLIS = valueOf(RdmaChannelOption.class,
            "CREDIT_TIMEOUT_MILLIS");

    /**
     * The registered memory the connections from one source address may hold on a server; an option
     * of the server channel, default half of the process's limit
     * ({@link RdmaMemoryMetrics#LIMIT_PROPERTY}). A connect request is admitted only if what the
     * connections from its address hold, with all this connection can come to hold, stays within it;
     * one that does not is refused at once, with the reason, so that one client cannot take the memory
     * every client shares (docs/decisions.md#admission).
     */
    public static final ChannelOption<Long> MAX_REGISTERED_MEMORY_PER_ADDRESS = valueOf(RdmaChannelOption.class,
            "MAX_REGISTERED_MEMORY_PER_ADDRESS");

    /**
     * How many connections from one source address a server holds open at once; an option of the
     * server channel, default 1024. A connection costs more than its registered memory: a queue pair,
     * the provider's queues in this process and the channel's objects. A connect request beyond it is
     * refused at once, with the reason. The process's bound on all connections, clients included, is
     * {@link RdmaMemoryMetrics#CONNECTION_LIMIT_PROPERTY} (docs/decisions.md#connection-bounds).
     */
    public static final ChannelOption<Integer> MAX_CONNECTIONS_PER_ADDRESS = valueOf(RdmaChannelOption.class,
            "MAX_CONNECTIONS_PER_ADDRESS");

    /**
     * Hands the data the peer RDMA-Wrote into this side's ring up the pipeline where it landed, without
     * a copy; default {@code false}. <b>The peer can still write into such a buffer until the pipeline
     * releases it</b>: bytes a decoder or handler already checked (a length, a header, a signature) may
     * change under it. Turn it on only where every peer is trusted. Off, each piece is copied into a
     * buffer of the channel's allocator and its ring space returned, so bytes the pipeline holds never
     * change, as over TCP. It matters only on a connection that opened a ring to its peer: on a device
     * whose memory windows do not confine a peer (rxe) there is none, and everything arrives by Send,
     * into receives the peer can no longer reach once they completed (docs/security.md).
     */
    public static final ChannelOption<Boolean> RECEIVE_IN_PLACE = valueOf(RdmaChannelOption.class,
            "RECEIVE_IN_PLACE");

    /**
     * How long a ring this side opened to its peer stays open without a Write into it before it is
     * closed and its memory deregistered; default 2 000 ms, 0 to keep it until the connection closes.
     * A peer opens no ring until it has writes larger than a receive slot, and gets one again, with a
     * new key, when they come back (docs/decisions.md#rings-on-demand). Only on a device whose memory
     * windows confine a peer: on rxe no ring opens at all.
     */
    public static final ChannelOption<Integer> RING_IDLE_MILLIS = valueOf(RdmaChannelOption.class,
            "RING_IDLE_MILLIS");

    /**
     * Whether the connection may expose memory to its peer for one-sided operations
     * ({@link RdmaSocketChannel#expose}); default {@code false}. On, the connection gets a protection
     * domain of its own when it is made, so that a key it hands out works on its queue pair and no
     * other: its receive slots and staging blocks are registered there too, it sends by Send only (no
     * ring), and it registers about 300 KiB that a connection of the shared domain does not
     * (docs/one-sided.md). Its own one-sided operations need no such option. Read when the connection
     * is made: a server sets it as a child option.
     */
    public static final ChannelOption<Boolean> EXPOSE_MEMORY = valueOf(RdmaChannelOption.class, "EXPOSE_MEMORY");

    /**
     * Whether the peer's Sends land in the event loop's shared receive queue, with every other
     * connection of the loop that says so, instead of a receive queue of the connection's own; default
     * {@code false}. Shared, a connection registers its slots in the loop's chunks of 32 rather than
     * its own of 4, but a peer that sends beyond its credit takes receives that other peers' credits
     * stand for until its connection is stopped: their Sends may then meet receiver-not-ready retries.
     * For trusted peers only (docs/security.md). Read when the connection is made: a server sets it as
     * a child option. A connection with {@link #EXPOSE_MEMORY} always has a queue of its own, and so
     * does every connection under {@code -Dorg.nettyrdma.sharedReceiveQueue=never}, which logs once
     * that the option is ignored.
     */
    public static final ChannelOption<Boolean> SHARED_RECEIVE_QUEUE = valueOf(RdmaChannelOption.class,
            "SHARED_RECEIVE_QUEUE");

    /**
     * How often the peer's device retries a Send to this side that found no receive posted before it
     * fails the peer's connection with "receiver-not-ready retries exhausted", from 0 to 7 (7: without
     * end); default 6. This side announces it when it connects or accepts (RDMA CM's
     * {@code rnr_retry_count}), and the peer's queue pair takes it. This side credits only posted
     * receives, so a well-behaved peer's Sends never retry. Read when the connection is made: a
     * server sets it as a child option.
     */
    public static final ChannelOption<Integer> RNR_RETRY_COUNT = valueOf(RdmaChannelOption.class, "RNR_RETRY_COUNT");

    /**
     * Whether a channel that cannot be carried by RDMA is carried by TCP instead; default
     * {@code true}. A client falls back when this process has no RDMA device
     * ({@link RdmaFallbackReason}); a server also listens on TCP at its address and port and hands
     * TCP clients to its pipeline as it does RDMA ones. With {@code false} the channel is strictly
     * RDMA: a connect fails with what was missing (docs/fallback.md).
     */
    public static final ChannelOption<Boolean> TCP_FALLBACK = valueOf(RdmaChannelOption.class, "TCP_FALLBACK");

    @SuppressWarnings({ "unused", "deprecation" })
    private RdmaChannelOption() {
        super(null);
    }
}
