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

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a server channel lets its peers hold: how many accepted connections are still being set up
 * (accepted, no {@code HELLO} yet), which {@code SO_BACKLOG} bounds with the requests waiting to be
 * accepted, and how much registered memory the connections from each source address hold, which
 * {@link RdmaChannelOption#MAX_REGISTERED_MEMORY_PER_ADDRESS} bounds (docs/decisions.md#admission).
 * Each accepted channel holds a {@link Ticket} from its acceptance to its close. A backlog full of
 * connections that wait for their {@code HELLO} makes room for a new one by closing the oldest
 * ({@link #evictOldest()}): peers that connect and never speak, as fast as they can, cannot keep a
 * well-behaved client out, which says {@code HELLO} at once.
 *
 * <p>Thread-safe: the server's loop admits, the children's loops hold and release.
 */
final class Admission {

    private final AtomicInteger settingUp = new AtomicInteger();
    /** The tickets of the connections being set up, oldest first. */
    private final ConcurrentLinkedQueue<Ticket> settingUpOrder = new ConcurrentLinkedQueue<>();
    private final ConcurrentHashMap<InetAddress, Long> heldByAddress = new ConcurrentHashMap<>();

    /** Returns the accepted connections that have not finished their set-up. */
    int settingUp() {
        return settingUp.get();
    }

    /** Returns the registered bytes the connections from {@code address} hold. */
    long held(InetAddress address) {
        return heldByAddress.getOrDefault(address, 0L);
    }

    /** Returns the number of addresses whose connections hold registered memory. */
    int addresses() {
        return heldByAddress.size();
    }

    /** Takes a ticket for a connection just accepted: it counts as being set up until {@link Ticket#setUpEnded()}. */
    Ticket enter() {
        settingUp.incrementAndGet();
        Ticket ticket = new Ticket();
        settingUpOrder.add(ticket);
        return ticket;
    }

    /**
     * Makes room in a full backlog: the oldest connection still waiting for its {@code HELLO}, of
     * those that could be asked ({@link Ticket#evictable}), stops counting as being set up, and is
     * asked to close.
     *
     * @return {@code false} if no connection could be asked
     */
    boolean evictOldest() {
        for (Ticket ticket : settingUpOrder) {
            if (ticket.evict()) {
                return true;
            }
        }
        return false;
    }

    /** Adds {@code delta} to what {@code address} holds; an address that holds nothing leaves the map. */
    private void add(InetAddress address, long delta) {
        heldByAddress.compute(address, (key, held) -> {
            long now = (held != null ? held : 0L) + delta;
            return now == 0 ? null : now;
        });
    }

    /**
     * Adds {@code bytes} to what {@code address} holds if that stays within {@code cap}.
     *
     * @return {@code false}, and nothing added, if it would not
     */
    private boolean tryAdd(InetAddress address, long bytes, long cap) {
        boolean[] added = new boolean[1];
        heldByAddress.compute(address, (key, held) -> {
            long current = held != null ? held : 0L;
            if (current + bytes > cap) {
                return held;
            }
            added[0] = true;
            long now = current + bytes;
            return now == 0 ? null : now;
        });
        return added[0];
    }

    /**
     * One accepted connection's share: whether it still counts as being set up, and the registered
     * bytes it holds for its source address. Used on the connection's event loop.
     */
    final class Ticket {
        private final AtomicBoolean settingUp = new AtomicBoolean(true);
        /** Closes the connection if it still waits for its {@code HELLO}; null until it may be asked. */
        private volatile Runnable eviction;
        private InetAddress address;
        private long held;

        /**
         * Admits the connection from {@code source} if what that address holds, with the
         * {@code atMost} bytes this connection can come to hold, stays within {@code cap}; those bytes
         * are held until {@link #hold} says what the connection holds.
         *
         * @return {@code false} if the address would pass its cap
         */
        boolean admit(InetAddress source, long atMost, long cap) {
            if (address != null) {
                throw new IllegalStateException("admitted already");
            }
            if (!tryAdd(source, atMost, cap)) {
                return false;
            }
            address = source;
            held = atMost;
            return true;
        }

        /**
         * Counts {@code bytes} more as held if the address stays within {@code cap} with them.
         *
         * @return {@code false} if it would not; then nothing changed
         */
        boolean holdMore(long bytes, long cap) {
            if (address == null) {
                return true;
            }
            if (!tryAdd(address, bytes, cap)) {
                return false;
            }
            held += bytes;
            return true;
        }

        /** Counts {@code bytes} less as held. */
        void holdLess(long bytes) {
            hold(held - bytes);
        }

        /** Says that the connection holds {@code bytes} now. */
        void hold(long bytes) {
            if (address != null && bytes != held) {
                add(address, bytes - held);
                held = bytes;
            }
        }

        /**
         * The connection waits for its peer's {@code HELLO} now: a full backlog may ask it to close
         * with {@code eviction}, which runs on the server's loop and must hand the close to the
         * connection's own.
         */
        void evictable(Runnable eviction) {
            this.eviction = eviction;
        }

        /** Asks the connection to close, if it may be asked and still counts as being set up. */
        private boolean evict() {
            Runnable action = eviction;
            if (action == null || !stopCounting()) {
                return false;
            }
            action.run();
            return true;
        }

        /** The connection is set up (its {@code HELLO} came) or closing: it no longer counts against the backlog. */
        void setUpEnded() {
            stopCounting();
        }

        private boolean stopCounting() {
            if (!settingUp.compareAndSet(true, false)) {
                return false;
            }
            Admission.this.settingUp.decrementAndGet();
            settingUpOrder.remove(this);
            eviction = null;
            return true;
        }

        /** The connection is closed: it holds nothing any more. */
        void release() {
            setUpEnded();
            hold(0);
            address = null;
        }
    }
}
