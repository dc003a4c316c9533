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
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How {@link NativeLibrary} loads {@code libdisni.so}: from the class path's bundled copy, in a JVM
 * started without {@code -Djava.library.path} (Surefire's, which this module gives no flag), and how
 * {@link RdmaNative#directBufferAddress} finds buffer memory without {@code sun.nio.ch}.
 */
class NativeLibraryTest {

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
