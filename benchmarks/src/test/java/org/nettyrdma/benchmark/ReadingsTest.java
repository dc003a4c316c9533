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
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Map;

import org.junit.jupiter.api.Test;

/** Medians over rounds, their spread, and ratios that pair the readings of one round. */
class ReadingsTest {

    @Test
    void theMedianOfAnOddCountIsTheMiddleReading() {
        Figure figure = Readings.of(Map.of(1, 30.0, 2, 10.0, 3, 20.0)).figure();
        assertEquals(new Figure(20.0, 10.0, 30.0, 3), figure);
        assertEquals("20.0 (10.0-30.0)", figure.format(1));
    }

    @Test
    void theMedianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
        assertEquals(new Figure(25.0, 10.0, 40.0, 4), Readings.of(Map.of(1, 40.0, 2, 10.0, 3, 20.0, 4, 30.0)).figure());
    }

    @Test
    void aRoundWithoutTheFigureIsLeftOut() {
        Readings readings = Readings.of(Map.of(1, 5.0, 2, Double.NaN, 3, 7.0));
        assertEquals(2, readings.rounds());
        assertEquals(new Figure(6.0, 5.0, 7.0, 2), readings.figure());
        assertEquals(Figure.NONE, Readings.of(Map.of(1, Double.NaN)).figure());
    }

    @Test
    void aRatioIsOfTheMediansWithTheSpreadOfOneRoundsPairs() {
        Readings transport = Readings.of(Map.of(1, 100.0, 2, 300.0, 3, 200.0));
        Readings floor = Readings.of(Map.of(1, 50.0, 2, 100.0, 3, 80.0));
        // 200 / 80; round by round 2.0, 3.0 and 2.5.
        assertEquals(new Figure(2.5, 2.0, 3.0, 3), transport.over(floor));
        // A round that only one side measured pairs with nothing, but its reading is in the median.
        Readings partial = Readings.of(Map.of(1, 50.0, 3, 40.0, 4, 90.0));
        assertEquals(new Figure(200.0 / 50.0, 2.0, 5.0, 2), transport.over(partial));
        assertEquals(Figure.NONE, transport.over(Readings.NONE));
        assertEquals(Figure.NONE, Readings.NONE.over(floor));
    }

    @Test
    void aRatioWithAFigureOutsideTheRoundsScalesTheSpread() {
        Readings transport = Readings.of(Map.of(1, 40.0, 2, 50.0, 3, 45.0));
        assertEquals(new Figure(0.9, 0.8, 1.0, 3), transport.over(50.0));
        assertEquals(Figure.NONE, transport.over(Double.NaN));
    }

    @Test
    void aFigureWithoutASpreadShowsItsValueAlone() {
        assertEquals("47.8", Figure.single(47.8).format(1));
        assertEquals("3.00", Readings.of(Map.of(2, 3.0)).figure().format(2));
        assertEquals("-", Figure.NONE.format(2));
        assertFalse(Figure.NONE.isMeasured());
        assertFalse(Figure.single(Double.POSITIVE_INFINITY).isMeasured());
    }

    @Test
    void aTableAlignsItsColumns() {
        TextTable table = new TextTable(new String[] {"bytes", "transport", "MB/s"}, 0);
        table.add("64", "rdma-busypoll", "10.38 (9.80-11.20)");
        table.add("65536", "nio", "-");
        StringBuilder out = new StringBuilder();
        table.appendTo(out);
        assertEquals("   bytes  transport      MB/s\n"
                + "      64  rdma-busypoll  10.38 (9.80-11.20)\n"
                + "   65536  nio            -\n", out.toString());
    }
}
