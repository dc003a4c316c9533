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

import static io.netty.channel.ChannelOption.SO_BACKLOG;
import static io.netty.channel.ChannelOption.SO_RCVBUF;
import static io.netty.channel.ChannelOption.SO_REUSEADDR;
import static io.netty.util.internal.ObjectUtil.checkPositive;
import static io.netty.util.internal.ObjectUtil.checkPositiveOrZero;

import java.util.Map;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.MessageSizeEstimator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.ServerSocketChannelConfig;
import io.netty.util.NetUtil;
import org.nettyrdma.channel.rdma.memory.RegisteredMemoryBudget;

/**
 * The configuration of an {@link RdmaServerSocketChannel}. {@code SO_BACKLOG} (default: the system's
 * {@code somaxconn}) bounds the connections that have not finished their set-up: the connect
 * requests waiting to be accepted and the accepted connections whose peer has not sent its
 * {@code HELLO} yet; requests beyond it are refused at once, with the reason.
 * {@link RdmaChannelOption#MAX_CONNECTIONS_PER_ADDRESS} and
 * {@link RdmaChannelOption#MAX_REGISTERED_MEMORY_PER_ADDRESS} bound the connections from one source
 * address and what they hold. Options for accepted channels are set with {@code ServerBootstrap.childOption}.
 */
public final class RdmaServerSocketChannelConfig extends DefaultChannelConfig implements ServerSocketChannelConfig {

    private volatile int backlog = NetUtil.SOMAXCONN;
    private volatile boolean reuseAddress;
    private volatile boolean tcpFallback = true;
    private volatile int receiveBufferSize = RdmaSocketChannelConfig.DEFAULT_BUFFER_SIZE;
    private volatile long maxRegisteredMemoryPerAddress = RegisteredMemoryBudget.limit() / 2;
    private volatile int maxConnectionsPerAddress = DEFAULT_MAX_CONNECTIONS_PER_ADDRESS;

    /** The default of {@link RdmaChannelOption#MAX_CONNECTIONS_PER_ADDRESS}. */
    static final int DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 1024;

    RdmaServerSocketChannelConfig(RdmaServerSocketChannel channel) {
        super(channel);
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        return getOptions(super.getOptions(), SO_BACKLOG, SO_REUSEADDR, SO_RCVBUF,
                RdmaChannelOption.MAX_REGISTERED_MEMORY_PER_ADDRESS, RdmaChannelOption.MAX_CONNECTIONS_PER_ADDRESS,
                RdmaChannelOption.TCP_FALLBACK);
    }

    @SuppressWarnings("unchecked")
    @Override
    public <T> T getOption(ChannelOption<T> option) {
        if (option == SO_BACKLOG) {
            return (T) Integer.valueOf(getBacklog());
        }
        if (option == SO_REUSEADDR) {
            return (T) Boolean.valueOf(isReuseAddress());
        }
        if (option == SO_RCVBUF) {
            return (T) Integer.valueOf(getReceiveBufferSize());
        }
        if (option == RdmaChannelOption.MAX_REGISTERED_MEMORY_PER_ADDRESS) {
            return (T) Long.valueOf(getMaxRegisteredMemoryPerAddress());
        }
        if (option == RdmaChannelOption.MAX_CONNECTIONS_PER_ADDRESS) {
            return (T) Integer.valueOf(getMaxConnectionsPerAddress());
        }
        if (option == RdmaChannelOption.TCP_FALLBACK) {
            return (T) Boolean.valueOf(isTcpFallback());
        }
        return super.getOption(option);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        validate(option, value);
        if (option == SO_BACKLOG) {
            setBacklog((Integer) value);
        } else if (option == SO_REUSEADDR) {
            setReuseAddress((Boolean) value);
        } else if (option == SO_RCVBUF) {
            setReceiveBufferSize((Integer) value);
        } else if (option == RdmaChannelOption.MAX_REGISTERED_MEMORY_PER_ADDRESS) {
            setMaxRegisteredMemoryPerAddress((Long) value);
        } else if (option == RdmaChannelOption.MAX_CONNECTIONS_PER_ADDRESS) {
            setMaxConnectionsPerAddress((Integer) value);
        } else if (option == RdmaChannelOption.TCP_FALLBACK) {
            setTcpFallback((Boolean) value);
        } else {
            return super.setOption(option, value);
        }
        return true;
    }

    @Override
    public int getBacklog() {
        return backlog;
    }

    @Override
    public RdmaServerSocketChannelConfig setBacklog(int backlog) {
        this.backlog = checkPositiveOrZero(backlog, "backlog");
        return this;
    }

    /** Returns the registered memory the connections from one source address may hold. */
    public long getMaxRegisteredMemoryPerAddress() {
        return maxRegisteredMemoryPerAddress;
    }

    /**
     * Sets the registered memory the connections from one source address may hold
     * ({@link RdmaChannelOption#MAX_REGISTERED_MEMORY_PER_ADDRESS}); read when a connection is accepted.
     */
    public RdmaServerSocketChannelConfig setMaxRegisteredMemoryPerAddress(long bytes) {
        this.maxRegisteredMemoryPerAddress = checkPositive(bytes, "maxRegisteredMemoryPerAddress");
        return this;
    }

    /** Returns how many connections from one source address the server holds open at once. */
    public int getMaxConnectionsPerAddress() {
        return maxConnectionsPerAddress;
    }

    /**
     * Sets how many connections from one source address the server holds open at once
     * ({@link RdmaChannelOption#MAX_CONNECTIONS_PER_ADDRESS}); read when a connection is accepted.
     */
    public RdmaServerSocketChannelConfig setMaxConnectionsPerAddress(int connections) {
        this.maxConnectionsPerAddress = checkPositive(connections, "maxConnectionsPerAddress");
        return this;
    }

    /**
     * Returns {@code true} if the server also listens on TCP at its address and port and accepts TCP
     * clients into its pipeline ({@link RdmaChannelOption#TCP_FALLBACK}).
     */
    public boolean isTcpFallback() {
        return tcpFallback;
    }

    /** Sets whether the server also listens on TCP at its address and port ({@link RdmaChannelOption#TCP_FALLBACK}). */
    public RdmaServerSocketChannelConfig setTcpFallback(boolean tcpFallback) {
        this.tcpFallback = tcpFallback;
        return this;
    }

    @Override
    public boolean isReuseAddress() {
        return reuseAddress;
    }

    @Override
    public RdmaServerSocketChannelConfig setReuseAddress(boolean reuseAddress) {
        this.reuseAddress = reuseAddress;
        return this;
    }

    @Override
    public int getReceiveBufferSize() {
        return receiveBufferSize;
    }

    @Override
    public RdmaServerSocketChannelConfig setReceiveBufferSize(int receiveBufferSize) {
        this.receiveBufferSize = receiveBufferSize;
        return this;
    }

    @Override
    public RdmaServerSocketChannelConfig setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        return this;
    }

    @Override
    public RdmaServerSocketChannelConfig setConnectTimeoutMillis(int connectTimeoutMillis) {
        super.setConnectTimeoutMillis(connectTimeoutMillis);
        return this;
    }

    @Override
    @Deprecated
    public RdmaServerSocketChannelConfig setMaxMessagesPerRead(int maxMessagesPerRead) {
        super.setMaxMessagesPerRead(maxMessagesPerRead);
        return this;
    }

    @Override
    public RdmaServerSocketChannelConfig setWriteSpinCount(int writeSpinCount) {
        super.setWriteSpinCount(writeSpinCount);
        return this;
    }

    @Override
    public RdmaServerSocketChannelConfig setAllocator(ByteBufAllocator allocator) {
        super.setAllocator(allocator);
        return this;
    }

    @Override
    public RdmaServerSocketChannelConfig setRecvByteBufAllocator(RecvByteBufAllocator allocator) {
        super.setRecvByteBufAllocator(allocator);
        return this;
    }

    @Override
    public RdmaServerSocketChannelConfig setAutoRead(boolean autoRead) {
        super.setAutoRead(autoRead);
        return this;
    }

    @Override
    @Deprecated
    public RdmaServerSocketChannelConfig setWriteBufferHighWaterMark(int writeBufferHighWaterMark) {
        super.setWriteBufferHighWaterMark(writeBufferHighWaterMark);
        return this;
    }

    @Override
    @Deprecated
    public RdmaServerSocketChannelConfig setWriteBufferLowWaterMark(int writeBufferLowWaterMark) {
        super.setWriteBufferLowWaterMark(writeBufferLowWaterMark);
        return this;
    }

    @Override
    public RdmaServerSocketChannelConfig setWriteBufferWaterMark(WriteBufferWaterMark writeBufferWaterMark) {
        super.setWriteBufferWaterMark(writeBufferWaterMark);
        return this;
    }

    @Override
    public RdmaServerSocketChannelConfig setMessageSizeEstimator(MessageSizeEstimator estimator) {
        super.setMessageSizeEstimator(estimator);
        return this;
    }
}
