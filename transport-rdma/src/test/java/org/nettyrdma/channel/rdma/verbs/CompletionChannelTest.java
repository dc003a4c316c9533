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
package org.nettyrdma.channel.rdma.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.ibm.disni.verbs.IbvWC;
import io.netty.channel.IoEvent;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.unix.FileDescriptor;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.testkit.RdmaTestEnvironment;

/**
 * Completions announced through the completion channel's fd, watched by Netty's own epoll event loop
 * the way {@code RdmaIoHandler} will watch it: the fd becomes readable, the handle drains the channel,
 * acknowledges, re-arms and then polls the CQ until it is empty.
 */
class CompletionChannelTest {

    private static final int MESSAGES = 3;

    @BeforeEach
    void requireDevice() {
        RdmaTestEnvironment.assumeDevice();
    }

    @Test
    void completionsWakeAnEpollLoopThroughTheChannelFd() throws Exception {
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        try (ConnectedPair pair = ConnectedPair.connect(MESSAGES)) {
            VerbsEndpoint server = pair.server;
            int fd = RdmaNative.completionChannelFd(ConnectedPair.handle(server.completionChannel));
            CompletionChannelHandle handle = new CompletionChannelHandle(server, fd);
            // Arm before anything can complete: an unarmed CQ never signals its channel.
            server.cq.reqNotification(false).execute().free();
            IoEventLoop loop = (IoEventLoop) group.next();
            IoRegistration registration = loop.register(handle).get(10, TimeUnit.SECONDS);
            loop.submit(() -> registration.submit(EpollIoOps.EPOLLIN)).get(10, TimeUnit.SECONDS);

            byte[][] sent = new byte[MESSAGES][];
            for (int i = 0; i < MESSAGES; i++) {
                int offset = i * 4096;
                sent[i] = DataTransferTest.fill(pair.client.buffer, offset, 1000 + i, i);
                pair.client.postSend(i, offset, 1000 + i);
                pair.client.awaitSuccess(i);
                IbvWC wc = handle.completions.poll(20, TimeUnit.SECONDS);
                assertNotNull(wc, "no completion reached the event loop within 20 s for message " + i);
                assertEquals(WcStatus.SUCCESS.ordinal(), wc.getStatus());
                assertEquals(2000 + i, wc.getWr_id());
                assertEquals(1000 + i, wc.getByte_len());
                assertArrayEquals(sent[i], DataTransferTest.read(server.buffer, ConnectedPair.receiveSlot(i),
                        1000 + i));
            }
            assertTrue(handle.wakeups.get() >= 1, "the loop was woken by the fd");
            assertEquals(0, handle.failures.get(), "errors in the handle");

            loop.submit(registration::cancel).get(10, TimeUnit.SECONDS);
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    /** The completion channel as an epoll handle; runs on the event loop only. */
    private static final class CompletionChannelHandle implements EpollIoHandle {
        final BlockingQueue<IbvWC> completions = new LinkedBlockingQueue<>();
        final AtomicInteger wakeups = new AtomicInteger();
        final AtomicInteger failures = new AtomicInteger();
        private final VerbsEndpoint endpoint;
        private final FileDescriptor fd;

        CompletionChannelHandle(VerbsEndpoint endpoint, int fd) {
            this.endpoint = endpoint;
            // Owned by the completion channel: this wrapper is never closed.
            this.fd = new FileDescriptor(fd);
        }

        @Override
        public FileDescriptor fd() {
            return fd;
        }

        @Override
        public void handle(IoRegistration registration, IoEvent ioEvent) {
            wakeups.incrementAndGet();
            try {
                // Level-triggered: take every pending event or epoll reports the fd again at once.
                int events = 0;
                while (endpoint.completionChannel.getCqEvent(endpoint.cq, 0)) {
                    events++;
                }
                if (events > 0) {
                    endpoint.cq.ackEvents(events);
                }
                // Re-arm first, then poll: a completion landing between the last poll and the re-arm
                // would otherwise raise no event and sit in the CQ unseen.
                endpoint.cq.reqNotification(false).execute().free();
                for (List<IbvWC> batch = endpoint.pollOnce(); !batch.isEmpty(); batch = endpoint.pollOnce()) {
                    completions.addAll(batch);
                }
            } catch (Exception e) {
                failures.incrementAndGet();
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void close() {
            // Nothing to release: the channel and its fd belong to the endpoint.
        }
    }
}
