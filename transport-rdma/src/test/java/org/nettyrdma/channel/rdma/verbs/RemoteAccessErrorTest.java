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
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.ibm.disni.verbs.IbvWC;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.nettyrdma.channel.rdma.internal.RdmaNative;
import org.nettyrdma.testkit.RdmaTestEnvironment;

/**
 * The memory registration is the security boundary: a Write that names a key the target never
 * handed out must be refused by the target's device, leave its memory untouched and put the
 * writer's QP into the error state.
 */
class RemoteAccessErrorTest {

    private static final int QP_STATE_ERR = 6;

    @BeforeEach
    void requireDevice() {
        RdmaTestEnvironment.assumeDevice();
    }

    @Test
    void writeWithAWrongRkeyIsRefusedAndWritesNothing() throws Exception {
        try (ConnectedPair pair = ConnectedPair.connect(0)) {
            int length = 8192;
            int target = 128 * 1024;
            DataTransferTest.fill(pair.client.buffer, 0, length, 42);
            byte[] before = DataTransferTest.read(pair.server.buffer, target, length);
            int wrongRkey = pair.server.mr.getRkey() ^ 0x00ff_ff00;
            assertNotEquals(pair.server.mr.getRkey(), wrongRkey);

            pair.client.postWrite(13, 0, length, pair.server.address(target), wrongRkey);
            IbvWC wc = pair.client.awaitCompletions(1).get(0);
            assertEquals(13, wc.getWr_id());
            assertEquals(WcStatus.REM_ACCESS_ERR.ordinal(), wc.getStatus(),
                    () -> "status " + WcStatus.name(wc.getStatus()));
            assertEquals(QP_STATE_ERR, RdmaNative.queryQpState(ConnectedPair.handle(pair.client.qp)),
                    "the writer's QP is in the error state");
            assertArrayEquals(before, DataTransferTest.read(pair.server.buffer, target, length),
                    "nothing was written");
        }
    }
}
