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
package org.nettyrdma.testkit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The device's receiver-not-ready counters, which rxe keeps in sysfs: the NAKs a responder sent
 * because it found no receive posted ({@code send_rnr_err}), and those a requester received
 * ({@code rcvd_rnr_err}). Both ends of a device test share one device, so a count that did not move
 * means that no Send of any queue pair on it, honest or hostile, met an empty receive queue. A device
 * without these counters fails the test that reads them: its assertion would otherwise mean nothing.
 */
public final class RnrCounters {

    private static final List<String> NAMES = List.of("rcvd_rnr_err", "send_rnr_err");

    private RnrCounters() {
    }

    /** Returns the counters by name, now. */
    public static Map<String, Long> read() throws IOException {
        Path directory = directory();
        Map<String, Long> values = new TreeMap<>();
        for (String name : NAMES) {
            Path file = directory.resolve(name);
            assertTrue(Files.isReadable(file), () -> "the device keeps no counter " + file);
            values.put(name, Long.parseLong(Files.readString(file, StandardCharsets.US_ASCII).trim()));
        }
        return values;
    }

    private static Path directory() {
        String device = RdmaTestEnvironment.deviceName();
        if (device == null) {
            File[] devices = new File("/sys/class/infiniband").listFiles();
            assertTrue(devices != null && devices.length > 0, "no RDMA device in /sys/class/infiniband");
            device = devices[0].getName();
        }
        return Path.of("/sys/class/infiniband", device, "ports", "1", "hw_counters");
    }
}
