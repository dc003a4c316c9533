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
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.internal.DisniNative;
import org.nettyrdma.channel.rdma.internal.RdmaNative;

/**
 * One RDMA device as the process sees it: librdmacm's {@code ibv_context}, the protection domain all
 * of this transport's memory and queue pairs on the device share, and the limits the transport sizes
 * itself by; and what happens when the device goes away.
 *
 * <p>librdmacm opens each device once per process, so the context is the key. The protection domain
 * lives as long as the device: memory registered by one connection's allocator may be sent on any
 * other connection on the same device.
 *
 * <p><b>Removal.</b> The kernel removes a device ({@code rdma link delete}, a driver unloaded) only
 * once every process let go of everything it holds on it. The first {@code DEVICE_REMOVAL} event of
 * any id on the device, or of the device's sentinel id ({@link DeviceWatcher}), calls {@link #remove()}:
 * the device leaves the table, so new connections find the device that may come back, and each event
 * loop that uses it ({@link #addUser}) is told, closes its channels and completion queues on it and
 * calls {@link #release}. When the last one has, the allocator's registrations and the protection
 * domain are freed and the context is given up (docs/architecture.md, "When a device goes away").
 * Thread-safe.
 */
public final class RdmaDevice {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RdmaDevice.class);
    private static final ConcurrentMap<Long, RdmaDevice> DEVICES = new ConcurrentHashMap<>();
    /**
     * The contexts of this process's devices until everything on them is freed ({@link #finish}):
     * {@link #DEVICES} forgets a device as soon as its removal starts. Guarded by {@code DEVICES}.
     */
    private static final Set<Long> HELD = new HashSet<>();
    /** The vendor id of Soft-RoCE ({@code RXE_VENDOR_ID} in the kernel's rxe_param.h). */
    static final int RXE_VENDOR_ID = 0xffffff;

    /** What uses a device and must let go of it when it is removed: an event loop. */
    public interface User {
        /**
         * The device is being removed: close everything on it and then call {@link #release}. Called on
         * any thread, at most once per registration.
         */
        void deviceRemoved(RdmaDevice device);
    }

    private final long context;
    private final long pd;
    private final String name;
    private final DeviceCapabilities capabilities;
    private final DeviceVerbs verbs;
    /** The id that hears of the device's removal even when no connection uses it; 0 if none. */
    private final long sentinel;
    private final AsyncEvents asyncEvents;
    private final Set<User> users = new LinkedHashSet<>();
    private boolean removed;
    private boolean finished;

    private RdmaDevice(long context, InetAddress address) throws IOException {
        this.context = context;
        this.name = RdmaNative.deviceName(context);
        ByteBuffer attr = ByteBuffer.allocateDirect(RdmaNative.DEVICE_ATTR_SIZE).order(ByteOrder.nativeOrder());
        RdmaNative.queryDevice(context, RdmaNative.directBufferAddress(attr));
        this.capabilities = DeviceCapabilities.read(name, attr);
        this.verbs = DeviceVerbs.decide(capabilities);
        // Once per device and process: what it reported decides what the transport posts there. At
        // DEBUG, as Netty logs what it found of the platform: an application's console stays its own.
        logger.debug("RDMA device {}; {}", capabilities, verbs);
        this.pd = DisniNative.dispatcher()._allocPd(context);
        this.sentinel = DeviceWatcher.watch(this, address);
        this.asyncEvents = AsyncEvents.start(this);
    }

    /**
     * Returns {@code true} if a type-2 memory window bound to a queue pair confines that queue pair's
     * peer on a device of this vendor with these capabilities: the device has such windows, and it is
     * not rxe, whose remote invalidation checks neither the queue pair nor the protection domain and
     * panics the kernel on a window invalidated twice (docs/rxe-remote-invalidation.md). rxe is told
     * by the vendor id it reports, which {@code rdma link add} cannot rename.
     */
    static boolean windowsConfinePeers(int vendorId, int capabilityFlags) {
        return (capabilityFlags & RdmaNative.DEVICE_CAP_MEM_WINDOW_TYPE_2B) != 0 && vendorId != RXE_VENDOR_ID;
    }

    /**
     * Returns the device of an {@code ibv_context*}, opening its protection domain on first use;
     * {@code address} is one of its IP addresses, for the sentinel that hears of its removal.
     */
    public static RdmaDevice of(long context, InetAddress address) throws IOException {
        RdmaDevice device = DEVICES.get(context);
        if (device != null) {
            return device;
        }
        synchronized (DEVICES) {
            device = DEVICES.get(context);
            if (device == null) {
                device = new RdmaDevice(context, address);
                DEVICES.put(context, device);
                HELD.add(context);
            }
            return device;
        }
    }

    /**
     * Adds a user that is told when the device is removed.
     *
     * @throws IOException if the device is being removed already
     */
    public synchronized void addUser(User user) throws IOException {
        if (removed) {
            throw new IOException("the RDMA device " + name + " was removed");
        }
        users.add(user);
    }

    /** Takes back {@link #addUser}: the user holds nothing on the device any more. */
    public void release(User user) {
        boolean finish;
        synchronized (this) {
            finish = users.remove(user) && removed && users.isEmpty() && !finished;
            finished |= finish;
        }
        if (finish) {
            finish();
        }
    }

    /** Returns {@code true} once the device is being removed. */
    synchronized boolean isRemoved() {
        return removed;
    }

    /** Starts the device's removal, once; from any thread. */
    public void remove() {
        List<User> toTell;
        boolean finish;
        synchronized (this) {
            if (removed) {
                return;
            }
            removed = true;
            toTell = new ArrayList<>(users);
            finish = users.isEmpty() && !finished;
            finished |= finish;
        }
        DEVICES.remove(context, this);
        logger.warn("the RDMA device {} is being removed: closing every channel on it", name);
        for (User user : toTell) {
            user.deviceRemoved(this);
        }
        if (finish) {
            finish();
        }
    }

    /** Frees what the process holds on the device beyond its loops, and gives the context up. */
    private void finish() {
        asyncEvents.stop();
        RegisteredSlab.deregisterAll(this);
        int result = DisniNative.dispatcher()._deallocPd(pd);
        if (result != 0) {
            logger.warn("freeing the protection domain of the removed device {} returned {}", name, result);
        }
        if (sentinel != 0) {
            try {
                // The sentinel still holds the context in librdmacm, so it is not freed under this call.
                RdmaNative.abandonContext(context);
            } catch (IOException e) {
                logger.warn("giving up the context of the removed device {} failed: its removal waits for "
                        + "this process to end", name, e);
            }
        } else {
            logger.warn("the removed device {} had no sentinel id: its removal may wait for this process to end",
                    name);
        }
        DeviceWatcher.unwatch(sentinel);
        synchronized (DEVICES) {
            HELD.remove(context);
        }
        logger.info("released everything on the removed RDMA device {}", name);
    }

    /**
     * Gives up {@code context}, whose device is being removed, for an {@code rdma_cm_id} that holds it
     * while this process has no device open on it: a listening id bound to the device's address of a
     * server that never had a connection there. librdmacm keeps the context open after such an id is
     * destroyed, and without a device of this process nothing else gives it up, so the kernel's removal
     * would wait for the process to end. Where a device of this process is open on the context, its own
     * removal gives the context up once everything on it is freed. Call it while the id still holds
     * the context; 0 is ignored.
     */
    public static void abandonUnheld(long context) {
        if (context == 0) {
            return;
        }
        synchronized (DEVICES) {
            if (HELD.contains(context)) {
                return;
            }
            try {
                RdmaNative.abandonContext(context);
            } catch (IOException e) {
                logger.warn("giving up the context of a removed RDMA device failed: its removal waits for this "
                        + "process to end", e);
            }
        }
    }

    /**
     * Returns the number of sentinel ids the process holds, one per open device: CM ids the kernel
     * counts that no connection owns.
     */
    public static int sentinelIds() {
        return DeviceWatcher.sentinels();
    }

    /** Returns the reader of the device's async events, where its queues watch for theirs. */
    public AsyncEvents asyncEvents() {
        return asyncEvents;
    }

    /** Returns the {@code ibv_context*}. */
    public long context() {
        return context;
    }

    /** Returns the {@code ibv_pd*} shared by this transport's objects on the device. */
    public long pd() {
        return pd;
    }

    /** Returns the device name, for example {@code rxe0}. */
    public String name() {
        return name;
    }

    /** Returns what the device reported when it was opened. */
    public DeviceCapabilities capabilities() {
        return capabilities;
    }

    /** Returns which verbs the transport posts on the device, decided when it was opened. */
    public DeviceVerbs verbs() {
        return verbs;
    }

    /** Returns the most work requests one queue of a QP may hold. */
    public int maxQpWr() {
        return capabilities.maxQpWr();
    }

    /** Returns the most entries a CQ may hold. */
    public int maxCqe() {
        return capabilities.maxCqe();
    }

    /** Returns the most receives one shared receive queue can hold; 0 if the device has none. */
    public int maxSrqWr() {
        return verbs.sharedReceiveQueues() ? capabilities.maxSrqWr() : 0;
    }

    /** Returns the most scatter/gather entries per work request. */
    int maxSge() {
        return capabilities.maxSge();
    }

    /** Returns the vendor id the device reports ({@code ibv_device_attr.vendor_id}). */
    public int vendorId() {
        return capabilities.vendorId();
    }

    /**
     * Returns {@code true} if a memory window bound to a connection's queue pair keeps that
     * connection's peer out of everything else on this device ({@link DeviceVerbs#windowsConfinePeers()}):
     * only then may a ring be opened to a peer through one.
     */
    public boolean windowsConfinePeers() {
        return verbs.windowsConfinePeers();
    }

    @Override
    public String toString() {
        return name;
    }
}
