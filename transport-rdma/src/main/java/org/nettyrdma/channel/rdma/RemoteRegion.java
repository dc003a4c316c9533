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

import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

import io.netty.buffer.ByteBuf;

/**
 * The descriptor of a region a peer exposed: its address, length, remote key and the access granted.
 * A peer sends it however it likes ({@link #writeTo}, {@link #readFrom}: {@value #ENCODED_LENGTH}
 * bytes); this side names it in {@link OneSidedOperations}. It grants nothing by itself: the device
 * honours the key only on the connection it was exposed on, for the access and bounds registered,
 * until revoked (docs/security.md#one-sided-operations). A descriptor read from the wire is the
 * peer's word: the checks made before a request is posted only spare a round trip, the device's are
 * the ones that hold.
 */
public final class RemoteRegion {

    /** The bytes of the encoding: address, length (8 each), key, access bits (4 each), big-endian. */
    public static final int ENCODED_LENGTH = 24;

    private final long address;
    private final long length;
    private final int rkey;
    private final Set<RemoteAccess> access;

    /** Creates the descriptor of {@code length} bytes at {@code address} under {@code rkey}, granting {@code access}. */
    public RemoteRegion(long address, long length, int rkey, Set<RemoteAccess> access) {
        if (length < 0) {
            throw new IllegalArgumentException("length: " + length + " (expected: >= 0)");
        }
        this.address = address;
        this.length = length;
        this.rkey = rkey;
        this.access = access.isEmpty() ? Collections.emptySet()
                : Collections.unmodifiableSet(EnumSet.copyOf(access));
    }

    /** Returns the address of the region's first byte in the exposing process. */
    public long address() {
        return address;
    }

    /** Returns the length in bytes. */
    public long length() {
        return length;
    }

    /** Returns the remote key. */
    public int rkey() {
        return rkey;
    }

    /** Returns the access granted. */
    public Set<RemoteAccess> access() {
        return access;
    }

    /** Returns {@code true} if the region grants {@code wanted}. */
    public boolean grants(RemoteAccess wanted) {
        return access.contains(wanted);
    }

    /** Writes the {@value #ENCODED_LENGTH} bytes of the descriptor at {@code out}'s writer index. */
    public ByteBuf writeTo(ByteBuf out) {
        return out.writeLong(address).writeLong(length).writeInt(rkey).writeInt(RemoteAccess.bits(access));
    }

    /**
     * Reads a descriptor written by {@link #writeTo} from {@code in}'s reader index.
     *
     * @throws IllegalArgumentException if fewer than {@value #ENCODED_LENGTH} bytes are readable, or the
     *         length or the access bits are not a descriptor's
     */
    public static RemoteRegion readFrom(ByteBuf in) {
        if (in.readableBytes() < ENCODED_LENGTH) {
            throw new IllegalArgumentException("a remote region takes " + ENCODED_LENGTH + " bytes, "
                    + in.readableBytes() + " readable");
        }
        long address = in.readLong();
        long length = in.readLong();
        int rkey = in.readInt();
        int bits = in.readInt();
        Set<RemoteAccess> access = EnumSet.noneOf(RemoteAccess.class);
        for (RemoteAccess a : RemoteAccess.values()) {
            if ((bits & a.bit) != 0) {
                access.add(a);
                bits &= ~a.bit;
            }
        }
        if (bits != 0) {
            throw new IllegalArgumentException("unknown access bits 0x" + Integer.toHexString(bits));
        }
        return new RemoteRegion(address, length, rkey, access);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof RemoteRegion)) {
            return false;
        }
        RemoteRegion other = (RemoteRegion) o;
        return address == other.address && length == other.length && rkey == other.rkey
                && access.equals(other.access);
    }

    @Override
    public int hashCode() {
        return Objects.hash(address, length, rkey, access);
    }

    @Override
    public String toString() {
        return "RemoteRegion(0x" + Long.toHexString(address) + ", " + length + " B, rkey 0x"
                + Integer.toHexString(rkey) + ", " + access + ")";
    }
}
