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
package org.nettyrdma.channel.rdma.loop;

import java.io.IOException;

import io.netty.channel.IoEvent;
import io.netty.channel.IoHandler;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.unix.FileDescriptor;

/**
 * Registers the loop's own fds (a completion channel, the CM event channel) with the epoll handler
 * the RDMA handler wraps, for reading.
 */
final class EpollRegistrations {

    private EpollRegistrations() {
    }

    /**
     * Registers {@code handle}'s fd for {@code EPOLLIN}. The epoll handler never closes the handle:
     * its owner does, after cancelling the registration.
     */
    static IoRegistration register(IoHandler epoll, EpollIoHandle handle) throws IOException {
        try {
            IoRegistration registration = epoll.register(new Watched(handle));
            registration.submit(EpollIoOps.EPOLLIN);
            return registration;
        } catch (Exception e) {
            throw e instanceof IOException ? (IOException) e : new IOException("registering with epoll failed", e);
        }
    }

    /**
     * The handle as epoll sees it. Epoll closes the handles it watches when the loop prepares to
     * stop, before the loop's channels have torn down their queue pairs; a CQ freed then answers
     * EBUSY and leaks. So epoll gets this view, whose close does nothing, and the owner frees the
     * object itself once the queue pairs are gone ({@link RdmaLoop#close()}).
     */
    private static final class Watched implements EpollIoHandle {
        private final EpollIoHandle target;

        Watched(EpollIoHandle target) {
            this.target = target;
        }

        @Override
        public FileDescriptor fd() {
            return target.fd();
        }

        @Override
        public void handle(IoRegistration registration, IoEvent ioEvent) {
            target.handle(registration, ioEvent);
        }

        @Override
        public void close() {
            // Freed by its owner.
        }
    }
}
