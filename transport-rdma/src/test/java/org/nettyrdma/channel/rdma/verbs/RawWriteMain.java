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

import java.net.InetSocketAddress;
import java.util.Arrays;

import org.nettyrdma.channel.rdma.Rdma;

/**
 * A raw verbs client in a process of its own, for tests where the peer must not share the test's
 * JVM (or its protection domain): it connects to a netty-rdma server, exchanges {@code HELLO}s, makes
 * one RDMA Write of {@code length} bytes of {@link #FILL} to the given address with the given rkey,
 * prints {@code write completion: STATUS} and disconnects.
 *
 * <p>Arguments: {@code HOST PORT ADDRESS RKEY LENGTH} (the address and rkey in decimal). Exits with 0
 * once the write completed, whatever its status, and with 1 if anything else failed.
 */
public final class RawWriteMain {

    /** The line printed once the Write completed: the status follows it. */
    public static final String COMPLETION_LINE = "write completion: ";
    /** The byte written. */
    public static final byte FILL = (byte) 0xEE;

    private RawWriteMain() {
    }

    /** Runs the client; see the class comment for the arguments. */
    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: RawWriteMain HOST PORT ADDRESS RKEY LENGTH");
            System.exit(2);
        }
        // DiSNI's object API loads libdisni.so by name: the transport's loader, which takes it from the
        // jar and makes that name resolve, must run first, as in every JVM of the tests.
        Rdma.ensureAvailability();
        InetSocketAddress server = new InetSocketAddress(args[0], Integer.parseInt(args[1]));
        RawRdmaClient.Target target = new RawRdmaClient.Target(Long.parseLong(args[2]), Integer.parseInt(args[3]));
        byte[] data = new byte[Integer.parseInt(args[4])];
        Arrays.fill(data, FILL);
        try (RawRdmaClient client = RawRdmaClient.connect(server)) {
            client.exchangeHellos(RawRdmaClient.hello(RawRdmaClient.RECEIVES - 2));
            RawRdmaClient.Completion completion = client.write(target, data);
            System.out.println(COMPLETION_LINE + completion.status());
            System.out.flush();
        } catch (Throwable t) {
            t.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }
}
