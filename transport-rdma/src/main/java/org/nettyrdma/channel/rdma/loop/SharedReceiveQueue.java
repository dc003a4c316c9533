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
import java.util.concurrent.Executor;
import java.util.function.Consumer;

import io.netty.buffer.ByteBuf;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.channel.rdma.internal.WorkCompletionStatus;
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
 * memory region ({@link SlotRegions}). A connection's own queue, the default
 * (docs/decisions.md#receive-queue-per-connection), registers regions of {@value #OWN_CHUNK_SLOTS}
 * slots (fewer if its peer is credited fewer) and keeps no spare: it posts exactly the slots its
 * peer's share reserves, and admission counts the regions they take. What a burst grew beyond the
 * target goes as traffic gives the slots back ({@link SharedSlots}), and all of it when the last queue
 * pair on the queue is destroyed ({@link #queuePairDestroyed()}).
 *
 * <p>On a device without shared receive queues (or under {@code -Dorg.nettyrdma.sharedReceiveQueue=never})
 * a connection's own queue is no {@code ibv_srq}: its slots are posted to its queue pair's receive
 * queue, with the same book, credits and bounds (docs/decisions.md#receive-queue-of-the-queue-pair).
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
    /**
     * A queue that no queue pair uses any more is destroyed if it registered more slots than this, four
     * chunks: a server that a burst left idle keeps none of the burst, and one whose few connections
     * come and go does not create a queue for each.
     */
    static final int KEPT_WHEN_UNUSED = 4 * CHUNK_SLOTS;

    private final RdmaDevice device;
    /** The protection domain of its own of a connection exposing memory, held until closed; {@code null} for the device's. */
    private final ProtectionDomain ownPd;
    /** The queue is one connection's: its queue pair alone takes receives from it, and it goes with that queue pair. */
    private final boolean own;
    /** The queue is one connection's queue pair's receive queue: no {@code ibv_srq}, {@link #srq} 0. */
    private final boolean onQueuePair;
    private final long pd;
    private final int slotSize;
    private final int capacity;
    private final long srq;
    /**
     * The regions of {@link #CHUNK_SLOTS} slots, or in a connection's own queue of
     * {@link #OWN_CHUNK_SLOTS} (its capacity, if that is less).
     */
    private final SlotRegions regions;
    private final SrqReceives receives;
    private final SharedSlots book;
    private final SrqLimit limit;
    /** qp_num to the registration id of the channel whose queue pair it is. */
    private final IntObjectMap<Integer> owners = new IntObjectHashMap<>();
    private final Consumer<SharedReceiveQueue> unused;
    /** The queue pairs made on the queue and not destroyed yet. */
    private int queuePairs;
    private boolean closed;

    /**
     * Creates the queue with room for {@code capacity} receives (at most the device's), whose
     * completions carry {@code id}, for one connection alone if {@code own}, on that connection's queue
     * pair if {@code onQueuePair} as well, in the device's shared protection domain, or in
     * {@code ownPd}, a connection's, if not {@code null}; {@code unused} is told when the queue should
     * be destroyed, no queue pair and no connection using it, and closes it. A queue pair's receives
     * complete into its connection's completion queue, with its sends.
     */
    SharedReceiveQueue(RdmaDevice device, boolean own, boolean onQueuePair, ProtectionDomain ownPd, int slotSize,
                       int id, int capacity, Consumer<SharedReceiveQueue> unused) throws IOException {
        if (onQueuePair && !own) {
            throw new IllegalArgumentException("only a connection's own queue may be its queue pair's");
        }
        if (!onQueuePair && device.maxSrqWr() <= 0) {
            // ReceiveQueuePolicy puts a connection on a device without them on its queue pair's queue.
            throw new IOException("the RDMA device " + device + " has no shared receive queues (max_srq "
                    + device.capabilities().maxSrq() + ')');
        }
        this.device = device;
        this.own = own;
        this.onQueuePair = onQueuePair;
        this.ownPd = ownPd;
        this.pd = ownPd != null ? ownPd.handle() : device.pd();
        this.slotSize = slotSize;
        this.capacity = onQueuePair ? Math.min(capacity, device.maxQpWr())
                : own ? Math.min(capacity, device.maxSrqWr()) : capacityOn(device, capacity);
        // A region may reach past an own queue's capacity; its slots there are never posted.
        int regionSlots = own ? ownRegionSlots(this.capacity) : CHUNK_SLOTS;
        this.unused = unused;
        regions = new SlotRegions(pd, regionSlots, slotSize, !own ? "the shared receive slots of an event loop"
                : ownPd != null ? "the receive slots of a connection exposing memory"
                : "the receive slots of a connection");
        srq = onQueuePair ? 0 : RdmaNative.createSrq(pd, this.capacity);
        SrqReceives posting = null;
        try {
            posting = new SrqReceives(device, srq, id, regions, slotSize);
            book = new SharedSlots(posting, regionSlots, this.capacity, !own);
        } catch (RuntimeException | Error e) {
            // A device whose bounds the book refuses: nothing holds the queue yet but this.
            if (posting != null) {
                posting.close();
            }
            destroySrq(e);
            throw e;
        }
        receives = posting;
        limit = new SrqLimit(device, srq);
        if (ownPd != null) {
            ownPd.retain();
        }
    }

    /** Returns the bytes of the shared receive slots registered now, process-wide. */
    public static long liveBytes() {
        return SlotRegions.liveBytes();
    }

    /** Returns the memory regions of shared receive slots registered now, process-wide. */
    public static int liveRegions() {
        return SlotRegions.liveRegions();
    }

    /** Returns the limit events ({@code IBV_EVENT_SRQ_LIMIT_REACHED}) handled so far, process-wide. */
    public static long limitEvents() {
        return SrqLimit.events();
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

    /** Returns the {@code ibv_srq*}, for the queue pairs made on it; 0 for a queue pair's own receive queue. */
    public long srq() {
        return srq;
    }

    /**
     * Returns the receives the queue pair made on this queue must hold in a receive queue of its own:
     * the queue's capacity where it is that queue, else 0 (its receives come from the {@code ibv_srq}).
     */
    public int queuePairReceives() {
        return onQueuePair ? capacity : 0;
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
        limit.arm(book.lowWaterMark());
    }

    /** Gives back {@code slots} reserved: a connection shrank its share, or closed. */
    public void unreserve(int slots) {
        book.unreserve(slots);
        destroyIfUnused();
    }

    /**
     * Counts {@code qp}, a queue pair made on this queue ({@code ibv_qp*}), which takes this queue's
     * receives into its own receive queue if the queue has no {@code ibv_srq};
     * {@link #queuePairDestroyed()} counts it gone.
     */
    public void queuePairCreated(long qp) {
        queuePairs++;
        if (onQueuePair) {
            receives.queuePairCreated(qp);
        }
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

    /**
     * Forgets queue pair {@code qpNum}, which is about to be destroyed: a slot its completion takes from
     * now on is released at once, and a queue that is its receive queue posts nothing any more.
     */
    public void detach(int qpNum) {
        owners.remove(qpNum);
        if (onQueuePair) {
            receives.stopPosting();
        }
    }

    /** Returns the registration id of the channel of queue pair {@code qpNum}, or 0 if none is attached. */
    int ownerOf(int qpNum) {
        Integer owner = owners.get(qpNum);
        return owner != null ? owner : 0;
    }

    /** Counts a posted receive that a completion of {@code status} took, whoever it goes to. */
    void taken(int status) {
        book.taken();
        if (onQueuePair && status != WorkCompletionStatus.SUCCESS) {
            // Only a queue pair in the error state fails a receive: one posted to it again would come
            // back flushed at once, and again, for as long as the queue pair lives.
            receives.stopPosting();
        }
    }

    /** Returns the memory of the chunk that holds {@code slot}; the slot starts at {@link #offsetOf}. */
    public ByteBuf viewOf(int slot) {
        return regions.viewOf(slot);
    }

    /**
     * Returns the registered region that holds {@code slot}, which starts at {@link #offsetOf}: a
     * buffer handed up over the slot holds the region's memory ({@link RegisteredBuffer#retainMemory()}),
     * which outlives the queue until the buffer is released.
     */
    public RegisteredBuffer regionOf(int slot) {
        return regions.regionOf(slot);
    }

    /** Returns where {@code slot} starts in {@link #viewOf}. */
    public int offsetOf(int slot) {
        return regions.offsetOf(slot);
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
        limit.watch(loop, this::limitReached);
    }

    /**
     * Fewer receives are left in the device's queue than the low-water mark: a peer sends beyond
     * its credit (or completions wait to be polled). The parked slots are posted, within the
     * queue's capacity, and the limit is armed again.
     */
    private void limitReached() {
        book.postParked();
        receives.postOrWarn();
        limit.arm(book.lowWaterMark());
    }

    /**
     * Destroys the {@code ibv_srq}, if the queue has one; a failure is added to {@code failure} if there
     * is one, else logged.
     */
    private void destroySrq(Throwable failure) {
        if (srq == 0) {
            return;
        }
        try {
            RdmaNative.destroySrq(srq);
        } catch (IOException e) {
            if (failure != null) {
                failure.addSuppressed(e);
            } else {
                logger.warn("destroying the shared receive queue of {} failed", device, e);
            }
        }
    }

    /** Posts the slots released since the last post. */
    public void post() throws IOException {
        receives.post();
    }

    /** Posts as {@link #post()} does, logging a failure: for a caller that could not act on it. */
    void postOrWarn() {
        receives.postOrWarn();
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
        limit.close();
        try {
            destroySrq(null);
        } finally {
            regions.close();
            receives.close();
            if (ownPd != null) {
                ownPd.release();
            }
        }
    }
}
