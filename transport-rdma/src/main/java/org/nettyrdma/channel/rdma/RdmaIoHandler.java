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

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoOps;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.util.concurrent.ThreadAwareExecutor;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.internal.RdmaIoHandle;
import org.nettyrdma.channel.rdma.internal.RdmaLoop;

/**
 * The {@link IoHandler} of an event loop that carries RDMA channels:
 * {@code new MultiThreadIoEventLoopGroup(RdmaIoHandler.newFactory())}.
 *
 * <p>It is Netty's {@link EpollIoHandler} with RDMA added: the loop's RDMA CM event channel and its
 * completion queues are plain fds on the loop's epoll, so RDMA and epoll TCP channels can share one
 * loop. Threading: every method is called on the loop's thread, as for every {@link IoHandler}.
 */
public final class RdmaIoHandler implements IoHandler {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RdmaIoHandler.class);

    private final IoHandler epoll;
    private final RdmaLoop loop;
    private final Set<RdmaRegistration> rdmaRegistrations = new HashSet<>();

    private RdmaIoHandler(IoHandler epoll) {
        this.epoll = epoll;
        this.loop = new RdmaLoop(epoll);
    }

    /** Returns a factory of handlers for {@code MultiThreadIoEventLoopGroup}. */
    public static IoHandlerFactory newFactory() {
        Rdma.ensureAvailability();
        IoHandlerFactory epollFactory = EpollIoHandler.newFactory();
        return new IoHandlerFactory() {
            @Override
            public IoHandler newHandler(ThreadAwareExecutor executor) {
                return new RdmaIoHandler(epollFactory.newHandler(executor));
            }
        };
    }

    @Override
    public void initialize() {
        epoll.initialize();
    }

    @Override
    public int run(IoHandlerContext context) {
        return epoll.run(context);
    }

    @Override
    public void prepareToDestroy() {
        // Close the RDMA channels first: they free their QPs while the loop's CQs still exist.
        closeChannels();
        epoll.prepareToDestroy();
    }

    @Override
    public void destroy() {
        // A channel may have been registered (a connection accepted) by the tasks the loop ran after
        // its last prepareToDestroy(): close it too, or its QP keeps the loop's CQ from being freed.
        closeChannels();
        loop.close();
        epoll.destroy();
    }

    private void closeChannels() {
        List<RdmaRegistration> registrations = new ArrayList<>(rdmaRegistrations);
        for (RdmaRegistration registration : registrations) {
            try {
                registration.handle.close();
            } catch (Exception e) {
                logger.debug("closing {} failed", registration.handle, e);
            }
        }
    }

    @Override
    public IoRegistration register(IoHandle handle) throws Exception {
        if (handle instanceof RdmaIoHandle) {
            RdmaRegistration registration = new RdmaRegistration((RdmaIoHandle) handle);
            rdmaRegistrations.add(registration);
            handle.registered();
            return registration;
        }
        return epoll.register(handle);
    }

    @Override
    public void wakeup() {
        epoll.wakeup();
    }

    @Override
    public boolean isCompatible(Class<? extends IoHandle> handleType) {
        return RdmaIoHandle.class.isAssignableFrom(handleType) || epoll.isCompatible(handleType);
    }

    /** The registration of an RDMA channel: no fd of its own, the loop's shared RDMA objects attached. */
    private final class RdmaRegistration implements IoRegistration {
        final RdmaIoHandle handle;
        private boolean valid = true;

        RdmaRegistration(RdmaIoHandle handle) {
            this.handle = handle;
        }

        @SuppressWarnings("unchecked")
        @Override
        public <T> T attachment() {
            return (T) loop;
        }

        @Override
        public long submit(IoOps ops) {
            // Nothing to watch per channel: its events arrive through the loop's CQ and CM channel.
            return 0;
        }

        @Override
        public boolean isValid() {
            return valid;
        }

        @Override
        public boolean cancel() {
            if (!valid) {
                return false;
            }
            valid = false;
            rdmaRegistrations.remove(this);
            handle.unregistered();
            return true;
        }
    }
}
