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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.channel.rdma.internal.WorkRequests;
import org.nettyrdma.channel.rdma.memory.ProtectionDomain;
import org.nettyrdma.channel.rdma.memory.RdmaDevice;
import org.nettyrdma.channel.rdma.memory.RegisteredBuffer;

/**
 * The shared receive queue ({@code ibv_srq}) of one event loop on one device, for the connections
 * whose receive slots have one size: every Send a peer of theirs makes lands in one of its slots.
 *
 * <p>Receive memory grows with what the connections were granted, not with their number. Each
 * connection {@linkplain #reserve reserves} the slots it credits to its peer (its share), and the
 * queue keeps at least that many slots (and a sixteenth more) posted or held by a connection: so a
 * peer that sends within its credits always finds a receive, whatever the other peers do within
 * theirs (docs/decisions.md#shared-receive-queue). Slots come in chunks of {@value #CHUNK_SLOTS}, each a
 * memory region with local write access only: a peer reaches them by Send, never by key. A
 * connection's own queue, the default (docs/decisions.md#receive-queue-per-connection), registers
 * one slot at a time and no spare, exactly the slots its peer's share reserves, which is what
 * admission counts. What a
 * burst grew beyond that goes as traffic gives the slots back ({@link SharedSlots}), and all of it
 * when the last queue pair on the queue is destroyed ({@link #queuePairDestroyed()}).
 *
 * <p>A completion names the queue and the slot in its {@code wr_id}, and the queue pair in its
 * {@code qp_num}; the queue knows which channel each attached queue pair belongs to. A slot taken
 * by a completion belongs to that connection until it {@linkplain #release releases} it, and to
 * the queue again if no connection claims it (a queue pair already detached).
 *
 * <p>Used on the loop's thread only.
 */
public final class SharedReceiveQueue implements AutoCloseable {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(SharedReceiveQueue.class);

    /** The slots registered at a time: one memory region each. */
    static final int CHUNK_SLOTS = 32;
    /**
     * The slots of one memory region in a connection's own queue: a peer's first share, so that an
     * idle connection's receives are one registration, made at its accept and undone at its close.
     */
    static final int OWN_CHUNK_SLOTS = 4;
    /** A shared receive's {@code wr_id} carries this bit (the sign bit), with the queue's id and the slot. */
    static final long SHARED_TAG = 1L << 63;
    /** Every receive's {@code wr_id} carries this bit; sends carry sequence numbers below it. */
    public static final long RECEIVE_TAG = 1L << 62;
    private static final long SLOT_MASK = (1L << WorkRequests.OWNER_SHIFT) - 1;
    private static final int CHAIN = 32;
    /**
     * A queue that no queue pair uses any more is destroyed if it registered more slots than this, four
     * chunks: a server that a burst left idle keeps none of the burst, and one whose few connections
     * come and go does not create a queue for each.
     */
    static final int KEPT_WHEN_UNUSED = 4 * CHUNK_SLOTS;
    private static final AtomicLong LIVE_BYTES = new AtomicLong();
    private static final AtomicInteger LIVE_REGIONS = new AtomicInteger();
    private static final AtomicLong LIMIT_EVENTS = new AtomicLong();

    private final RdmaDevice device;
    /** The protection domain of its own of a connection exposing memory, held until closed; {@code null} for the device's. */
    private final ProtectionDomain ownPd;
    /** The queue is one connection's: its queue pair alone takes receives from it, and it goes with that queue pair. */
    private final boolean own;
    private final long pd;
    private final int slotSize;
    /**
     * The slots of one memory region: {@link #CHUNK_SLOTS}, or in a connection's own queue
     * {@link #OWN_CHUNK_SLOTS} (its capacity, if that is less).
     */
    private final int chunkSlots;
    private final int id;
    private final int capacity;
    private final long srq;
    private final WorkRequests chain = WorkRequests.receives(CHAIN);
    /** The chunks by index, {@code null} where one was deregistered. */
    private final List<RegisteredBuffer> chunks = new ArrayList<>();
    private final List<ByteBuf> views = new ArrayList<>();
    private final SharedSlots book;
    /** qp_num to the registration id of the channel whose queue pair it is. */
    private final IntObjectMap<Integer> owners = new IntObjectHashMap<>();
    private final Consumer<SharedReceiveQueue> unused;
    /**
     * Where the receives of a loop's queue complete, with an entry for every receive the queue can
     * have posted; {@code null} for a connection's own queue (docs/decisions.md#completion-queue-bound).
     */
    private int queuePairs;
    /** The {@code srq_limit} armed on the device, 0 while none is (the event disarms it). */
    private int armedLimit;
    private Executor loopExecutor;
    private boolean closed;

    /**
     * Creates the queue with room for {@code capacity} receives (at most the device's), whose
     * completions carry {@code id}, for one connection alone if {@code own}, in the device's shared
     * protection domain, or in {@code ownPd}, a connection's, if not {@code null}; {@code unused} is
     * told when the queue should be destroyed, no queue pair and no connection using it, and closes
     * it. A queue pair's receives complete into its connection's completion queue, with its sends.
     */
    SharedReceiveQueue(RdmaDevice device, boolean own, ProtectionDomain ownPd, int slotSize, int id, int capacity,
                       Consumer<SharedReceiveQueue> unused) throws IOException {
        if (device.maxSrqWr() <= 0) {
            throw new IOException(device + " has no shared receive queues, which the transport needs");
        }
        this.device = device;
        this.own = own;
        this.ownPd = ownPd;
        this.pd = ownPd != null ? ownPd.handle() : device.pd();
        this.slotSize = slotSize;
        this.id = id;
        this.capacity = own ? Math.min(capacity, device.maxSrqWr()) : capacityOn(device, capacity);
        // A region may reach past an own queue's capacity; its slots there are never posted.
        this.chunkSlots = own ? ownRegionSlots(this.capacity) : CHUNK_SLOTS;
        this.unused = unused;
        book = new SharedSlots(new Chunks(), chunkSlots, this.capacity, !own);
        chain.claim(id);
        try {
            srq = RdmaNative.createSrq(pd, this.capacity);
        } catch (IOException e) {
            chain.close();
            throw e;
        }
        if (ownPd != null) {
            ownPd.retain();
        }
    }

    /** Returns the bytes of the shared receive slots registered now, process-wide. */
    public static long liveBytes() {
        return LIVE_BYTES.get();
    }

    /** Returns the memory regions of shared receive slots registered now, process-wide. */
    public static int liveRegions() {
        return LIVE_REGIONS.get();
    }

    /** Returns the limit events ({@code IBV_EVENT_SRQ_LIMIT_REACHED}) handled so far, process-wide. */
    public static long limitEvents() {
        return LIMIT_EVENTS.get();
    }

    /**
     * Returns the receives a queue asked for {@code capacity} holds on {@code device}: whole chunks,
     * within what the device allows a receive queue and a completion queue.
     */
    static int capacityOn(RdmaDevice device, int capacity) {
        return Math.min(capacity, Math.min(device.maxSrqWr(), device.maxCqe())) / CHUNK_SLOTS * CHUNK_SLOTS;
    }

    /**
     * Returns the receives a connection's own queue holds for a peer credited at most {@code slots}:
     * them, since a queue of one connection keeps no margin. All of them complete into the
     * connection's completion queue, which reserves as many (docs/decisions.md#completion-queue-bound).
     */
    public static int ownCapacity(int slots) {
        return slots;
    }

    /** Returns the slots of one memory region of a connection's own queue for a peer credited at most {@code slots}. */
    public static int ownRegionSlots(int slots) {
        return Math.min(OWN_CHUNK_SLOTS, ownCapacity(slots));
    }

    /** Returns {@code true} if {@code wrId} is a shared receive's. */
    static boolean isShared(long wrId) {
        return wrId < 0;
    }

    /** Returns the slot a shared receive's {@code wr_id} names. */
    public static int slotOf(long wrId) {
        return (int) (wrId & SLOT_MASK);
    }

    /** Returns the {@code ibv_srq*}, for the queue pairs made on it. */
    public long srq() {
        return srq;
    }

    /** Returns the device. */
    public RdmaDevice device() {
        return device;
    }

    /** Returns the {@code ibv_pd*} of the queue, its slots and the queue pairs made on it. */
    public long pd() {
        return pd;
    }

    /** Returns {@code true} if this is one connection's queue, in that connection's protection domain. */
    public boolean isOwn() {
        return own;
    }

    /** Returns the size of each slot. */
    public int slotSize() {
        return slotSize;
    }

    /** Returns the slots the connections reserved. */
    public int reserved() {
        return book.reserved();
    }

    /** Returns the receives posted now. */
    public int posted() {
        return book.posted();
    }

    /** Returns the slots completions took that no connection gave back yet: messages waiting to be read. */
    public int held() {
        return book.held();
    }

    /** Returns the receives the queue keeps posted or held: what is reserved, and its margin. */
    public int target() {
        return book.target();
    }

    /** Returns the registered bytes of the slots. */
    public long registeredBytes() {
        return (long) book.registered() * slotSize;
    }

    /**
     * Returns {@code true} if {@code slots} more can be reserved without passing the queue's capacity;
     * never once the queue's completion queue failed.
     */
    public boolean hasRoom(int slots) {
        return book.hasRoom(slots);
    }

    /** Returns the bytes {@link #reserve} of {@code slots} would register now: the chunks it would add. */
    public long registrationNeeded(int slots) {
        return (long) book.slotsToRegister(slots) * slotSize;
    }

    /**
     * Reserves {@code slots} for a connection's peer, posting parked slots or registering more first
     * if the queue has fewer posted and held than the connections reserved: once this returns, they
     * are posted. A sixteenth more than reserved is kept: a peer that sends beyond its credit takes
     * receives that others' credits stand for until its connection is closed, and the spare ones
     * absorb that.
     *
     * @throws IOException if the queue is full, or the registered memory limit refuses the memory
     */
    public void reserve(int slots) throws IOException {
        if (!hasRoom(slots)) {
            throw new IOException("a shared receive queue of " + device + " holds at most " + capacity
                    + " receives, and " + book.reserved() + " are reserved");
        }
        book.reserve(slots);
        post();
        armLimit();
    }

    /** Gives back {@code slots} reserved: a connection shrank its share, or closed. */
    public void unreserve(int slots) {
        book.unreserve(slots);
        destroyIfUnused();
    }

    /** Counts a queue pair made on this queue; {@link #queuePairDestroyed()} counts it gone. */
    public void queuePairCreated() {
        queuePairs++;
    }

    /**
     * Counts a queue pair on this queue destroyed: once none is left, and no connection reserves or
     * holds a slot, a queue grown beyond {@link #KEPT_WHEN_UNUSED} is destroyed, since nothing would
     * ever consume the receives posted to it.
     */
    public void queuePairDestroyed() {
        queuePairs--;
        destroyIfUnused();
    }

    /**
     * A connection that made no queue pair on this queue gives it up: a connection's own queue is
     * destroyed, a shared one only as {@link #queuePairDestroyed()} would.
     */
    public void releaseIfUnused() {
        destroyIfUnused();
    }

    private void destroyIfUnused() {
        // A connection's own queue goes with its queue pair, whatever it holds.
        if (queuePairs == 0 && !closed && book.reserved() == 0 && book.held() == 0
                && (own || book.registered() > KEPT_WHEN_UNUSED)) {
            unused.accept(this);
        }
    }

    /** Makes the completions of queue pair {@code qpNum} reach the channel registered as {@code owner}. */
    public void attach(int qpNum, int owner) {
        owners.put(qpNum, Integer.valueOf(owner));
    }

    /** Forgets queue pair {@code qpNum}: a slot its completion takes from now on is released at once. */
    public void detach(int qpNum) {
        owners.remove(qpNum);
    }

    /** Returns the registration id of the channel of queue pair {@code qpNum}, or 0 if none is attached. */
    int ownerOf(int qpNum) {
        Integer owner = owners.get(qpNum);
        return owner != null ? owner : 0;
    }

    /** Counts a posted receive that a completion took, whoever it goes to. */
    void taken() {
        book.taken();
    }

    /** Returns the memory of the chunk that holds {@code slot}; the slot starts at {@link #offsetOf}. */
    public ByteBuf viewOf(int slot) {
        return views.get(slot / chunkSlots);
    }

    /** Returns where {@code slot} starts in {@link #viewOf}. */
    public int offsetOf(int slot) {
        return (slot % chunkSlots) * slotSize;
    }

    /**
     * Gives a slot taken by a completion back to the queue: it is posted again with the next
     * {@link #post()}, or parked if the queue holds more than the connections reserved.
     */
    public void release(int slot) {
        if (closed) {
            return;
        }
        book.release(slot);
        if (queuePairs == 0) {
            destroyIfUnused();
        }
    }

    /** Keeps a slot whose receive was flushed out of the queue: registered, never posted again. */
    void setAside(int slot) {
        if (!closed) {
            book.setAside(slot);
        }
    }

    /**
     * Tells the queue, on {@code loop}, of its device's events for it: its limit event refills it
     * ({@link #limitReached()}), its error is logged. Call once, after it is made.
     */
    void watchEvents(Executor loop) {
        loopExecutor = loop;
        device.asyncEvents().watch(srq, type -> {
            try {
                loop.execute(() -> asyncEvent(type));
            } catch (RejectedExecutionException e) {
                // The loop is stopping: the queue goes with it.
            }
        });
    }

    private void asyncEvent(int type) {
        if (closed) {
            return;
        }
        if (type == RdmaNative.EVENT_SRQ_LIMIT_REACHED) {
            limitReached();
        } else {
            logger.warn("a shared receive queue of the RDMA device {} failed (async event {})", device.name(), type);
        }
    }

    /**
     * Arms the limit event at the low-water mark ({@link SharedSlots#lowWaterMark()}) if it is not
     * armed or the mark doubled since: a system call per doubling, not per reservation.
     */
    private void armLimit() {
        int mark = book.lowWaterMark();
        if (closed || loopExecutor == null || armedLimit != 0 && mark < 2 * armedLimit) {
            return;
        }
        try {
            RdmaNative.armSrqLimit(srq, mark);
            armedLimit = mark;
        } catch (IOException e) {
            // The queue works without the event; only the early refill is lost.
            logger.debug("arming the limit event of a shared receive queue of {} failed", device, e);
        }
    }

    /**
     * Fewer receives are left in the device's queue than the low-water mark: a peer sends beyond
     * its credit (or completions wait to be polled). The parked slots are posted, within the
     * queue's capacity, and the event is armed again.
     */
    void limitReached() {
        LIMIT_EVENTS.incrementAndGet();
        armedLimit = 0;
        book.postParked();
        try {
            post();
        } catch (IOException e) {
            logger.warn("posting to the shared receive queue of {} failed", device, e);
        }
        armLimit();
    }

    /** Posts the slots released since the last post. */
    public void post() throws IOException {
        if (!closed) {
            chain.postShared(srq);
        }
    }

    private static void deregister(RegisteredBuffer chunk) {
        chunk.close();
        LIVE_BYTES.addAndGet(-chunk.size());
        LIVE_REGIONS.decrementAndGet();
    }

    /** What the book of slots asks for: chunks of registered memory, and receives posted into them. */
    private final class Chunks implements SharedSlots.Chunks {
        @Override
        public void register(int index) throws IOException {
            RegisteredBuffer chunk = new RegisteredBuffer(pd, chunkSlots * slotSize,
                    RegisteredBuffer.LOCAL_WRITE, !own ? "the shared receive slots of an event loop"
                    : ownPd != null ? "the receive slots of a connection exposing memory"
                    : "the receive slots of a connection");
            LIVE_BYTES.addAndGet(chunk.size());
            LIVE_REGIONS.incrementAndGet();
            ByteBuf view = Unpooled.wrappedBuffer(chunk.buffer());
            if (index == chunks.size()) {
                chunks.add(chunk);
                views.add(view);
            } else {
                chunks.set(index, chunk);
                views.set(index, view);
            }
        }

        @Override
        public void deregister(int index) {
            SharedReceiveQueue.deregister(chunks.set(index, null));
            views.set(index, null);
        }

        @Override
        public void post(int slot) {
            if (chain.isFull()) {
                try {
                    SharedReceiveQueue.this.post();
                } catch (IOException e) {
                    // Only a broken device refuses a post; its connections fail with their own completions.
                    logger.warn("posting to the shared receive queue of {} failed", device, e);
                }
            }
            RegisteredBuffer chunk = chunks.get(slot / chunkSlots);
            chain.addReceive(SHARED_TAG | RECEIVE_TAG | slot, chunk.address() + offsetOf(slot), slotSize,
                    chunk.lkey());
        }
    }

    /**
     * Destroys the queue and deregisters its slots: after the queue pairs on it are destroyed, so no
     * device writes into them any more.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        device.asyncEvents().unwatch(srq);
        try {
            RdmaNative.destroySrq(srq);
        } catch (IOException e) {
            logger.warn("destroying the shared receive queue of {} failed", device, e);
        } finally {
            for (RegisteredBuffer chunk : chunks) {
                if (chunk != null) {
                    deregister(chunk);
                }
            }
            chunks.clear();
            views.clear();
            chain.close();
            if (ownPd != null) {
                ownPd.release();
            }
        }
    }
}
