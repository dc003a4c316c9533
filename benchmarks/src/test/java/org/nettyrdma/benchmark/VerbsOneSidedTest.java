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
package org.nettyrdma.benchmark;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The raw-verbs floor of RDMA Read and fetch-and-add: its sizes anywhere, its operations where an RDMA
 * device is (the rxe VM sets {@code RDMA_TEST_ADDRESS}). No figure is checked but that each round
 * printed one, and that the word holds every add made.
 */
class VerbsOneSidedTest {

    @Test
    void aReadSizeTheTableCannotServeIsRefused() {
        VerbsOneSided.checkSizes(new int[] {1, 64, 65536});
        assertThrows(IllegalArgumentException.class, () -> VerbsOneSided.checkSizes(new int[] {64, 0}));
        assertThrows(IllegalArgumentException.class, () -> VerbsOneSided.checkSizes(new int[] {65537}));
    }

    @Tag(VerbsTestDevice.TAG)
    @Test
    void readsAndAddsOverTheDevice() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        long half = TimeUnit.MILLISECONDS.toNanos(500);
        boolean ran = VerbsOneSided.run(VerbsTestDevice.address(), new int[] {64, 4096}, half, half, 2,
                new PrintStream(printed, true, StandardCharsets.UTF_8));
        String output = printed.toString(StandardCharsets.UTF_8);
        assertTrue(ran, output);
        for (int round = 1; round <= 2; round++) {
            for (String phase : new String[] {"op=read size=64", "op=read size=4096", "op=fetch-and-add size=8"}) {
                assertTrue(output.contains("\nbench transport=java-verbs " + phase + " round=" + round + " p50_us="),
                        phase + " round " + round + ":\n" + output);
            }
        }
        assertTrue(output.contains("java-verbs fetch-and-add: the word holds "), output);
    }
}
