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

import static io.netty.util.internal.ObjectUtil.checkInRange;

import java.util.Map;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.MessageSizeEstimator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannelConfig;
import org.nettyrdma.channel.rdma.connection.ConnectionSettings;
import org.nettyrdma.channel.rdma.protocol.RdmaProtocol;

/**
 * The configuration of an {@link RdmaSocketChannel}. What the standard socket options mean here:
 * <ul>
 *   <li>{@code SO_RCVBUF}: the largest ring the peer RDMA-Writes large messages into (default 1 MiB, at
 *       least 64 KiB: smaller values are raised, as a kernel raises a socket's). A ring opens only
 *       when the peer has writes larger than a receive slot, at 256 KiB (or this, if smaller), grows
 *       up to it, and goes after {@link RdmaChannelOption#RING_IDLE_MILLIS} without a Write; on a
 *       device whose windows do not confine a peer (rxe) none opens;</li>
 *   <li>{@code SO_SNDBUF}: the most registered memory outgoing bytes are copied into until the device
 *       has sent them (default 1 MiB, at least 64 KiB): blocks of the shared pool, held only while
 *       sends are in flight, so an idle connection holds none; a write's promise completes when the
 *       device reports the work request that carried its bytes complete;</li>
 *   <li>{@code WRITE_BUFFER_WATER_MARK}: unless set, a high mark of a quarter of {@code SO_SNDBUF}
 *       (256 KiB by default) and a low mark 32 KiB below it: bytes count against the marks until the
 *       device completes them, so Netty's 32/64 KiB would allow one 64 KiB write in flight, and a narrow
 *       gap makes a writer refill in small steps (docs/decisions.md#write-water-marks);</li>
 *   <li>{@code ALLOCATOR}: {@link RdmaByteBufAllocator#DEFAULT} unless set: its direct buffers are
 *       registered memory, and a large write of one travels by RDMA Write from where it is, without
 *       the copy into staging blocks that buffers of other allocators take;</li>
 *   <li>{@code SO_KEEPALIVE}: an idle connection is probed (after
 *       {@link RdmaChannelOption#KEEPALIVE_IDLE_MILLIS}), so a peer gone without a word is found;</li>
 *   <li>{@code IP_TOS}: the traffic class of the packets of a channel that connects;
 *       {@code TCP_NODELAY}: always on, there is no Nagle; {@code SO_REUSEADDR}, {@code SO_LINGER}:
 *       kept and reported, without effect over RDMA (docs/options.md). On a channel carried by TCP
 *       ({@link RdmaSocketChannel#fallbackReason()}) these five are its TCP socket's, set at once.</li>
 * </ul>
 * The buffer sizes and the {@link RdmaChannelOption}s take effect when the connection is set up.
 */
public final class RdmaSocketChannelConfig extends DefaultChannelConfig implements SocketChannelConfig {

    static final int DEFAULT_BUFFER_SIZE = 1 << 20;
    /** The smallest ring and staging limit: room for several full slots, so a Send always fits. */
    static final int MIN_BUFFER_SIZE = 64 * 1024;
    /** The default low water mark lies this far below the high one. */
    static final int WATER_MARK_GAP = 32 * 1024;

    /** The values of the {@link RdmaChannelOption}s, which the getters and setters below answer for. */
    private final RdmaOptionValues optionValues = new RdmaOptionValues();
    private volatile int receiveBufferSize = DEFAULT_BUFFER_SIZE;
    private volatile int sendBufferSize = DEFAULT_BUFFER_SIZE;
    private volatile boolean allowHalfClosure;
    private volatile boolean keepAlive;
    private volatile int trafficClass;
    private volatile boolean reuseAddress;
    private volatile int soLinger = -1;
    private volatile boolean tcpNoDelay = true; // over RDMA, always in effect
    /** Set once the user chose water marks; until then they follow {@code SO_SNDBUF}. */
    private volatile boolean waterMarkChosen;

    RdmaSocketChannelConfig(RdmaSocketChannel channel) {
        super(channel);
        followSendBufferSize();
        // What the pipeline allocates is then sent without a copy (RdmaByteBufAllocator).
        setAllocator(RdmaByteBufAllocator.DEFAULT);
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        return getOptions(super.getOptions(), SocketOptionTable.options());
    }

    @Override
    public <T> T getOption(ChannelOption<T> option) {
        if (SocketOptionTable.contains(option)) {
            return SocketOptionTable.get(this, option);
        }
        return super.getOption(option);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        validate(option, value);
        if (!SocketOptionTable.contains(option)) {
            return super.setOption(option, value);
        }
        SocketOptionTable.set(this, option, value);
        return true;
    }

    /** Returns the receive slots posted for the peer's Sends. */
    public int getReceiveSlots() {
        return optionValues.receiveSlots();
    }

    /** Sets the receive slots posted for the peer's Sends. */
    public RdmaSocketChannelConfig setReceiveSlots(int receiveSlots) {
        optionValues.receiveSlots(receiveSlots);
        return this;
    }

    /** Returns the size of a receive slot (the largest Send). */
    public int getSlotSize() {
        return optionValues.slotSize();
    }

    /** Sets the size of a receive slot (the largest Send). */
    public RdmaSocketChannelConfig setSlotSize(int slotSize) {
        optionValues.slotSize(slotSize);
        return this;
    }

    /** Returns the work requests the send queue holds. */
    public int getSendQueueDepth() {
        return optionValues.sendQueueDepth();
    }

    /** Sets the work requests the send queue holds. */
    public RdmaSocketChannelConfig setSendQueueDepth(int sendQueueDepth) {
        optionValues.sendQueueDepth(sendQueueDepth);
        return this;
    }

    /** Returns the largest Send (header included) asked to be posted inline; 0 when off. */
    public int getMaxInlineData() {
        return optionValues.maxInlineData();
    }

    /**
     * Sets the largest Send (header included) to post inline, asked of the device when the connection's
     * queue pair is made; 0 turns inline sends off. A device that refuses the size gets a queue pair
     * without inline sends.
     */
    public RdmaSocketChannelConfig setMaxInlineData(int maxInlineData) {
        optionValues.maxInlineData(maxInlineData);
        return this;
    }

    /** Returns how long a connection with {@code SO_KEEPALIVE} may be idle before it is probed. */
    public int getKeepAliveIdleMillis() {
        return optionValues.keepAliveIdleMillis();
    }

    /**
     * Sets how long a connection with {@code SO_KEEPALIVE} may be idle before it is probed
     * ({@link RdmaChannelOption#KEEPALIVE_IDLE_MILLIS}); read when the connection is established.
     */
    public RdmaSocketChannelConfig setKeepAliveIdleMillis(int keepAliveIdleMillis) {
        optionValues.keepAliveIdleMillis(keepAliveIdleMillis);
        return this;
    }

    /** Returns how long an accepted connection waits for the peer's {@code HELLO}. */
    public int getHelloTimeoutMillis() {
        return optionValues.helloTimeoutMillis();
    }

    /**
     * Sets how long an accepted connection waits for the peer's {@code HELLO} before it is closed
     * ({@link RdmaChannelOption#HELLO_TIMEOUT_MILLIS}); read when the connection is accepted.
     */
    public RdmaSocketChannelConfig setHelloTimeoutMillis(int helloTimeoutMillis) {
        optionValues.helloTimeoutMillis(helloTimeoutMillis);
        return this;
    }

    /** Returns how long writes may wait for the peer's credit; 0 for no bound. */
    public int getCreditTimeoutMillis() {
        return optionValues.creditTimeoutMillis();
    }

    /**
     * Sets how long writes may wait for the peer to return credit before the channel fails
     * ({@link RdmaChannelOption#CREDIT_TIMEOUT_MILLIS}); 0 for no bound. Read when a wait starts.
     */
    public RdmaSocketChannelConfig setCreditTimeoutMillis(int creditTimeoutMillis) {
        optionValues.creditTimeoutMillis(creditTimeoutMillis);
        return this;
    }

    /** Returns how long a ring opened to the peer stays open without a Write; 0 for as long as the connection. */
    public int getRingIdleMillis() {
        return optionValues.ringIdleMillis();
    }

    /**
     * Sets how long a ring opened to the peer stays open without a Write into it
     * ({@link RdmaChannelOption#RING_IDLE_MILLIS}); 0 keeps it until the connection closes. Read when a
     * ring opens.
     */
    public RdmaSocketChannelConfig setRingIdleMillis(int ringIdleMillis) {
        optionValues.ringIdleMillis(ringIdleMillis);
        return this;
    }

    /**
     * Returns {@code true} if ring data is handed up where the peer wrote it
     * ({@link RdmaChannelOption#RECEIVE_IN_PLACE}).
     */
    public boolean isReceiveInPlace() {
        return optionValues.receiveInPlace();
    }

    /**
     * Sets whether ring data is handed up where the peer wrote it, and may still write it
     * ({@link RdmaChannelOption#RECEIVE_IN_PLACE}); read when the connection is made.
     */
    public RdmaSocketChannelConfig setReceiveInPlace(boolean receiveInPlace) {
        optionValues.receiveInPlace(receiveInPlace);
        return this;
    }

    /**
     * Returns {@code true} if the connection gets a protection domain of its own, to expose memory to
     * its peer ({@link RdmaChannelOption#EXPOSE_MEMORY}).
     */
    public boolean isExposeMemory() {
        return optionValues.exposeMemory();
    }

    /**
     * Sets whether the connection gets a protection domain of its own, to expose memory to its peer
     * ({@link RdmaChannelOption#EXPOSE_MEMORY}); read when the connection is made.
     */
    public RdmaSocketChannelConfig setExposeMemory(boolean exposeMemory) {
        optionValues.exposeMemory(exposeMemory);
        return this;
    }

    /**
     * Returns {@code true} if the peer's Sends land in the event loop's shared receive queue
     * ({@link RdmaChannelOption#SHARED_RECEIVE_QUEUE}).
     */
    public boolean isSharedReceiveQueue() {
        return optionValues.sharedReceiveQueue();
    }

    /**
     * Sets whether the peer's Sends land in the event loop's shared receive queue, for trusted peers
     * ({@link RdmaChannelOption#SHARED_RECEIVE_QUEUE}); read when the connection is made.
     */
    public RdmaSocketChannelConfig setSharedReceiveQueue(boolean sharedReceiveQueue) {
        optionValues.sharedReceiveQueue(sharedReceiveQueue);
        return this;
    }

    /**
     * Returns how often the peer's device retries a Send to this side that found no receive posted
     * ({@link RdmaChannelOption#RNR_RETRY_COUNT}).
     */
    public int getRnrRetryCount() {
        return optionValues.rnrRetryCount();
    }

    /**
     * Sets how often the peer's device retries a Send to this side that found no receive posted, 0 to
     * 7 ({@link RdmaChannelOption#RNR_RETRY_COUNT}); read when the connection is made.
     */
    public RdmaSocketChannelConfig setRnrRetryCount(int rnrRetryCount) {
        optionValues.rnrRetryCount(rnrRetryCount);
        return this;
    }

    /** Returns {@code true} if TCP carries the channel where RDMA cannot ({@link RdmaChannelOption#TCP_FALLBACK}). */
    public boolean isTcpFallback() {
        return optionValues.tcpFallback();
    }

    /** Sets whether TCP carries the channel where RDMA cannot ({@link RdmaChannelOption#TCP_FALLBACK}). */
    public RdmaSocketChannelConfig setTcpFallback(boolean tcpFallback) {
        optionValues.tcpFallback(tcpFallback);
        return this;
    }

    @Override
    public boolean isTcpNoDelay() {
        // Over RDMA nothing is ever delayed to coalesce: a flush posts at once.
        return tcpNoDelay || ((RdmaSocketChannel) channel).fallbackReason() == null;
    }

    @Override
    public RdmaSocketChannelConfig setTcpNoDelay(boolean tcpNoDelay) {
        this.tcpNoDelay = tcpNoDelay;
        return carry(ChannelOption.TCP_NODELAY, tcpNoDelay);
    }

    /** Gives {@code option} to the TCP socket of a channel carried by TCP, which takes it at once. */
    private <T> RdmaSocketChannelConfig carry(ChannelOption<T> option, T value) {
        ((RdmaSocketChannel) channel).setCarrierOption(option, value);
        return this;
    }

    @Override
    public int getSoLinger() {
        return soLinger;
    }

    @Override
    public RdmaSocketChannelConfig setSoLinger(int soLinger) {
        this.soLinger = soLinger;
        return carry(ChannelOption.SO_LINGER, soLinger);
    }

    @Override
    public int getSendBufferSize() {
        return sendBufferSize;
    }

    @Override
    public RdmaSocketChannelConfig setSendBufferSize(int sendBufferSize) {
        // As a kernel does for a socket, a small value is raised to what the transport needs to work.
        this.sendBufferSize = Math.max(MIN_BUFFER_SIZE,
                checkInRange(sendBufferSize, 1, RdmaProtocol.MAX_RING_SIZE, "sendBufferSize"));
        if (!waterMarkChosen) {
            followSendBufferSize();
        }
        return this;
    }

    /**
     * Sets the water marks that apply until the user sets some: room for several large writes in
     * flight, as a kernel's socket buffer gives TCP, and a gap of at most {@link #WATER_MARK_GAP} so
     * that a writer is woken to refill once a slice of its window completed, not all of it
     * (docs/decisions.md#write-water-marks).
     */
    private void followSendBufferSize() {
        int high = Math.max(MIN_BUFFER_SIZE, sendBufferSize / 4);
        super.setWriteBufferWaterMark(new WriteBufferWaterMark(high - Math.min(WATER_MARK_GAP, high / 2), high));
    }

    @Override
    public int getReceiveBufferSize() {
        return receiveBufferSize;
    }

    @Override
    public RdmaSocketChannelConfig setReceiveBufferSize(int receiveBufferSize) {
        this.receiveBufferSize = Math.max(MIN_BUFFER_SIZE,
                checkInRange(receiveBufferSize, 1, RdmaProtocol.MAX_RING_SIZE, "receiveBufferSize"));
        return this;
    }

    @Override
    public boolean isKeepAlive() {
        return keepAlive;
    }

    /** Probes idle connections ({@link RdmaChannelOption#KEEPALIVE_IDLE_MILLIS}); read when established. */
    @Override
    public RdmaSocketChannelConfig setKeepAlive(boolean keepAlive) {
        this.keepAlive = keepAlive;
        return carry(ChannelOption.SO_KEEPALIVE, keepAlive);
    }

    @Override
    public int getTrafficClass() {
        return trafficClass;
    }

    /**
     * Sets the traffic class of the connection's packets, 0 ..= 255 as for a TCP socket; read when the
     * channel connects, before RDMA CM resolves the route (docs/options.md). 0 keeps the system's default.
     */
    @Override
    public RdmaSocketChannelConfig setTrafficClass(int trafficClass) {
        this.trafficClass = checkInRange(trafficClass, 0, 255, "trafficClass");
        return carry(ChannelOption.IP_TOS, this.trafficClass);
    }

    @Override
    public boolean isReuseAddress() {
        return reuseAddress;
    }

    @Override
    public RdmaSocketChannelConfig setReuseAddress(boolean reuseAddress) {
        this.reuseAddress = reuseAddress;
        return carry(ChannelOption.SO_REUSEADDR, reuseAddress);
    }

    @Override
    public RdmaSocketChannelConfig setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        return this;
    }

    @Override
    public boolean isAllowHalfClosure() {
        return allowHalfClosure;
    }

    @Override
    public RdmaSocketChannelConfig setAllowHalfClosure(boolean allowHalfClosure) {
        this.allowHalfClosure = allowHalfClosure;
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setConnectTimeoutMillis(int connectTimeoutMillis) {
        super.setConnectTimeoutMillis(connectTimeoutMillis);
        return this;
    }

    @Override
    @Deprecated
    public RdmaSocketChannelConfig setMaxMessagesPerRead(int maxMessagesPerRead) {
        super.setMaxMessagesPerRead(maxMessagesPerRead);
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setWriteSpinCount(int writeSpinCount) {
        super.setWriteSpinCount(writeSpinCount);
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setAllocator(ByteBufAllocator allocator) {
        super.setAllocator(allocator);
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setRecvByteBufAllocator(RecvByteBufAllocator allocator) {
        super.setRecvByteBufAllocator(allocator);
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setAutoRead(boolean autoRead) {
        super.setAutoRead(autoRead);
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setAutoClose(boolean autoClose) {
        super.setAutoClose(autoClose);
        return this;
    }

    @Override
    @Deprecated
    public RdmaSocketChannelConfig setWriteBufferHighWaterMark(int writeBufferHighWaterMark) {
        waterMarkChosen = true;
        super.setWriteBufferHighWaterMark(writeBufferHighWaterMark);
        return this;
    }

    @Override
    @Deprecated
    public RdmaSocketChannelConfig setWriteBufferLowWaterMark(int writeBufferLowWaterMark) {
        waterMarkChosen = true;
        super.setWriteBufferLowWaterMark(writeBufferLowWaterMark);
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setWriteBufferWaterMark(WriteBufferWaterMark writeBufferWaterMark) {
        waterMarkChosen = true;
        super.setWriteBufferWaterMark(writeBufferWaterMark);
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setMessageSizeEstimator(MessageSizeEstimator estimator) {
        super.setMessageSizeEstimator(estimator);
        return this;
    }

    @Override
    protected void autoReadCleared() {
        ((RdmaSocketChannel) channel).clearReadPending();
    }

    /** Returns the options a connection is made with, as they stand now: read once, at its set-up. */
    ConnectionSettings connectionSettings() {
        return new ConnectionSettings(getReceiveSlots(), getSlotSize(), getSendQueueDepth(), getMaxInlineData(),
                getSendBufferSize(), getReceiveBufferSize(), getRingIdleMillis(), getCreditTimeoutMillis(),
                isReceiveInPlace(), isSharedReceiveQueue(), isExposeMemory());
    }
}
