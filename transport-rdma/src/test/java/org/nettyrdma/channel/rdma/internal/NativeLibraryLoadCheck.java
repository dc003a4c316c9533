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
package org.nettyrdma.channel.rdma.internal;

import io.netty.channel.epoll.Epoll;

import java.nio.ByteBuffer;

/**
 * Loads {@code libdisni.so} in a JVM of another architecture than the build host's, as a user's JVM
 * loads it, and calls into it: Maven runs it on Debian's arm64 JRE under qemu-user
 * ({@code scripts/lib/arm64-java}), where no arm64 CPU is at hand. Not a JUnit test, since Surefire's
 * JVM is the host's.
 *
 * <p>It checks that {@link NativeLibrary} chose the library of the JVM's {@code os.arch}, loaded it
 * from the jar's resources, and made it satisfy DiSNI's {@code System.loadLibrary("disni")}; then
 * calls natives that need no device: DiSNI's version and the work request size that the transport's
 * Java writes with, and a project native that goes through the {@code JNIEnv}. Netty's epoll, whose
 * event loop the transport runs on, must load its native library for the same architecture. Exits
 * non-zero, with the reason, when anything differs.
 */
public final class NativeLibraryLoadCheck {

    private static final int DISNI_VERSION = 32;
    private static final int SEND_WR_SIZE = 128;
    private static final int BUFFER_SIZE = 64;

    private NativeLibraryLoadCheck() {
    }

    /**
     * Runs the check.
     *
     * @param args the {@code os.arch} the JVM must report, e.g. {@code aarch64}
     */
    public static void main(String[] args) {
        String arch = System.getProperty("os.arch");
        check(args.length == 1 && args[0].equals(arch), "expected os.arch " + String.join(" ", args)
                + ", this JVM reports " + arch);
        String path = NativeLibrary.bundledPath(System.getProperty("os.name"), arch);
        check(NativeLibraryLoadCheck.class.getClassLoader().getResource(path) != null,
                path + " is not on the class path");
        NativeLibrary.ensureLoaded();
        // What DiSNI's static initialisers do; it must find the library already loaded.
        System.loadLibrary(NativeLibrary.NAME);
        int version = DisniNative.dispatcher()._getVersion();
        check(version == DISNI_VERSION, "DiSNI version " + version + " (expected: " + DISNI_VERSION + ')');
        int sendWrSize = DisniNative.dispatcher()._getIbvSendWRSize();
        check(sendWrSize == SEND_WR_SIZE, "ibv_send_wr of " + sendWrSize + " bytes (expected: " + SEND_WR_SIZE + ')');
        ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER_SIZE);
        long address = RdmaNative.directBufferAddress(buffer);
        check(address != 0 && RdmaNative.directBufferAddress(buffer.position(8).slice()) == address + 8,
                "directBufferAddress does not follow a slice");
        Epoll.ensureAvailability();
        System.out.println("NativeLibraryLoadCheck: " + System.getProperty("java.vm.name") + ' '
                + System.getProperty("java.version") + " on " + arch + " loaded " + path
                + "; DiSNI version " + version + ", ibv_send_wr " + sendWrSize + " bytes, directBufferAddress ok;"
                + " Netty's epoll available");
    }

    private static void check(boolean condition, String failure) {
        if (!condition) {
            System.err.println("NativeLibraryLoadCheck: " + failure);
            System.exit(1);
        }
    }
}
