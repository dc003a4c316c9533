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
package org.nettyrdma.reactor;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.internal.ObjectUtil;
import org.nettyrdma.channel.rdma.Rdma;
import org.nettyrdma.channel.rdma.RdmaIoHandler;
import org.nettyrdma.channel.rdma.RdmaIoHandlerConfig;
import reactor.core.publisher.Mono;
import reactor.netty.resources.LoopResources;

/**
 * Reactor Netty's {@link LoopResources} over RDMA: one group of RDMA event loops for servers and
 * clients, and the RDMA channel classes for the TCP channels Reactor makes on it.
 * <pre>{@code
 * LoopResources rdma = RdmaLoopResources.create("rdma");
 * HttpServer.create().runOn(rdma).host(rdmaInterfaceAddress).port(8080)...
 * HttpClient.create().runOn(rdma)...
 * }</pre>
 *
 * <p>{@code runOn(eventLoopGroup)} with an RDMA group alone is not enough: Reactor Netty's default
 * {@link #onChannel} picks the channel class by asking the group which handles it takes, and an RDMA
 * loop takes epoll's too, so it would get epoll's TCP channels and run over TCP. Here
 * {@link #onChannel} answers RDMA channels for {@code SocketChannel} and {@code ServerSocketChannel},
 * and epoll's channels for what RDMA does not carry: {@code DatagramChannel}, which the client's
 * default name resolver asks for on the same group, and the domain socket types.
 *
 * <p>The group is made by {@code create}, which fails at once, with the reason, where RDMA cannot be
 * used. The {@code useNative} arguments are ignored: there is no NIO fallback. Clients are colocated
 * ({@link LoopResources#colocate}): one started on a loop's thread stays on that loop, as with
 * Reactor Netty's own loop resources. Thread-safe.
 */
public final class RdmaLoopResources implements LoopResources {

    private final EventLoopGroup group;
    private final EventLoopGroup clientGroup;
    private final boolean daemon;
    private final AtomicBoolean disposed = new AtomicBoolean();

    private RdmaLoopResources(String prefix, int threads, boolean daemon, RdmaIoHandlerConfig loopConfig) {
        this.group = new MultiThreadIoEventLoopGroup(threads, new RdmaLoopThreads(prefix, daemon),
                RdmaIoHandler.newFactory(loopConfig));
        this.clientGroup = LoopResources.colocate(group);
        this.daemon = daemon;
    }

    /**
     * Returns loop resources of {@link LoopResources#DEFAULT_IO_WORKER_COUNT} RDMA event loops on
     * daemon threads named {@code prefix-rdma-N}, with the loops' default tunables.
     *
     * @throws IllegalStateException with {@code Rdma.unavailabilityCause()} as its cause when RDMA
     *         cannot be used here
     */
    public static RdmaLoopResources create(String prefix) {
        return create(prefix, DEFAULT_IO_WORKER_COUNT, true, new RdmaIoHandlerConfig());
    }

    /**
     * Returns loop resources of {@code threads} RDMA event loops named {@code prefix-rdma-N}, whose
     * tunables (polling, completion queue sizes) are those of {@code loopConfig}, copied now.
     *
     * @throws IllegalStateException with {@code Rdma.unavailabilityCause()} as its cause when RDMA
     *         cannot be used here
     */
    public static RdmaLoopResources create(String prefix, int threads, boolean daemon,
                                           RdmaIoHandlerConfig loopConfig) {
        ObjectUtil.checkNonEmpty(prefix, "prefix");
        ObjectUtil.checkPositive(threads, "threads");
        ObjectUtil.checkNotNull(loopConfig, "loopConfig");
        Throwable cause = Rdma.unavailabilityCause();
        if (cause != null) {
            throw unavailable(cause);
        }
        return new RdmaLoopResources(prefix, threads, daemon, loopConfig);
    }

    /** Returns the error {@code create} throws where RDMA cannot be used, {@code cause} as its cause. */
    static IllegalStateException unavailable(Throwable cause) {
        return new IllegalStateException("the RDMA transport is unavailable: " + cause.getMessage(), cause);
    }

    /** Returns the RDMA channel for {@code SocketChannel} and {@code ServerSocketChannel}, epoll's for the others. */
    @Override
    public <C extends Channel> C onChannel(Class<C> channelType, EventLoopGroup group) {
        return RdmaChannelTypes.newChannel(channelType);
    }

    @Override
    public <C extends Channel> Class<? extends C> onChannelClass(Class<C> channelType, EventLoopGroup group) {
        return RdmaChannelTypes.classFor(channelType);
    }

    /** Returns the RDMA group; {@code useNative} is ignored. */
    @Override
    public EventLoopGroup onServer(boolean useNative) {
        return group;
    }

    /** Returns the RDMA group, which also accepts; {@code useNative} is ignored. */
    @Override
    public EventLoopGroup onServerSelect(boolean useNative) {
        return group;
    }

    /** Returns the RDMA group, colocated; {@code useNative} is ignored. */
    @Override
    public EventLoopGroup onClient(boolean useNative) {
        return clientGroup;
    }

    @Override
    public boolean daemon() {
        return daemon;
    }

    @Override
    public boolean isDisposed() {
        return disposed.get();
    }

    @Override
    public Mono<Void> disposeLater(Duration quietPeriod, Duration timeout) {
        return Mono.defer(() -> {
            if (disposed.compareAndSet(false, true)) {
                group.shutdownGracefully(quietPeriod.toMillis(), timeout.toMillis(), TimeUnit.MILLISECONDS);
            }
            // Every subscriber, the first or a later one, completes when the loops have ended.
            return Mono.<Void>create(sink -> group.terminationFuture().addListener(done -> {
                if (done.isSuccess()) {
                    sink.success();
                } else {
                    sink.error(done.cause());
                }
            }));
        });
    }

    @Override
    public String toString() {
        return "RdmaLoopResources(" + group + ')';
    }
}
