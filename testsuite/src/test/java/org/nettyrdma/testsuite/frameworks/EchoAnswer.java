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
package org.nettyrdma.testsuite.frameworks;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What a framework's echoing HTTP server answered to one request of a test, with the body the test
 * sent: the server answers with status 200 if the body's CRC32 is the one in {@link #CRC_HEADER},
 * the CRC32 it computed in that header, the class of the socket channel it served on in
 * {@link #CHANNEL_HEADER}, and the body.
 *
 * @param version the HTTP version as the framework names it
 */
public record EchoAnswer(int status, String version, String serverCrc, String serverChannel, byte[] body,
                         byte[] sent) {

    /** The header with a body's CRC32, in {@link Payloads#hex} form. */
    public static final String CRC_HEADER = "x-crc32";
    /** The header with the simple name of the class of the server's socket channel. */
    public static final String CHANNEL_HEADER = "x-channel";

    /** Asserts that request {@code index} was answered over RDMA, in {@code expectedVersion}, with its body whole. */
    public void assertWhole(String expectedVersion, int index) {
        assertWhole(expectedVersion, "RdmaSocketChannel", index);
    }

    /**
     * Asserts that request {@code index} was answered in {@code expectedVersion} by a server on a socket
     * channel of the class named {@code expectedServerChannel} (its simple name), with its body whole.
     */
    public void assertWhole(String expectedVersion, String expectedServerChannel, int index) {
        String what = "request " + index + " (" + sent.length + " bytes)";
        assertEquals(200, status, what + ": the server found the CRC32 it was sent");
        assertEquals(expectedVersion, version, what);
        assertEquals(expectedServerChannel, serverChannel, what + ": the server's channel");
        String crc = Payloads.hex(Payloads.crc32(sent));
        assertEquals(crc, serverCrc, what + ": the CRC32 the server computed");
        assertEquals(sent.length, body.length, what + ": the echoed length");
        assertEquals(crc, Payloads.hex(Payloads.crc32(body)), what + ": the echoed body");
    }
}
