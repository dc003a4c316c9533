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
package org.nettyrdma.channel.rdma.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.Random;

import com.ibm.disni.verbs.IbvWC;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nettyrdma.testkit.RdmaTestEnvironment;

/**
 * Moves bytes with each operation the transport uses (Send/Recv, RDMA Write, Write with immediate)
 * and RDMA Read, and checks them byte for byte on the other side.
 */
class DataTransferTest {

    /** {@code enum ibv_wc_opcode} values the assertions need. */
    private static final int WC_SEND = 0;
    private static final int WC_RDMA_WRITE = 1;
    private static final int WC_RDMA_READ = 2;
    private static final int WC_RECV = 128;
    private static final int WC_RECV_RDMA_WITH_IMM = 129;

    private static final int SOURCE = 0;
    private static final int TARGET = 256 * 1024;

    @BeforeEach
    void requireDevice() {
        RdmaTestEnvironment.assumeDevice();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 100, 4096})
    void sendIsReceivedIntoThePostedBuffer(int length) throws Exception {
        try (ConnectedPair pair = ConnectedPair.connect(1)) {
            byte[] data = fill(pair.client.buffer, SOURCE, length, length);
            pair.client.postSend(1, SOURCE, length);
            assertEquals(WC_SEND, pair.client.awaitSuccess(1).getOpcode());
            IbvWC received = pair.server.awaitSuccess(2000);
            assertEquals(WC_RECV, received.getOpcode());
            assertEquals(length, received.getByte_len());
            assertArrayEquals(data, read(pair.server.buffer, ConnectedPair.receiveSlot(0), length));
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 4097, 65536, 200_000})
    void rdmaWritePlacesTheBytesInTheRemoteBuffer(int length) throws Exception {
        try (ConnectedPair pair = ConnectedPair.connect(0)) {
            byte[] data = fill(pair.client.buffer, SOURCE, length, length);
            pair.client.postWrite(7, SOURCE, length, pair.server.address(TARGET), pair.server.mr.getRkey());
            assertEquals(WC_RDMA_WRITE, pair.client.awaitSuccess(7).getOpcode());
            assertArrayEquals(data, read(pair.server.buffer, TARGET, length));
            assertEquals(0, pair.server.pollOnce().size(), "a plain write consumes no receive and signals nothing");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 65536})
    void rdmaWriteWithImmediateConsumesAReceiveAndCarriesTheImmediate(int length) throws Exception {
        try (ConnectedPair pair = ConnectedPair.connect(1)) {
            byte[] data = fill(pair.client.buffer, SOURCE, length, length + 1);
            int immediate = 0x5eed0000 | length;
            pair.client.postWriteWithImmediate(9, SOURCE, length, pair.server.address(TARGET),
                    pair.server.mr.getRkey(), immediate);
            pair.client.awaitSuccess(9);
            IbvWC received = pair.server.awaitSuccess(2000);
            assertEquals(WC_RECV_RDMA_WITH_IMM, received.getOpcode());
            assertEquals(immediate, received.getImm_data());
            assertEquals(length, received.getByte_len());
            assertArrayEquals(data, read(pair.server.buffer, TARGET, length));
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 65536})
    void rdmaReadFetchesTheRemoteBytes(int length) throws Exception {
        try (ConnectedPair pair = ConnectedPair.connect(0)) {
            byte[] data = fill(pair.server.buffer, TARGET, length, length + 2);
            pair.client.postRead(11, SOURCE, length, pair.server.address(TARGET), pair.server.mr.getRkey());
            assertEquals(WC_RDMA_READ, pair.client.awaitSuccess(11).getOpcode());
            assertArrayEquals(data, read(pair.client.buffer, SOURCE, length));
        }
    }

    static byte[] fill(ByteBuffer buffer, int offset, int length, long seed) {
        byte[] data = new byte[length];
        new Random(seed).nextBytes(data);
        buffer.put(offset, data);
        return data;
    }

    static byte[] read(ByteBuffer buffer, int offset, int length) {
        byte[] data = new byte[length];
        buffer.get(offset, data);
        return data;
    }
}
