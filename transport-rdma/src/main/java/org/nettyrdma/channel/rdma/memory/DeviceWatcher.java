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
package org.nettyrdma.channel.rdma.memory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;

import com.ibm.disni.verbs.impl.NativeDispatcher;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.internal.DisniNative;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.channel.rdma.internal.SockAddr;
import org.nettyrdma.channel.rdma.internal.CmEvent;

/**
 * Hears of a device's removal when nothing else would: one sentinel {@code rdma_cm_id} per open
 * device, bound to one of its addresses, on an event channel of its own, read by one daemon thread.
 *
 * <p>A process that holds a device's protection domain, the allocator's registrations or an idle
 * loop's completion queue, but no connection on it, gets no other sign: the context's async events
 * say nothing on rxe, and the kernel's removal waits for the process all the same. Only an id bound
 * to the device receives {@code DEVICE_REMOVAL}; the sentinel is that id. It also keeps librdmacm's
 * hold on the context until the process has let go of everything else ({@link RdmaDevice}).
 *
 * <p>The thread starts with the first device and blocks in {@code poll} on the channel (woken once a
 * second to look for devices that stopped being watched); it stops when no device is watched.
 * Thread-safe.
 */
final class DeviceWatcher implements Runnable {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(DeviceWatcher.class);
    private static final int POLL_MILLIS = 1000;

    private static DeviceWatcher current;

    private final NativeDispatcher verbs = DisniNative.dispatcher();
    private final long channel;
    /** Sentinel id to device; guarded by {@code DeviceWatcher.class}. */
    private final Map<Long, RdmaDevice> devices = new HashMap<>();

    private DeviceWatcher() throws IOException {
        channel = verbs._createEventChannel();
    }

    /**
     * Watches {@code device} through a sentinel id bound to {@code address}.
     *
     * @return the sentinel id, or 0 if none could be made (the device is then used without one)
     */
    static synchronized long watch(RdmaDevice device, InetAddress address) {
        long id = 0;
        try {
            if (current == null) {
                current = new DeviceWatcher();
                Thread thread = new Thread(current, "netty-rdma-device-watcher");
                thread.setDaemon(true);
                thread.start();
            }
            id = current.verbs._createId(current.channel, (short) 0x106);
            SockAddr memory = new SockAddr();
            current.verbs._bindAddr(id, memory.write(new InetSocketAddress(address, 0)));
            current.devices.put(id, device);
            return id;
        } catch (IOException | RuntimeException e) {
            if (id != 0) {
                current.verbs._destroyCmId(id);
            }
            logger.warn("cannot watch the RDMA device {} for its removal through {}", device.name(), address, e);
            return 0;
        }
    }

    /** Stops watching through {@code sentinel} and destroys it; 0 is ignored. */
    static synchronized void unwatch(long sentinel) {
        if (sentinel == 0 || current == null || current.devices.remove(sentinel) == null) {
            return;
        }
        int result = current.verbs._destroyCmId(sentinel);
        if (result != 0) {
            logger.debug("rdma_destroy_id of a sentinel returned {}", result);
        }
    }

    /** Returns the number of sentinel ids, process-wide: each is a CM id the kernel counts. */
    static synchronized int sentinels() {
        return current != null ? current.devices.size() : 0;
    }

    @Override
    public void run() {
        ByteBuffer out = ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder());
        long listenOut = RdmaNative.directBufferAddress(out);
        long idOut = listenOut + 8;
        for (;;) {
            synchronized (DeviceWatcher.class) {
                if (devices.isEmpty()) {
                    // The last device was removed or released: the channel and thread go too.
                    current = null;
                    verbs._destroyEventChannel(channel);
                    return;
                }
            }
            int type;
            try {
                type = verbs._getCmEvent(channel, listenOut, idOut, POLL_MILLIS);
            } catch (RuntimeException e) {
                logger.warn("reading the sentinels' RDMA CM events failed", e);
                continue;
            }
            if (type == CmEvent.DEVICE_REMOVAL) {
                RdmaDevice device;
                synchronized (DeviceWatcher.class) {
                    device = devices.get(out.getLong(8));
                }
                if (device != null) {
                    device.remove();
                }
            }
        }
    }
}
