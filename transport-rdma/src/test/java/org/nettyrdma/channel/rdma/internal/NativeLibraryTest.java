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

import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How {@link NativeLibrary} loads {@code libdisni.so}: from the class path's bundled copy, in a JVM
 * started without {@code -Djava.library.path} (Surefire's, which this module gives no flag), which
 * platform's copy it picks, and how {@link RdmaNative#directBufferAddress} finds buffer memory without
 * {@code sun.nio.ch}.
 */
class NativeLibraryTest {

    private static final String X86_64_PATH = "META-INF/native/linux-x86_64/libdisni.so";
    private static final String AARCH_64_PATH = "META-INF/native/linux-aarch_64/libdisni.so";
    /** {@code e_machine} of the ELF header: where it is, and the values of the two platforms. */
    private static final int ELF_MACHINE_OFFSET = 18;
    private static final short EM_X86_64 = 62;
    private static final short EM_AARCH64 = 183;

    @Test
    void bundledPathFollowsOsArch() {
        assertEquals(X86_64_PATH, NativeLibrary.bundledPath("Linux", "amd64"));
        assertEquals(X86_64_PATH, NativeLibrary.bundledPath("Linux", "x86_64"));
        assertEquals(AARCH_64_PATH, NativeLibrary.bundledPath("Linux", "aarch64"));
        assertEquals(AARCH_64_PATH, NativeLibrary.bundledPath("Linux", "arm64"));
        assertEquals(AARCH_64_PATH, NativeLibrary.bundledPath("LINUX", "AArch64"));
    }

    @Test
    void bundledPathNamesAnUnsupportedPlatform() {
        for (String[] platform : new String[][] {
                {"Linux", "riscv64"}, {"Linux", "ppc64le"}, {"Linux", "x86"}, {"Linux", "arm"},
                {"Mac OS X", "aarch64"}, {"Windows 11", "amd64"}, {"FreeBSD", "amd64"}}) {
            UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                    () -> NativeLibrary.bundledPath(platform[0], platform[1]));
            assertTrue(e.getMessage().endsWith("not for " + platform[0] + '/' + platform[1]), e.getMessage());
            assertTrue(e.getMessage().contains("linux-x86_64") && e.getMessage().contains("linux-aarch_64"),
                    e.getMessage());
        }
    }

    @Test
    void bothPlatformsAreInTheBuiltClasses() throws IOException {
        assertEquals(EM_X86_64, elfMachine(X86_64_PATH));
        assertEquals(EM_AARCH64, elfMachine(AARCH_64_PATH));
    }

    private static short elfMachine(String resource) throws IOException {
        try (InputStream in = NativeLibraryTest.class.getClassLoader().getResourceAsStream(resource)) {
            assertNotNull(in, resource + " is not on the class path");
            byte[] header = in.readNBytes(ELF_MACHINE_OFFSET + Short.BYTES);
            assertEquals(ELF_MACHINE_OFFSET + Short.BYTES, header.length, resource + " is too short for ELF");
            assertEquals(0x7f454c46, ByteBuffer.wrap(header).getInt(0), resource + " is not an ELF file");
            assertEquals(2, header[4], resource + " is not a 64-bit ELF file");
            assertEquals(1, header[5], resource + " is not little-endian");
            return ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN).getShort(ELF_MACHINE_OFFSET);
        }
    }

    @Test
    void loadsTheBundledCopyWithoutLibraryPath() throws IOException {
        for (String dir : System.getProperty("java.library.path", "").split(File.pathSeparator)) {
            assertFalse(!dir.isEmpty() && new File(dir, "libdisni.so").exists(),
                    "a libdisni.so on java.library.path (" + dir + ") would make this test prove nothing");
        }
        assertNull(NativeLibrary.unavailabilityCause());
        // The extracted file, in a private directory of its own, is deleted once loaded: the mapping
        // stays, marked "(deleted)".
        List<String> mappings = Files.readAllLines(Path.of("/proc/self/maps")).stream()
                .filter(line -> line.contains("/netty-rdma-native"))
                .collect(Collectors.toList());
        assertFalse(mappings.isEmpty(), "libdisni.so is not mapped from an extracted copy");
        assertTrue(mappings.stream().allMatch(line -> line.endsWith("(deleted)")), mappings::toString);
    }

    @Test
    void disniLoadLibraryIsSatisfiedByTheLoadedCopy() {
        NativeLibrary.ensureLoaded();
        // What DiSNI's static initialisers do; it would fail with "no disni in java.library.path".
        System.loadLibrary(NativeLibrary.NAME);
        assertEquals(32, DisniNative.dispatcher()._getVersion());
    }

    @Test
    void directBufferAddressFollowsSlices() {
        ByteBuffer buffer = ByteBuffer.allocateDirect(256);
        long address = RdmaNative.directBufferAddress(buffer);
        assertNotEquals(0, address);
        assertEquals(address + 100, RdmaNative.directBufferAddress(buffer.position(100).slice()));
        assertEquals(0, RdmaNative.directBufferAddress(ByteBuffer.allocate(16)), "a heap buffer has none");
    }
}
