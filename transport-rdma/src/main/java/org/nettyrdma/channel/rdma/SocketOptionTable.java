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

import static io.netty.channel.ChannelOption.ALLOW_HALF_CLOSURE;
import static io.netty.channel.ChannelOption.IP_TOS;
import static io.netty.channel.ChannelOption.SO_KEEPALIVE;
import static io.netty.channel.ChannelOption.SO_LINGER;
import static io.netty.channel.ChannelOption.SO_RCVBUF;
import static io.netty.channel.ChannelOption.SO_REUSEADDR;
import static io.netty.channel.ChannelOption.SO_SNDBUF;
import static io.netty.channel.ChannelOption.TCP_NODELAY;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Function;

import io.netty.channel.ChannelOption;

/**
 * The options an {@link RdmaSocketChannelConfig} answers itself rather than leaving to Netty's
 * {@code DefaultChannelConfig}, each with the config's getter and setter. Setting an option goes through
 * the same public setter a user calls, so that its bounds, the raising of small buffer sizes and the
 * water marks that follow {@code SO_SNDBUF} apply alike whichever way a value is set. Options are looked
 * up by identity, as Netty compares them. Immutable once built, so any thread may read it.
 */
final class SocketOptionTable {

    private static final Map<ChannelOption<?>, Accessor<?>> ACCESSORS = new IdentityHashMap<>();

    static {
        add(SO_RCVBUF, RdmaSocketChannelConfig::getReceiveBufferSize, RdmaSocketChannelConfig::setReceiveBufferSize);
        add(SO_SNDBUF, RdmaSocketChannelConfig::getSendBufferSize, RdmaSocketChannelConfig::setSendBufferSize);
        add(TCP_NODELAY, RdmaSocketChannelConfig::isTcpNoDelay, RdmaSocketChannelConfig::setTcpNoDelay);
        add(SO_KEEPALIVE, RdmaSocketChannelConfig::isKeepAlive, RdmaSocketChannelConfig::setKeepAlive);
        add(SO_REUSEADDR, RdmaSocketChannelConfig::isReuseAddress, RdmaSocketChannelConfig::setReuseAddress);
        add(SO_LINGER, RdmaSocketChannelConfig::getSoLinger, RdmaSocketChannelConfig::setSoLinger);
        add(IP_TOS, RdmaSocketChannelConfig::getTrafficClass, RdmaSocketChannelConfig::setTrafficClass);
        add(ALLOW_HALF_CLOSURE, RdmaSocketChannelConfig::isAllowHalfClosure,
                RdmaSocketChannelConfig::setAllowHalfClosure);
        add(RdmaChannelOption.RECEIVE_SLOTS, RdmaSocketChannelConfig::getReceiveSlots,
                RdmaSocketChannelConfig::setReceiveSlots);
        add(RdmaChannelOption.SLOT_SIZE, RdmaSocketChannelConfig::getSlotSize, RdmaSocketChannelConfig::setSlotSize);
        add(RdmaChannelOption.SEND_QUEUE_DEPTH, RdmaSocketChannelConfig::getSendQueueDepth,
                RdmaSocketChannelConfig::setSendQueueDepth);
        add(RdmaChannelOption.MAX_INLINE_DATA, RdmaSocketChannelConfig::getMaxInlineData,
                RdmaSocketChannelConfig::setMaxInlineData);
        add(RdmaChannelOption.KEEPALIVE_IDLE_MILLIS, RdmaSocketChannelConfig::getKeepAliveIdleMillis,
                RdmaSocketChannelConfig::setKeepAliveIdleMillis);
        add(RdmaChannelOption.HELLO_TIMEOUT_MILLIS, RdmaSocketChannelConfig::getHelloTimeoutMillis,
                RdmaSocketChannelConfig::setHelloTimeoutMillis);
        add(RdmaChannelOption.CREDIT_TIMEOUT_MILLIS, RdmaSocketChannelConfig::getCreditTimeoutMillis,
                RdmaSocketChannelConfig::setCreditTimeoutMillis);
        add(RdmaChannelOption.RING_IDLE_MILLIS, RdmaSocketChannelConfig::getRingIdleMillis,
                RdmaSocketChannelConfig::setRingIdleMillis);
        add(RdmaChannelOption.RECEIVE_IN_PLACE, RdmaSocketChannelConfig::isReceiveInPlace,
                RdmaSocketChannelConfig::setReceiveInPlace);
        add(RdmaChannelOption.EXPOSE_MEMORY, RdmaSocketChannelConfig::isExposeMemory,
                RdmaSocketChannelConfig::setExposeMemory);
        add(RdmaChannelOption.SHARED_RECEIVE_QUEUE, RdmaSocketChannelConfig::isSharedReceiveQueue,
                RdmaSocketChannelConfig::setSharedReceiveQueue);
        add(RdmaChannelOption.RNR_RETRY_COUNT, RdmaSocketChannelConfig::getRnrRetryCount,
                RdmaSocketChannelConfig::setRnrRetryCount);
        add(RdmaChannelOption.TCP_FALLBACK, RdmaSocketChannelConfig::isTcpFallback,
                RdmaSocketChannelConfig::setTcpFallback);
    }

    private SocketOptionTable() {
    }

    /** Returns the options the config answers itself, for {@code getOptions()}. */
    static ChannelOption<?>[] options() {
        return ACCESSORS.keySet().toArray(new ChannelOption<?>[0]);
    }

    /** Returns {@code true} if the config answers {@code option} itself. */
    static boolean contains(ChannelOption<?> option) {
        return ACCESSORS.containsKey(option);
    }

    /** Returns the value {@code config} holds for {@code option}, one this table {@linkplain #contains contains}. */
    static <T> T get(RdmaSocketChannelConfig config, ChannelOption<T> option) {
        return accessor(option).getter().apply(config);
    }

    /** Sets {@code option}, an option this table {@linkplain #contains contains}, through {@code config}'s setter. */
    static <T> void set(RdmaSocketChannelConfig config, ChannelOption<T> option, T value) {
        accessor(option).setter().accept(config, value);
    }

    @SuppressWarnings("unchecked")
    private static <T> Accessor<T> accessor(ChannelOption<T> option) {
        return (Accessor<T>) ACCESSORS.get(option);
    }

    private static <T> void add(ChannelOption<T> option, Function<RdmaSocketChannelConfig, T> getter,
                                BiConsumer<RdmaSocketChannelConfig, T> setter) {
        ACCESSORS.put(option, new Accessor<>(getter, setter));
    }

    /** How the config reads and sets one option. */
    private record Accessor<T>(Function<RdmaSocketChannelConfig, T> getter,
                               BiConsumer<RdmaSocketChannelConfig, T> setter) {
    }
}
