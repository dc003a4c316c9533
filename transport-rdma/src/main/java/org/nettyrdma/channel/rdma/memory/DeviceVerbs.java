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

/**
 * Which verbs the transport posts on one device, decided once when the device is opened from what it
 * reports ({@link DeviceCapabilities}): a verb the device lacks is never posted, and an operation that
 * would need one fails at once with an error naming the device and what it lacks
 * ({@link #unsupported}). What every device runs, Sends into posted receives, plain RDMA Writes and
 * Reads of one scatter entry, carries the byte stream everywhere (docs/devices.md).
 *
 * <ul>
 *   <li><b>Rings</b> (RDMA Writes with immediate into a window over the receiver's ring): only where
 *       the device has type-2 memory windows, speaks InfiniBand's transport (iWARP has no immediate
 *       data) and its windows confine a peer ({@link RdmaDevice#windowsConfinePeers(int, int)}: not
 *       rxe). Elsewhere the peer Sends everything (docs/decisions.md#no-ring-where-windows-do-not-confine).
 *   <li><b>Atomics</b>: only where {@code atomic_cap} is not {@code IBV_ATOMIC_NONE}; exposing memory
 *       with remote atomic access is refused elsewhere as well.
 *   <li><b>Shared receive queues</b>: only where the device has them ({@code max_srq > 0}).
 *   <li><b>RDMA Read</b>: {@value #READ_SCATTER_ENTRIES} scatter entry per Read, within every device's
 *       {@code max_sge_rd} (siw allows no more).
 *   <li><b>What a Write's completion means</b>: on InfiniBand's transport (RoCE included) the responder
 *       acknowledged the Write, so a key it refused fails the Write itself; on iWARP the Write completes
 *       once sent, and a refusal comes back as the end of the connection. There each one-sided Write is
 *       followed by a zero-length RDMA Read, which the responder answers only after placing what came
 *       before it ({@link #writeCompletionsConfirmPlacement()}).
 *   <li><b>What a Send's completion means</b>: the same holds for the {@code CLOSE} a connection sends
 *       before it disconnects; on iWARP the disconnect waits for the peer's, within a bound
 *       ({@link #sendCompletionsConfirmDelivery()}).
 * </ul>
 *
 * <p>Immutable.
 */
public final class DeviceVerbs {

    /** The scatter entries the transport lands one RDMA Read in: the one a Read's landing block offers. */
    public static final int READ_SCATTER_ENTRIES = 1;

    private final DeviceCapabilities capabilities;
    private final boolean windowsConfinePeers;
    private final boolean hostsRings;

    private DeviceVerbs(DeviceCapabilities capabilities) {
        this.capabilities = capabilities;
        this.hostsRings = capabilities.hasType2Windows() && capabilities.hasWriteWithImmediate();
        this.windowsConfinePeers = capabilities.hasType2Windows()
                && RdmaDevice.windowsConfinePeers(capabilities.vendorId(), capabilities.capabilityFlags());
    }

    /** Decides which verbs the transport posts on a device that reports {@code capabilities}. */
    public static DeviceVerbs decide(DeviceCapabilities capabilities) {
        return new DeviceVerbs(capabilities);
    }

    /** Returns what the device reported. */
    public DeviceCapabilities capabilities() {
        return capabilities;
    }

    /**
     * Returns {@code true} if the device can carry a ring at all: type-2 windows to bind over it and
     * Writes with immediate to announce what landed. {@code -Dorg.nettyrdma.ring=always} opens rings
     * only on such a device.
     */
    public boolean hostsRings() {
        return hostsRings;
    }

    /**
     * Returns {@code true} if a memory window bound to a connection's queue pair keeps that connection's
     * peer out of everything else on the device: only then does a connection open a ring by default.
     */
    public boolean windowsConfinePeers() {
        return windowsConfinePeers;
    }

    /** Returns {@code true} if connections open rings to their peers by default: {@link #hostsRings()} and confined. */
    public boolean opensRings() {
        return hostsRings && windowsConfinePeers;
    }

    /** Returns {@code true} if compare-and-swap and fetch-and-add are posted on the device. */
    public boolean atomics() {
        return capabilities.hasAtomics();
    }

    /**
     * Returns {@code true} if a one-sided Write's own completion says the peer's device placed it (or
     * refused it): not on iWARP, where it only says that the Write was sent.
     */
    public boolean writeCompletionsConfirmPlacement() {
        return capabilities.transport() != DeviceCapabilities.Transport.IWARP;
    }

    /**
     * Returns {@code true} if a Send's completion says the peer's device took it: on InfiniBand's
     * transport the responder acknowledged it; on iWARP it was only handed to the kernel's TCP, which
     * drops what it has not sent yet when the connection is closed with bytes left unread (a reset).
     */
    public boolean sendCompletionsConfirmDelivery() {
        return capabilities.transport() != DeviceCapabilities.Transport.IWARP;
    }

    /**
     * Returns {@code true} if the connecting side nudges the peer's device to read its {@code HELLO}
     * (a zero-length RDMA Read while the answer is late): on iWARP, where siw may leave a Send that
     * arrives while it accepts unread in the socket (docs/decisions.md#hello-nudge-on-iwarp).
     */
    public boolean nudgesHello() {
        return capabilities.transport() == DeviceCapabilities.Transport.IWARP;
    }

    /**
     * Returns {@code true} if RDMA CM connects over a TCP connection of the kernel's (iWARP, whose MPA
     * request is the first thing sent on it): a server at the port that is no RDMA listener then
     * answers the connect itself, by closing it or with bytes that are no MPA reply, where on
     * InfiniBand's transport the port would refuse it as one nobody listens on.
     */
    public boolean connectsOverTcp() {
        return capabilities.transport() == DeviceCapabilities.Transport.IWARP;
    }

    /**
     * Returns {@code true} if a Send may gather two pieces of registered memory (a message's header
     * and a registered buffer's bytes, read where they are): the device allows two scatter/gather
     * entries per work request.
     */
    public boolean gathersSends() {
        return capabilities.maxSge() >= 2;
    }

    /** Returns {@code true} if the device's connections may take receives from a shared receive queue. */
    public boolean sharedReceiveQueues() {
        return capabilities.hasSharedReceiveQueues();
    }

    /**
     * Returns the error of an operation the device cannot run: {@code operation} (for example "a
     * compare-and-swap") needs {@code missing} (for example "atomics"), which the device reports it
     * lacks with {@code evidence} (for example "atomic_cap NONE").
     */
    public UnsupportedOperationException unsupported(String operation, String missing, String evidence) {
        return new UnsupportedOperationException(operation + " cannot run on the RDMA device " + capabilities.name()
                + ": it has no " + missing + " (" + evidence + "; docs/devices.md)");
    }

    /** Says which verbs the transport posts on the device, and why not the others. */
    @Override
    public String toString() {
        return "the transport posts Sends, RDMA Writes and Reads (" + READ_SCATTER_ENTRIES + " scatter entry of "
                + capabilities.maxSgeRd() + " allowed)"
                + "; rings (Writes with immediate): " + (opensRings() ? "yes"
                        : !capabilities.hasType2Windows() ? "no, no type-2 memory windows"
                        : !capabilities.hasWriteWithImmediate() ? "no, " + capabilities.transport() + " has no immediate data"
                        : "no, its windows do not confine a peer")
                + "; atomics: " + (atomics() ? "yes" : "no, atomic_cap NONE")
                + "; shared receive queues: " + (sharedReceiveQueues() ? "yes" : "no, max_srq 0");
    }
}
