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

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A file of {@link Payloads#bytes} that a framework's server sends with {@code sendFile}, and its CRC32. */
public record BodyFile(Path path, int size, long crc) {

    /** Writes {@code size} bytes made from {@code seed} to {@code body.bin} in {@code directory}. */
    public static BodyFile write(Path directory, long seed, int size) throws IOException {
        byte[] content = Payloads.bytes(seed, size);
        return new BodyFile(Files.write(directory.resolve("body.bin"), content), size, Payloads.crc32(content));
    }
}
