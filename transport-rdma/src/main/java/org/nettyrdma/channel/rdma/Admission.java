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
 * accepted, and how many connections each source address has open and how much registered memory
 * they hold, which {@link RdmaChannelOption#MAX_CONNECTIONS_PER_ADDRESS} and
 * {@link RdmaChannelOption#MAX_REGISTERED_MEMORY_PER_ADDRESS} bound (docs/decisions.md#admission).
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
    private final ConcurrentHashMap<InetAddress, AddressShare> byAddress = new ConcurrentHashMap<>();

    /** Returns the accepted connections that have not finished their set-up. */
    int settingUp() {
        return settingUp.get();
    }

    /** Returns the registered bytes the connections from {@code address} hold. */
    long held(InetAddress address) {
        AddressShare share = byAddress.get(address);
        return share != null ? share.held : 0;
    }

    /** Returns the admitted connections from {@code address} that are not closed. */
    int connections(InetAddress address) {
        AddressShare share = byAddress.get(address);
        return share != null ? share.connections : 0;
    }

    /** Returns the number of addresses with an admitted connection that is not closed. */
    int addresses() {
        return byAddress.size();
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

    /**
     * Adds {@code connections} and {@code bytes} to what {@code address} has; an address with no
     * connection left leaves the map.
     */
    private void add(InetAddress address, int connections, long bytes) {
        byAddress.compute(address, (key, share) -> (share != null ? share : AddressShare.NONE).plus(connections, bytes));
    }

    /**
     * Adds {@code connections} and {@code bytes} to what {@code address} has if that stays within
     * {@code maxConnections} and {@code maxBytes}.
     *
     * @return {@link Verdict#ADMITTED}, or, with nothing added, the bound it would pass
     */
    private Verdict tryAdd(InetAddress address, int connections, long bytes, int maxConnections, long maxBytes) {
        Verdict[] verdict = {Verdict.ADMITTED};
        byAddress.compute(address, (key, share) -> {
            AddressShare current = share != null ? share : AddressShare.NONE;
            if (current.connections + connections > maxConnections) {
                verdict[0] = Verdict.TOO_MANY_CONNECTIONS;
                return share;
            }
            if (current.held + bytes > maxBytes) {
                verdict[0] = Verdict.TOO_MUCH_MEMORY;
                return share;
            }
            return current.plus(connections, bytes);
        });
        return verdict[0];
    }

    /** Whether a connection was admitted, and if not, which bound of its address it would pass. */
    enum Verdict {
        ADMITTED,
        /** {@link RdmaChannelOption#MAX_CONNECTIONS_PER_ADDRESS}. */
        TOO_MANY_CONNECTIONS,
        /** {@link RdmaChannelOption#MAX_REGISTERED_MEMORY_PER_ADDRESS}. */
        TOO_MUCH_MEMORY
    }

    /** What the admitted connections of one address have: their number and the registered bytes they hold. */
    private static final class AddressShare {
        static final AddressShare NONE = new AddressShare(0, 0);

        final int connections;
        final long held;

        AddressShare(int connections, long held) {
            this.connections = connections;
            this.held = held;
        }

        /** Returns this plus the deltas, or {@code null} (the address leaves the map) if no connection is left. */
        AddressShare plus(int moreConnections, long moreBytes) {
            int nowConnections = connections + moreConnections;
            return nowConnections == 0 ? null : new AddressShare(nowConnections, held + moreBytes);
        }
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
         * Admits the connection from {@code source} if the connections of that address stay within
         * {@code maxConnections} with it, and what they hold, with the {@code atMost} bytes this
         * connection can come to hold, within {@code maxBytes}; those bytes are held until
         * {@link #hold} says what the connection holds.
         *
         * @return {@link Verdict#ADMITTED}, or the bound the address would pass
         */
        Verdict admit(InetAddress source, long atMost, int maxConnections, long maxBytes) {
            if (address != null) {
                throw new IllegalStateException("admitted already");
            }
            Verdict verdict = tryAdd(source, 1, atMost, maxConnections, maxBytes);
            if (verdict == Verdict.ADMITTED) {
                address = source;
                held = atMost;
            }
            return verdict;
        }

        /**
         * Counts {@code bytes} more as held if the address stays within {@code maxBytes} with them.
         *
         * @return {@code false} if it would not; then nothing changed
         */
        boolean holdMore(long bytes, long maxBytes) {
            if (address == null) {
                return true;
            }
            if (tryAdd(address, 0, bytes, Integer.MAX_VALUE, maxBytes) != Verdict.ADMITTED) {
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
                add(address, 0, bytes - held);
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
            if (address != null) {
                add(address, -1, -held);
                held = 0;
                address = null;
            }
        }
    }
}
