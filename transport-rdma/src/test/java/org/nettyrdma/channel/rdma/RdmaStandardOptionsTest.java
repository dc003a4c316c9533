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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultMessageSizeEstimator;
import io.netty.channel.MessageSizeEstimator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.junit.jupiter.api.Test;

/**
 * The standard options that frameworks set on every channel (docs/options.md): whatever Netty's NIO
 * channels take, the RDMA channels take too, without an exception (Netty's bootstrap would log one per
 * channel) and without refusing it (Netty's bootstrap logs "Unknown channel option" per channel), and
 * report the value back; where RDMA changes a value, the change is the documented one.
 */
class RdmaStandardOptionsTest {

    private static final int BUFFER = 256 * 1024;

    @Test
    void aConnectionTakesEveryOptionANioSocketTakes() throws Exception {
        NioSocketChannel nio = new NioSocketChannel();
        try {
            List<ChannelOption<?>> taken = takenByBoth(nio.config(), new RdmaSocketChannel().config());
            assertTrue(taken.contains(ChannelOption.IP_TOS) && taken.contains(ChannelOption.SO_LINGER), taken.toString());
        } finally {
            nio.unsafe().closeForcibly();
        }
    }

    @Test
    void aServerTakesEveryOptionANioServerTakes() throws Exception {
        NioServerSocketChannel nio = new NioServerSocketChannel();
        try {
            List<ChannelOption<?>> taken = takenByBoth(nio.config(), new RdmaServerSocketChannel().config());
            assertTrue(taken.contains(ChannelOption.SO_BACKLOG) && taken.contains(ChannelOption.SO_RCVBUF),
                    taken.toString());
        } finally {
            nio.unsafe().closeForcibly();
        }
    }

    @Test
    void valuesRdmaChangesAreTheDocumentedOnes() {
        RdmaSocketChannelConfig config = new RdmaSocketChannel().config();
        config.setOption(ChannelOption.TCP_NODELAY, false);
        assertEquals(Boolean.TRUE, config.getOption(ChannelOption.TCP_NODELAY), "there is no Nagle to turn on");
        config.setOption(ChannelOption.SO_RCVBUF, 1024);
        config.setOption(ChannelOption.SO_SNDBUF, 1024);
        assertEquals(RdmaSocketChannelConfig.MIN_BUFFER_SIZE, config.getReceiveBufferSize(), "raised as a kernel does");
        assertEquals(RdmaSocketChannelConfig.MIN_BUFFER_SIZE, config.getSendBufferSize(), "raised as a kernel does");
    }

    @Test
    void ipTosIsATrafficClassOfEightBits() {
        RdmaSocketChannelConfig config = new RdmaSocketChannel().config();
        assertEquals(0, config.getTrafficClass(), "0: the system's default class");
        assertTrue(config.setOption(ChannelOption.IP_TOS, 0xb8));
        assertEquals(0xb8, config.getOption(ChannelOption.IP_TOS));
        assertEquals(0xb8, config.getOptions().get(ChannelOption.IP_TOS));
        // As java.net.Socket.setTrafficClass: a value that does not fit the field is refused.
        assertThrows(IllegalArgumentException.class, () -> config.setTrafficClass(256));
        assertThrows(IllegalArgumentException.class, () -> config.setTrafficClass(-1));
        assertEquals(0xb8, config.getTrafficClass());
    }

    /**
     * Sets every {@link ChannelOption} constant on both configs and returns those {@code nio} took;
     * asserts that {@code rdma} took each of them and reads it back as set.
     */
    private static List<ChannelOption<?>> takenByBoth(ChannelConfig nio, ChannelConfig rdma) throws Exception {
        List<ChannelOption<?>> taken = new ArrayList<>();
        for (Map.Entry<ChannelOption<Object>, Object> option : everyStandardOption().entrySet()) {
            if (!takes(nio, option.getKey(), option.getValue())) {
                continue;
            }
            taken.add(option.getKey());
            assertTrue(rdma.setOption(option.getKey(), option.getValue()), option.getKey() + " refused");
            // As text: a water mark is a new object each time it is read.
            assertEquals(String.valueOf(option.getValue()), String.valueOf(rdma.getOption(option.getKey())),
                    option.getKey() + " read back");
        }
        return taken;
    }

    private static boolean takes(ChannelConfig config, ChannelOption<Object> option, Object value) {
        try {
            return config.setOption(option, value);
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Every public {@link ChannelOption} constant with a value of its type that a socket would take. */
    @SuppressWarnings("unchecked")
    private static Map<ChannelOption<Object>, Object> everyStandardOption() throws IllegalAccessException {
        Map<ChannelOption<Object>, Object> values = new LinkedHashMap<>();
        for (Field field : ChannelOption.class.getFields()) {
            if (!Modifier.isStatic(field.getModifiers()) || field.getType() != ChannelOption.class) {
                continue;
            }
            ChannelOption<Object> option = (ChannelOption<Object>) field.get(null);
            Type type = ((ParameterizedType) field.getGenericType()).getActualTypeArguments()[0];
            Object value = sample(option, type);
            if (value != null) {
                values.put(option, value);
            }
        }
        return values;
    }

    /** A value of {@code type} for {@code option}; {@code null} for the datagram channels' addresses. */
    @SuppressWarnings("deprecation")
    private static Object sample(ChannelOption<?> option, Type type) {
        if (option == ChannelOption.IP_TOS) {
            return 0x28;
        }
        if (option == ChannelOption.SO_SNDBUF || option == ChannelOption.SO_RCVBUF
                || option == ChannelOption.WRITE_BUFFER_HIGH_WATER_MARK) {
            return BUFFER;
        }
        if (option == ChannelOption.WRITE_BUFFER_LOW_WATER_MARK) {
            return 4096;
        }
        if (option == ChannelOption.TCP_NODELAY) {
            // The one value RDMA keeps: nothing waits to be coalesced.
            return true;
        }
        if (type == Boolean.class) {
            return Boolean.TRUE;
        }
        if (type == Integer.class) {
            return 5;
        }
        if (type == ByteBufAllocator.class) {
            return UnpooledByteBufAllocator.DEFAULT;
        }
        if (type == RecvByteBufAllocator.class) {
            return new AdaptiveRecvByteBufAllocator();
        }
        if (type == MessageSizeEstimator.class) {
            return DefaultMessageSizeEstimator.DEFAULT;
        }
        if (type == WriteBufferWaterMark.class) {
            return new WriteBufferWaterMark(8192, 16384);
        }
        return null;
    }
}
