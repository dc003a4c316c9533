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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** The rounds a benchmark program measures after its warm-up: counted, or read line by line. */
class MeasuredRoundsTest {

    @Test
    void aCountNumbersItsRoundsFromOne() throws IOException {
        MeasuredRounds rounds = MeasuredRounds.parse("3", new ByteArrayInputStream(new byte[0]));
        assertEquals(1, rounds.next());
        assertEquals(2, rounds.next());
        assertEquals(3, rounds.next());
        assertEquals(0, rounds.next());
        assertEquals(0, rounds.next());
    }

    @Test
    void linesGiveTheRoundsTheirNumbersUntilTheInputEnds() throws IOException {
        MeasuredRounds rounds = MeasuredRounds.parse("stdin",
                new ByteArrayInputStream("round 2\n\n  round 7  \n".getBytes(StandardCharsets.UTF_8)));
        assertEquals(2, rounds.next());
        assertEquals(7, rounds.next());
        assertEquals(0, rounds.next());
    }

    @Test
    void aLineThatIsNotARoundIsAnError() throws IOException {
        MeasuredRounds rounds = MeasuredRounds.fromLines(new StringReader("round 1\nround two\n"));
        assertEquals(1, rounds.next());
        IOException e = assertThrows(IOException.class, rounds::next);
        assertEquals("standard input: \"round two\" (expected: round N, N >= 1)", e.getMessage());
        assertThrows(IOException.class, MeasuredRounds.fromLines(new StringReader("round 0\n"))::next);
        assertThrows(IOException.class, MeasuredRounds.fromLines(new StringReader("go\n"))::next);
    }

    @Test
    void theOptionIsACountOrStdin() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> MeasuredRounds.parse("many", new ByteArrayInputStream(new byte[0])));
        assertEquals("--rounds: many (expected: a count >= 1, or stdin)", e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> MeasuredRounds.parse("0", new ByteArrayInputStream(new byte[0])));
    }
}
