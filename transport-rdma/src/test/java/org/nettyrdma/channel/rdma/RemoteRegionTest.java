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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/** The descriptor of an exposed region on the wire: what is read back is what was written, and nothing else is read. */
class RemoteRegionTest {

    @Test
    void aDescriptorReadsBackAsWritten() {
        RemoteRegion region = new RemoteRegion(0x7f00_1234_5000L, 4096, 0xCAFE, EnumSet.of(RemoteAccess.READ,
                RemoteAccess.ATOMIC));
        ByteBuf wire = region.writeTo(Unpooled.buffer());
        assertEquals(RemoteRegion.ENCODED_LENGTH, wire.readableBytes());
        RemoteRegion read = RemoteRegion.readFrom(wire);
        assertEquals(region, read);
        assertTrue(read.grants(RemoteAccess.ATOMIC));
        assertFalse(read.grants(RemoteAccess.WRITE));
        assertEquals(0, wire.readableBytes());
    }

    @Test
    void aShortOrUnknownDescriptorIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> RemoteRegion.readFrom(Unpooled.buffer().writeZero(23)));
        ByteBuf unknownBits = Unpooled.buffer().writeLong(0).writeLong(8).writeInt(1).writeInt(8);
        assertThrows(IllegalArgumentException.class, () -> RemoteRegion.readFrom(unknownBits));
        ByteBuf negativeLength = Unpooled.buffer().writeLong(0).writeLong(-1).writeInt(1).writeInt(1);
        assertThrows(IllegalArgumentException.class, () -> RemoteRegion.readFrom(negativeLength));
    }

    @Test
    void theAccessSetCannotBeChangedAfterwards() {
        EnumSet<RemoteAccess> access = EnumSet.of(RemoteAccess.READ);
        RemoteRegion region = new RemoteRegion(0, 8, 1, access);
        access.add(RemoteAccess.WRITE);
        assertFalse(region.grants(RemoteAccess.WRITE));
        assertThrows(UnsupportedOperationException.class, () -> region.access().add(RemoteAccess.WRITE));
    }
}
