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
package org.nettyrdma.example.atomics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.EnumSet;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.nettyrdma.channel.rdma.RemoteAccess;
import org.nettyrdma.channel.rdma.RemoteRegion;

class SharedWordsTest {

    @Test
    void theWordsAreThreeAlignedWords() {
        assertEquals(0, SharedWords.COUNTER % Long.BYTES);
        assertEquals(0, SharedWords.LOCK % Long.BYTES);
        assertEquals(0, SharedWords.GUARDED % Long.BYTES);
        assertEquals(3 * Long.BYTES, SharedWords.LENGTH);
    }

    @Test
    void theHelloCarriesTheDescriptorAndTheId() {
        RemoteRegion words = new RemoteRegion(0x7f00_0000_1000L, SharedWords.LENGTH, 0xabc,
                EnumSet.allOf(RemoteAccess.class));
        ByteBuf hello = SharedWords.writeHello(Unpooled.buffer(), words, 3);
        assertEquals(SharedWords.HELLO_LENGTH, hello.readableBytes());
        assertEquals(new SharedWords.Hello(words, 3), SharedWords.readHello(hello));
        hello.release();
    }

    @Test
    void aWordIsLittleEndianAsTheDevicesAtomicsTakeIt() {
        ByteBuf memory = Unpooled.buffer(SharedWords.LENGTH).writeZero(SharedWords.LENGTH);
        memory.setByte(SharedWords.LOCK, 1);
        assertEquals(1, SharedWords.word(memory, SharedWords.LOCK));
        assertEquals(0, SharedWords.word(memory, SharedWords.COUNTER));
        memory.release();
    }
}
